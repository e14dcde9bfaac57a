package lock

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"
)

var (
	errTimeout     = errors.New("kernel lock: timed out")
	errUnsupported = errors.New("kernel lock: unsupported on this filesystem")
	errNoExchange  = errors.New("atomic exchange of names: unsupported here")
)

// openDir opens dir (creating it when missing) as the descriptor a Lock
// keeps for its whole life: the kernel lock is taken on it, the store
// fstats it for the directory's mtime and fsyncs it once per transaction.
// It is a raw descriptor (no os.File): no poller registration, no fcntl.
func openDir(dir string) (int, error) {
	for try := 0; ; try++ {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, unix.ENOENT) || try > 0 {
			return -1, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return -1, err
		}
	}
}

// kernelLock takes the kernel's advisory lock (flock(2), LOCK_EX, through
// gofrs/flock) on the directory dir, waiting until deadline. The directory
// is never deleted, so every process of ours locks the same inode; .lock,
// which is unlinked on release, could not serve. A blocked flock cannot be
// cancelled, so the wait runs in a goroutine; when the caller gives up, that
// goroutine releases the lock as soon as it gets it. Waiters queue in the
// kernel and a crashed holder's lock goes with its process.
//
// The lock is taken on a descriptor of its own, one more open than locking
// the descriptor the Lock keeps for fstat and fsync: lost in the noise of a
// lock round and small beside a transaction's fsyncs (docs/design/decisions.md, the
// lock).
func kernelLock(dir string, deadline time.Time) (*flock.Flock, error) {
	fl := flock.New(dir, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	switch {
	case ok:
		return fl, nil
	case err != nil && unsupported(err):
		fl.Close()
		return nil, errUnsupported
	case err != nil:
		fl.Close()
		return nil, err
	}
	var (
		mu   sync.Mutex
		gone bool
	)
	done := make(chan error, 1)
	go func() {
		err := fl.Lock()
		mu.Lock()
		defer mu.Unlock()
		if gone {
			fl.Close()
			return
		}
		done <- err
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	result := func(err error) (*flock.Flock, error) {
		switch {
		case err == nil:
			return fl, nil
		case unsupported(err):
			fl.Close()
			return nil, errUnsupported
		default:
			fl.Close()
			return nil, err
		}
	}
	select {
	case err := <-done:
		return result(err)
	case <-timer.C:
		mu.Lock()
		defer mu.Unlock()
		select {
		case err := <-done:
			return result(err)
		default:
			gone = true
			return nil, errTimeout
		}
	}
}

func unsupported(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)
}
