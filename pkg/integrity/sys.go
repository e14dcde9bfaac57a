package integrity

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

func ioLimit(r io.Reader, n int64) io.Reader { return io.LimitReader(r, n) }

// lstat returns the stat tuple of path without following a link.
func lstat(path string) (Stat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return Stat{}, err
	}
	return statOf(&st), nil
}

// lstatAt is lstat relative to an open directory.
func lstatAt(dirfd int, name string) (Stat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Stat{}, &os.PathError{Op: "lstat", Path: name, Err: err}
	}
	return statOf(&st), nil
}

func statOf(st *unix.Stat_t) Stat {
	return Stat{
		Size:  st.Size,
		Mode:  st.Mode,
		Mtime: st.Mtim.Nano(),
		Ctime: st.Ctim.Nano(),
		Ino:   st.Ino,
		Nlink: uint64(st.Nlink),
	}
}

// regular reports whether the tuple is a regular file.
func (s Stat) regular() bool { return s.Mode&unix.S_IFMT == unix.S_IFREG }

// perm is the permission part of the mode.
func (s Stat) perm() os.FileMode { return os.FileMode(s.Mode & 0o7777) }

// coarseNow is the clock the kernel stamps ctimes with (ns), and the
// length of its tick.
func coarseNow() (now, tick int64) {
	var ts, res unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		_ = unix.ClockGettime(unix.CLOCK_REALTIME, &ts)
	}
	tick = 10_000_000
	if unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &res) == nil && res.Nano() > 0 {
		tick = res.Nano()
	}
	return ts.Nano(), tick
}

// setMtime sets a file's modification time (and atime to the same), not
// following a link.
func setMtime(path string, ns int64) error {
	ts := []unix.Timespec{unix.NsecToTimespec(ns), unix.NsecToTimespec(ns)}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW)
}
