package durable

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errUnsupported = errors.New("not supported here")

// exchange swaps the names a and b atomically (renameat2 RENAME_EXCHANGE).
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	return mapErr(err)
}

// renameNoReplace renames a to b unless b exists (RENAME_NOREPLACE).
func renameNoReplace(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_NOREPLACE)
	return mapErr(err)
}

func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EOPNOTSUPP):
		return errUnsupported
	case errors.Is(err, unix.ENOENT):
		return os.ErrNotExist
	case errors.Is(err, unix.EEXIST):
		return os.ErrExist
	}
	return err
}

func uint32ToMode(m uint32) uint32 { return m }
