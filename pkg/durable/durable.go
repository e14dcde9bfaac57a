// Package durable writes files atomically and durably.
//
// WriteFile writes a temp file in the target's directory, fsyncs it, runs an
// optional last check, renames it over the target and fsyncs the directory,
// so a success answer means the new content survives a crash and readers
// only ever see the old or the new file whole. Temp names start with a dot
// and end in ".tmp-<random>", so they never match T-*.json or *.md globs.
package durable

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// TempInfix marks temp files: ".<base>.tmp-<random>".
const TempInfix = ".tmp-"

// Options tune WriteFile.
type Options struct {
	// Perm is the file mode of the new file; 0644 when zero.
	Perm fs.FileMode
	// BeforeRename runs after the temp file is synced and before it replaces
	// the target; an error aborts the write and leaves the target untouched.
	// The store uses it to re-check lock ownership.
	BeforeRename func() error
	// NoSync skips both fsyncs (for caches whose loss is harmless).
	NoSync bool
	// NoDirSync skips the directory fsync: the caller syncs the directory
	// once after a series of writes (SyncDir) before reporting success.
	NoDirSync bool
	// Expect, when set, makes the replace conditional (fencing): it
	// happens only if the target still holds Expect's content at that
	// moment, else WriteFile returns ErrChanged and the target keeps the
	// other writer's content (see replaceIf). The store passes what it
	// read under the lock, so a writer that lost the lock while paused
	// after its last ownership check cannot overwrite its successor.
	Expect *Expect
	// ModTime, when set, becomes the new file's modification time (set on
	// the temp file before it is synced and renamed): bookkeeping writes
	// such as lease renewals keep the record's old mtime (docs/claims.md).
	ModTime time.Time
	// Written, when set, is given the temp file's stat (fstat after its
	// content, mode and mtime are final; a rename keeps its inode, size,
	// mode and mtime) before BeforeRename runs: the integrity ledger
	// records it with the write's intent, so no stat is needed after the
	// rename.
	Written func(st *unix.Stat_t)
}

// WriteFile replaces path with data. On any error the target is unchanged
// and the temp file is removed.
//
// It works on raw descriptors (no os.File): a task write is a handful of
// system calls (open, write, fstat, fsync, close, rename) and an os.File
// would add its poller registration and fcntl calls to each.
func WriteFile(path string, data []byte, opt Options) (err error) {
	perm := opt.Perm
	if perm == 0 {
		perm = 0o644
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	fd, tmp, err := createTemp(dir, "."+base+TempInfix, uint32(perm.Perm()))
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			unix.Close(fd)
		}
		if err != nil {
			_ = unix.Unlink(tmp)
		}
	}()
	if err = WriteAll(fd, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, &os.PathError{Op: "write", Path: tmp, Err: err})
	}
	var st unix.Stat_t
	if err = fstat(fd, tmp, &st); err != nil {
		return err
	}
	// The file is created with perm; the umask may have taken bits away.
	if uint32(st.Mode)&0o7777 != uint32(perm.Perm()) {
		if err = unix.Fchmod(fd, uint32(perm.Perm())); err != nil {
			return &os.PathError{Op: "chmod", Path: tmp, Err: err}
		}
		st.Mode = st.Mode&^0o7777 | uint32ToMode(uint32(perm.Perm()))
	}
	if !opt.ModTime.IsZero() {
		ts := unix.NsecToTimespec(opt.ModTime.UnixNano())
		if err = unix.UtimesNanoAt(unix.AT_FDCWD, tmp, []unix.Timespec{ts, ts}, 0); err != nil {
			return &os.PathError{Op: "chtimes", Path: tmp, Err: err}
		}
		st.Mtim = ts
	}
	if !opt.NoSync {
		if err = unix.Fsync(fd); err != nil {
			return fmt.Errorf("syncing %s: %w", path, &os.PathError{Op: "sync", Path: tmp, Err: err})
		}
	}
	closed = true
	if err = unix.Close(fd); err != nil {
		return fmt.Errorf("closing %s: %w", path, &os.PathError{Op: "close", Path: tmp, Err: err})
	}
	if opt.Written != nil {
		opt.Written(&st)
	}
	if opt.BeforeRename != nil {
		if err = opt.BeforeRename(); err != nil {
			return err
		}
	}
	if opt.Expect != nil {
		err = replaceIf(tmp, path, data, opt.Expect)
	} else if err = unix.Rename(tmp, path); err != nil {
		err = &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	if err != nil {
		return err
	}
	if !opt.NoSync && !opt.NoDirSync {
		if err = SyncDir(dir); err != nil {
			return fmt.Errorf("syncing directory %s: %w", dir, err)
		}
	}
	return nil
}

// createTemp creates a new file prefix<random> in dir with mode perm
// (O_EXCL: never an existing file), as os.CreateTemp does.
func createTemp(dir, prefix string, perm uint32) (int, string, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		fd, err := unix.Open(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, perm)
		if err == nil {
			return fd, name, nil
		}
		if errors.Is(err, unix.EEXIST) && try < 10000 {
			continue
		}
		if errors.Is(err, unix.ENOENT) {
			return -1, "", &os.PathError{Op: "createtemp", Path: filepath.Join(dir, prefix+"*"), Err: os.ErrNotExist}
		}
		return -1, "", &os.PathError{Op: "createtemp", Path: filepath.Join(dir, prefix+"*"), Err: err}
	}
}

// WriteAll writes all of data to the raw descriptor fd, retrying on EINTR
// and after short writes; a write that makes no progress is
// io.ErrShortWrite.
func WriteAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		data = data[n:]
	}
	return nil
}

func fstat(fd int, name string, st *unix.Stat_t) error {
	if err := unix.Fstat(fd, st); err != nil {
		return &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	return nil
}

// SyncDir fsyncs a directory so renames and unlinks in it are durable.
func SyncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	return SyncFD(fd, dir)
}

// SyncFD fsyncs an open directory (a lock's descriptor, lock.Lock.FD):
// SyncDir without opening it again. A filesystem that cannot sync a
// directory (EINVAL) is no error.
func SyncFD(fd int, dir string) error {
	for {
		err := unix.Fsync(fd)
		switch {
		case err == nil, errors.Is(err, unix.EINVAL):
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		}
		return &os.PathError{Op: "sync", Path: dir, Err: err}
	}
}

// ReadFile reads a regular file whole through raw descriptors (one fstat
// sizes the buffer), as os.ReadFile does without its poller set-up.
func ReadFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrNotExist}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := fstat(fd, path, &st); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, max(st.Size, 0)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// IsTemp reports whether name (a base name) is a temp file of WriteFile or of
// the original implementation ("<name>.tmp.<ms>").
func IsTemp(name string) bool {
	if strings.HasPrefix(name, ".") && strings.Contains(name, TempInfix) {
		return true
	}
	i := strings.LastIndex(name, ".tmp.")
	if i <= 0 {
		return false
	}
	for _, r := range name[i+5:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return len(name) > i+5
}

// SweepTemps removes temp files in dir whose mtime is older than minAge and
// returns their names. Callers hold the directory's lock, so no live writer
// of ours owns them; minAge protects writers of other tools.
func SweepTemps(dir string, minAge time.Duration, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if e.IsDir() || !IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < minAge {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed, nil
}
