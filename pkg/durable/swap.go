package durable

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// ErrChanged is returned by WriteFile with Options.Expect when the target
// no longer holds the expected content at the moment of the replace: a
// late write (its writer lost the lock while it was paused, and another
// writer's acknowledged write came in between). Nothing was written; the
// other write stands.
var ErrChanged = errors.New("the file changed since it was read")

// Expect is the content a target must still hold for WriteFile to replace
// it: Data, or no file at all when Absent.
type Expect struct {
	Data   []byte
	Absent bool
}

// replaceIf moves tmp (holding data) to path only if path still holds
// e's content, else returns ErrChanged and leaves path as it was.
//
// Where names can be exchanged atomically (Linux renameat2), the new file
// is swapped in and what came out is compared with e.Data: if it differs,
// the two are swapped straight back, so the other writer's content is at
// path again after microseconds, and if a third write landed in between
// (what comes back is not ours) that one is put in place instead. An absent
// target is created with RENAME_NOREPLACE (or a hard link), which never
// overwrites. Elsewhere the content is compared right before a plain
// rename, which narrows the window without closing it.
func replaceIf(tmp, path string, data []byte, e *Expect) error {
	if e.Absent {
		switch err := renameNoReplace(tmp, path); {
		case err == nil:
			return nil
		case errors.Is(err, os.ErrExist):
			return ErrChanged
		case !errors.Is(err, errUnsupported):
			return err
		}
		if err := os.Link(tmp, path); err != nil {
			if errors.Is(err, os.ErrExist) {
				return ErrChanged
			}
			return err
		}
		return os.Remove(tmp)
	}
	switch err := exchange(tmp, path); {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		return ErrChanged // removed behind us: a write would resurrect it
	case errors.Is(err, errUnsupported):
		if old, rerr := ReadFile(path); rerr != nil || !bytes.Equal(old, e.Data) {
			return ErrChanged
		}
		return os.Rename(tmp, path)
	default:
		return err
	}
	old, err := ReadFile(tmp)
	if err == nil && bytes.Equal(old, e.Data) {
		return unlink(tmp)
	}
	// Late: put the other writer's file back.
	if err := exchange(tmp, path); err == nil {
		if back, rerr := ReadFile(tmp); rerr == nil && !bytes.Equal(back, data) {
			// A third write replaced ours in between; it is the newest:
			// put it in place.
			_ = exchange(tmp, path)
		}
	}
	_ = os.Remove(tmp)
	return ErrChanged
}

// RemoveIf removes path only if its content still says it should go: the file is first moved to a temp name (atomically, so no
// writer can change it any more), judged by still(data), and removed when
// still says true; otherwise it is moved back (never over a file that took
// its place) and ErrChanged is returned. A missing file is no error.
func RemoveIf(path string, still func(data []byte) bool) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	claim := filepath.Join(dir, "."+base+TempInfix+"remove-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	if err := os.Rename(path, claim); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	data, err := os.ReadFile(claim)
	if err == nil && still(data) {
		return os.Remove(claim)
	}
	if err := renameNoReplace(claim, path); errors.Is(err, errUnsupported) {
		if lerr := os.Link(claim, path); lerr == nil {
			_ = os.Remove(claim)
		}
	}
	return ErrChanged
}

func unlink(path string) error {
	if err := unix.Unlink(path); err != nil {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}
