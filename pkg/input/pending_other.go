//go:build !linux

package input

// fionread is FIONREAD on the BSDs and macOS, _IOR('f', 127, int): the
// bytes waiting in a pipe.
const fionread = 0x4004667f

// peekPipe: without tee(2) a pipe cannot be looked into without taking
// its data from its real reader, so any byte waiting counts (see Pending).
func peekPipe(fd int, buf []byte) (int, error) {
	return peekCount(fd)
}
