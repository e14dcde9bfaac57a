package lock

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

var (
	errTimeout     = errors.New("kernel lock: timed out")
	errUnsupported = errors.New("kernel lock: unsupported on this filesystem")
	errNoExchange  = errors.New("atomic exchange of names: unsupported here")
)

// kernelLock takes flock(LOCK_EX) on the directory dir, waiting until
// deadline. A blocked flock cannot be cancelled, so the wait runs in a
// goroutine; when the caller gives up, that goroutine releases the lock as
// soon as it gets it.
func kernelLock(dir string, deadline time.Time) (*flock.Flock, error) {
	fl := flock.New(dir, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err != nil {
		if unsupported(err) {
			return nil, errUnsupported
		}
		return nil, err
	}
	if ok {
		return fl, nil
	}
	var (
		mu        sync.Mutex
		abandoned bool
	)
	done := make(chan error, 1)
	go func() {
		err := fl.Lock()
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			if err == nil {
				_ = fl.Unlock()
			}
			return
		}
		done <- err
	}()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			if unsupported(err) {
				return nil, errUnsupported
			}
			return nil, err
		}
		return fl, nil
	case <-timer.C:
		mu.Lock()
		defer mu.Unlock()
		select {
		case err := <-done:
			if err == nil {
				return fl, nil
			}
			return nil, err
		default:
			abandoned = true
			return nil, errTimeout
		}
	}
}

func unsupported(err error) bool {
	return errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS)
}
