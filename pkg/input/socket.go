package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Bounds on a socket stdin (docs/design/decisions.md, "A socket stdin"). Node- and
// bun-based hosts (Claude Code, OpenCode) hand their children sockets, not
// pipes, and Claude Code hands a Bash command whose text holds "<" a
// socket that never sends a byte and never closes. A socket is therefore
// never waited on without bound: these are the waits. A pipe keeps the
// Unix rule (it is read until its writer closes it: a producer may be
// slow, and a shell pipeline always ends).
const (
	// OptionalWait: how long task-list and task-cleanup without flags wait
	// for a socket to start a document (its first non-blank byte) before
	// they give up on it: 250 ms.
	OptionalWait = 250 * time.Millisecond
	// RequiredWait: how long a binary whose stdin is its input waits for a
	// socket to send its first byte, and, once it has started, the longest
	// silence it waits through before it takes what it has as the whole
	// document: 3 s.
	RequiredWait = 3 * time.Second
)

// ErrSilent is returned by a SilenceReader whose socket sent nothing and
// did not close within its wait.
var ErrSilent = errors.New("stdin sent nothing and did not close")

// IsSocket reports whether r is an *os.File open on a socket.
func IsSocket(r io.Reader) bool {
	f, mode, ok := lookable(r)
	return ok && f != nil && mode&os.ModeSocket != 0
}

// SilenceReader returns a reader of r whose every Read waits at most wait
// for the socket to send something (or close): past it, Read returns
// ErrSilent. r that is not a socket is returned as it is.
func SilenceReader(r io.Reader, wait time.Duration) io.Reader {
	if !IsSocket(r) {
		return r
	}
	return &silenceReader{fd: int(r.(*os.File).Fd()), wait: wait}
}

type silenceReader struct {
	fd   int
	wait time.Duration
	err  error
}

func (s *silenceReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	deadline := time.Now().Add(s.wait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			s.err = ErrSilent
			return 0, s.err
		}
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int((left+time.Millisecond-1)/time.Millisecond))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			s.err = err
			return 0, err
		case n == 0:
			continue // the deadline check above ends it
		}
		m, err := unix.Read(s.fd, p)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			s.err = err
			return 0, err
		case m == 0:
			s.err = io.EOF
			return 0, io.EOF
		}
		return m, nil
	}
}

// ReadSocket is Read for a socket stdin: it reads at most limit bytes
// (MaxBytes when limit <= 0) until the writer closes, waiting at most
// wait for each piece (RequiredWait is the rule). silent reports that the
// socket went quiet without closing: data is then what came before the
// silence, and empty (with data "{}") says nothing but white space came.
//
// Errors: input_too_large past the cap, internal_error when reading fails.
func ReadSocket(r io.Reader, limit int64, wait time.Duration) (data []byte, empty, silent bool, err error) {
	if limit <= 0 {
		limit = MaxBytes
	}
	data, err = io.ReadAll(io.LimitReader(SilenceReader(r, wait), limit+1))
	if errors.Is(err, ErrSilent) {
		silent, err = true, nil
	}
	if err != nil {
		return nil, false, false, errcode.Wrap(errcode.InternalError, err, "reading stdin")
	}
	if int64(len(data)) > limit {
		return nil, false, false, errcode.New(errcode.InputTooLarge, "input is larger than the %d-byte cap", limit)
	}
	data = bytes.TrimPrefix(data, bom)
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}"), true, silent, nil
	}
	return data, false, silent, nil
}

// Seconds renders a wait for messages: "3s", "250ms".
func Seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}
