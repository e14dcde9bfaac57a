package input

import "golang.org/x/sys/unix"

// fionread is FIONREAD (TIOCINQ on Linux): the bytes waiting in a pipe.
const fionread = unix.TIOCINQ

// peekPipe copies the start of pipe fd into buf with tee(2), which leaves
// the data in fd for its real reader (see Pending). Where tee refuses the
// pipe it falls back to peekCount.
func peekPipe(fd int, buf []byte) (int, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return peekCount(fd)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	n, err := unix.Tee(fd, p[1], len(buf), unix.SPLICE_F_NONBLOCK)
	switch {
	case err == unix.EINVAL:
		return peekCount(fd)
	case err != nil:
		return 0, err
	case n == 0:
		return 0, nil
	}
	return unix.Read(p[0], buf[:n])
}
