package input

import (
	"io"
	"math"
	"os"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// PeekWait bounds how long Pending waits for a pipe or socket to hold
// something, in total: 10 ms (docs/design/decisions.md). A writer that sends its
// document before the command has started (echo, a file, a finished
// producer) is seen; one that keeps stdin open and silent costs at most
// this much.
const PeekWait = 10 * time.Millisecond

// Unbounded, as Pending's wait, waits until stdin decides: its first
// byte that is not white space, or end of file. It is for a command whose
// document is optional and which would otherwise read stdin to its end
// (task-list, task-cleanup without flags: docs/design/decisions.md), so it waits
// no longer than reading would.
const Unbounded time.Duration = -1

// Pending reports whether r, the stdin of a command that was given its
// input as flags or arguments and so will not read stdin, or of one
// whose document is optional and which reads stdin only when it holds one
// (docs/design/decisions.md), holds a JSON document: its first byte that is not
// white space (a U+FEFF byte-order mark counts as white space) is "{",
// which begins every document these binaries take. Anything else there
// (the ids a `while read id` loop is reading, text) is not for this
// command and is left alone. Pending never consumes stdin, so such a
// loop still reads all of its input, and it never waits for longer than wait (with Unbounded,
// until the first byte that is not white space or end of file):
//
//   - a regular file is read with pread(2) from its current offset, which
//     does not move (at most MaxBytes are looked at);
//   - a pipe is looked at with tee(2), which copies what it holds without
//     taking it (Linux); where tee is missing (macOS) Pending can only ask
//     how many bytes are waiting (FIONREAD), and any byte counts;
//   - a socket is looked at with recv(2) and MSG_PEEK;
//   - for a pipe or socket it waits, with poll(2), for at most wait in
//     total for something to arrive: end of file, white space only, or
//     nothing within the bound answer false; 64 KiB of white space (more
//     than one look holds) answers true, so the reader decides;
//   - anything else (a terminal, /dev/null and other devices, a reader
//     that is not an *os.File) is not looked at: false.
//
// Errors count as "nothing there".
func Pending(r io.Reader, wait time.Duration) bool {
	return Look(r, wait) == Present
}

// Presence is what Look finds on stdin.
type Presence int

const (
	// Absent: no document (end of file, white space only, other text, or
	// a stdin that is not looked at).
	Absent Presence = iota
	// Present: the first byte that is not white space is "{".
	Present
	// Silent: a pipe or socket that neither sent a deciding byte nor
	// closed within the wait (never with Unbounded).
	Silent
)

// Look is Pending telling "nothing within the bound" (Silent) apart from
// "no document" (Absent): task-cleanup must not delete on a stdin that
// merely has not spoken yet (docs/design/decisions.md, "A socket stdin").
func Look(r io.Reader, wait time.Duration) Presence {
	f, mode, ok := lookable(r)
	switch {
	case !ok:
		return Absent
	case mode.IsRegular():
		if pendingFile(f) {
			return Present
		}
		return Absent
	case mode&os.ModeNamedPipe != 0:
		return pendingStream(int(f.Fd()), wait, peekPipe)
	default:
		return pendingStream(int(f.Fd()), wait, peekSocket)
	}
}

// Lookable reports whether Pending looks at r at all: an *os.File that is
// a regular file, a pipe or a socket. For anything else Pending answers
// false without knowing.
func Lookable(r io.Reader) bool {
	_, _, ok := lookable(r)
	return ok
}

func lookable(r io.Reader) (*os.File, os.FileMode, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false
	}
	mode := fi.Mode()
	return f, mode, mode.IsRegular() || mode&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// verdict is what the bytes looked at so far say.
type verdict int

const (
	undecided   verdict = iota // white space so far: more may follow
	document                   // the first other byte is "{"
	notDocument                // the first other byte is something else
)

// classify looks at p, the start of stdin: the first rune that is not
// white space decides. An incomplete UTF-8 sequence at the end leaves it
// undecided. blank is the length of the white space before it.
func classify(p []byte) (v verdict, blank int) {
	for blank < len(p) {
		r, size := utf8.DecodeRune(p[blank:])
		switch {
		case r == utf8.RuneError && size <= 1 && !utf8.FullRune(p[blank:]):
			return undecided, blank
		case unicode.IsSpace(r) || r == '\uFEFF':
			blank += size
		case r == '{':
			return document, blank
		default:
			return notDocument, blank
		}
	}
	return undecided, blank
}

// pendingFile looks at a regular file from its offset without moving it.
func pendingFile(f *os.File) bool {
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return false
	}
	chunk := make([]byte, 32<<10)
	var buf []byte
	for read := 0; read <= MaxBytes; {
		n, err := f.ReadAt(chunk, off+int64(len(buf)))
		read += n
		buf = append(buf, chunk[:n]...)
		v, blank := classify(buf)
		if v != undecided {
			return v == document
		}
		if err != nil || n == 0 {
			return false
		}
		// Drop the white space seen, keeping a cut rune.
		off += int64(blank)
		buf = append(buf[:0], buf[blank:]...)
	}
	return false
}

// peekFunc copies up to len(buf) bytes from the start of stream fd into
// buf without consuming them. n == 0 with a nil error is end of file;
// errUnknown says the content cannot be seen, only that bytes wait.
type peekFunc func(fd int, buf []byte) (n int, err error)

// errUnknown: bytes are waiting but cannot be looked at without taking them.
const errUnknown = unix.EOPNOTSUPP

// pendingStream waits, at most wait in total (no limit when wait is
// negative), for fd to hold a decision.
func pendingStream(fd int, wait time.Duration, peek peekFunc) Presence {
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(wait)
	seen := -1
	pause := time.Millisecond
	for {
		left, timeout := time.Duration(math.MaxInt64), -1 // poll(2): no limit
		if wait >= 0 {
			left = time.Until(deadline)
			if left <= 0 {
				return Silent
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		if seen >= 0 {
			// Only white space so far and the writer is still there: poll
			// would answer at once, so wait a little for more (1 ms, then
			// longer, up to 16 ms, for a writer that takes its time).
			time.Sleep(min(left, pause))
			pause = min(2*pause, 16*time.Millisecond)
		} else {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, timeout)
			if err == unix.EINTR {
				continue
			}
			if err == nil && n == 0 {
				return Silent // nothing within the bound
			}
			if err != nil || fds[0].Revents&(unix.POLLIN|unix.POLLHUP) == 0 {
				return Absent // POLLERR/POLLNVAL
			}
		}
		n, err := peek(fd, buf)
		switch {
		case err == errUnknown:
			return Present
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil || n == 0:
			return Absent // end of file: the writer closed stdin
		}
		if v, _ := classify(buf[:n]); v != undecided {
			return presence(v == document)
		}
		if n == len(buf) {
			// A full buffer of white space: what follows cannot be seen
			// without taking it, so the reader decides (it reads and
			// parses, which may find a document after the blanks).
			return Present
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, 0); err == nil && fds[0].Revents&unix.POLLHUP != 0 {
			// The writer is gone, but it may have written more between
			// the peek above and the poll: look once more at what it
			// left, which is all there will be.
			n, err := peek(fd, buf)
			if err == errUnknown {
				return Present
			}
			if err != nil || n == 0 {
				return Absent
			}
			v, _ := classify(buf[:n])
			return presence(v == document || (v == undecided && n == len(buf)))
		}
		seen = n
	}
}

// presence turns a yes/no answer into Present or Absent.
func presence(yes bool) Presence {
	if yes {
		return Present
	}
	return Absent
}

// peekSocket looks with MSG_PEEK.
func peekSocket(fd int, buf []byte) (int, error) {
	n, _, err := unix.Recvfrom(fd, buf, unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return n, err
}

// peekCount is the fallback for pipes that cannot be looked into: it
// answers errUnknown when bytes are waiting (FIONREAD), end of file when
// none are (the caller polled fd readable: the writer is gone).
func peekCount(fd int) (int, error) {
	n, err := unix.IoctlGetInt(fd, fionread)
	switch {
	case err != nil:
		return 0, err
	case n > 0:
		return 0, errUnknown
	}
	return 0, nil
}
