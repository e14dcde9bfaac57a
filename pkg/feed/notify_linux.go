//go:build linux

package feed

import (
	"errors"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// notifier is the kernel's word (inotify) that an entry of the task
// directory, or of a directory watched for wakes only (the history's),
// changed: the watcher then looks at the files named instead of waiting for
// its next poll and sweeping every file. It only ever speeds things up:
// the polls and full sweeps go on as without it (a network filesystem or
// another container's layer writes without telling this kernel).
type notifier struct {
	f    *os.File
	wake chan struct{}

	mu    sync.Mutex
	dir   int32           // the task directory's watch
	names map[string]bool // task directory entries named since take
	all   bool            // the kernel dropped events: sweep everything
	// failed says the reports stopped (the directory went away, the read
	// failed): the watcher goes back to polling.
	failed bool
	extra  map[string]bool // wake-only directories watched
}

const notifyMask = unix.IN_CREATE | unix.IN_CLOSE_WRITE | unix.IN_MODIFY | unix.IN_ATTRIB |
	unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// startNotifier watches dir; nil when the kernel cannot (no inotify, too
// many watches, a missing directory): the watcher polls as before.
func startNotifier(dir string) *notifier {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	wd, err := unix.InotifyAddWatch(fd, dir, notifyMask)
	if err != nil {
		_ = unix.Close(fd)
		return nil
	}
	n := &notifier{f: os.NewFile(uintptr(fd), "inotify"), wake: make(chan struct{}, 1), dir: int32(wd), names: map[string]bool{}, extra: map[string]bool{}}
	go n.read()
	return n
}

// watchAlso adds a wake-only directory (once it exists).
func (n *notifier) watchAlso(dir string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.extra[dir] {
		return
	}
	if _, err := unix.InotifyAddWatch(int(n.f.Fd()), dir, unix.IN_CLOSE_WRITE|unix.IN_MODIFY|unix.IN_MOVED_TO|unix.IN_CREATE); err == nil {
		n.extra[dir] = true
	}
}

// read turns the kernel's events into names and wakes until the file is
// closed.
func (n *notifier) read() {
	buf := make([]byte, 64<<10)
	for {
		k, err := n.f.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			n.mu.Lock()
			n.all, n.failed = true, true
			n.mu.Unlock()
			n.signal()
			return
		}
		n.mu.Lock()
		for off := 0; off+unix.SizeofInotifyEvent <= k; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				n.all = true
			case ev.Wd == n.dir && ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0:
				n.all, n.failed = true, true // no more reports of the directory
			case ev.Wd == n.dir && name != "":
				n.names[name] = true
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
		n.mu.Unlock()
		n.signal()
	}
}

func (n *notifier) signal() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// stopped reports whether the reports stopped for good.
func (n *notifier) stopped() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.failed
}

// pending reports whether anything was named since the last take.
func (n *notifier) pending() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.all || len(n.names) > 0
}

// take returns the names reported since the last take, or all when every
// file must be looked at.
func (n *notifier) take() (names []string, all bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for name := range n.names {
		names = append(names, name)
	}
	clear(n.names)
	all, n.all = n.all, false
	return names, all
}

// again makes the next sweep a full one.
func (n *notifier) again() {
	n.mu.Lock()
	n.all = true
	n.mu.Unlock()
	n.signal()
}

func (n *notifier) close() { _ = n.f.Close() }
