// Package safefile reads and places the toolkit's own files without being
// led astray by what else may sit in their place: a file far larger than
// any the toolkit writes (a sparse giant), a FIFO that would block a read
// for ever, a directory, or a symbolic link that points out of .matrixx.
//
// ReadFile checks the size before it reads anything (fstat on the open
// descriptor), so a 2 GB sparse file costs one stat, not 2 GB of memory.
// MkdirNoLinks creates or checks a directory below a base without following
// links, so a link planted at .matrixx/notepads/<bucket> or
// .matrixx/state/<x> never makes a writer create files outside .matrixx.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrTooLarge is returned (wrapped) by ReadFile for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is returned (wrapped) by ReadFile for a FIFO, socket,
// device or directory.
var ErrNotRegular = errors.New("not a regular file")

// ErrLink is returned (wrapped) when a path names a symbolic link where
// none is followed.
var ErrLink = errors.New("is a symbolic link")

// ReadFile reads path whole, refusing (before reading) a file larger than
// max bytes (ErrTooLarge), anything but a regular file (ErrNotRegular) and,
// unless follow is set, a symbolic link (ErrLink). The open never blocks
// (O_NONBLOCK), so a FIFO is refused at once. A missing file gives an
// error satisfying errors.Is(err, os.ErrNotExist). A file that grows past
// max while it is read is refused too.
func ReadFile(path string, max int64, follow bool) ([]byte, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrNotExist}
		case errors.Is(err, unix.ELOOP) && !follow:
			return nil, fmt.Errorf("%s %w (not followed)", path, ErrLink)
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%s is %s, %w", path, kind(uint32(st.Mode)), ErrNotRegular)
	}
	if st.Size > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte cap: %w", path, st.Size, max, ErrTooLarge)
	}
	// One allocation of the size fstat gave (io.ReadAll would grow a
	// buffer from 512 bytes: twice the memory and many copies for a
	// large file such as the list index).
	var buf bytes.Buffer
	buf.Grow(int(st.Size) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past the %d-byte cap while it was read: %w", path, max, ErrTooLarge)
	}
	return data, nil
}

func kind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}

// MkdirNoLinks makes dir, which must be base or below it, a real
// directory: each component below base that exists must be a directory and
// not a symbolic link (else an error wrapping ErrLink or ErrNotRegular);
// missing ones are created (mode 0755). base itself is taken as it is
// (it may be a link the user made). The check and the creation use
// directory descriptors (openat with O_NOFOLLOW), so a link swapped in
// between two components is refused, not followed.
func MkdirNoLinks(base, dir string) error {
	base, dir = filepath.Clean(base), filepath.Clean(dir)
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not inside %s", dir, base)
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: base, Err: err}
	}
	at := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		if err := unix.Mkdirat(fd, part, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(fd)
			return &os.PathError{Op: "mkdir", Path: at, Err: err}
		}
		next, err := unix.Openat(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			var st unix.Stat_t
			if unix.Lstat(at, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return fmt.Errorf("%s %w; the toolkit never writes through links under .matrixx: remove the link", at, ErrLink)
			}
			if errors.Is(err, unix.ENOTDIR) {
				return fmt.Errorf("%s is not a directory: %w", at, ErrNotRegular)
			}
			return &os.PathError{Op: "open", Path: at, Err: err}
		}
		fd = next
	}
	unix.Close(fd)
	return nil
}
