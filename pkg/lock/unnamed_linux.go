package lock

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// createUnnamed is create through O_TMPFILE and a link of
// /proc/self/fd/N; ok is false when that is not possible here (the caller
// falls back to a named temp file).
func (l *Lock) createUnnamed(path string, data []byte) (err error, ok bool) {
	fd, err := unix.Open(l.dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	if err := durable.WriteAll(fd, data); err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}, true
	}
	switch err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW); {
	case err == nil:
		return nil, true
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "link", Old: "(unnamed)", New: path, Err: os.ErrExist}, true
	default:
		return nil, false
	}
}
