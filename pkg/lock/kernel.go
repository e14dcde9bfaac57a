package lock

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	errTimeout     = errors.New("kernel lock: timed out")
	errUnsupported = errors.New("kernel lock: unsupported on this filesystem")
	errNoExchange  = errors.New("atomic exchange of names: unsupported here")
)

// openDir opens dir (creating it when missing) as the descriptor a Lock
// keeps for its whole life: the kernel lock is taken on it, the store
// fstats it for the directory's mtime and fsyncs it once per transaction.
// It is a raw descriptor (no os.File): no poller registration, no fcntl.
func openDir(dir string) (int, error) {
	for try := 0; ; try++ {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			return fd, nil
		}
		if !errors.Is(err, unix.ENOENT) || try > 0 {
			return -1, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return -1, err
		}
	}
}

// kernelLock takes flock(LOCK_EX) on the open directory fd, waiting until
// deadline. A blocked flock cannot be cancelled, so the wait runs in a
// goroutine; when the caller gives up, that goroutine closes the
// descriptor (dropping the lock) as soon as it gets it, and abandoned
// tells the caller that the descriptor is no longer its own to close.
func kernelLock(fd int, deadline time.Time) (abandoned bool, err error) {
	err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	switch {
	case err == nil:
		return false, nil
	case unsupported(err):
		return false, errUnsupported
	case !errors.Is(err, unix.EWOULDBLOCK):
		return false, err
	}
	var (
		mu   sync.Mutex
		gone bool
	)
	done := make(chan error, 1)
	go func() {
		err := flockWait(fd)
		mu.Lock()
		defer mu.Unlock()
		if gone {
			unix.Close(fd)
			return
		}
		done <- err
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	wrap := func(err error) error {
		if err != nil && unsupported(err) {
			return errUnsupported
		}
		return err
	}
	select {
	case err := <-done:
		return false, wrap(err)
	case <-timer.C:
		mu.Lock()
		defer mu.Unlock()
		select {
		case err := <-done:
			return false, wrap(err)
		default:
			gone = true
			return true, errTimeout
		}
	}
}

// flockWait blocks in flock(LOCK_EX), retrying when a signal interrupts it.
func flockWait(fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func unsupported(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)
}
