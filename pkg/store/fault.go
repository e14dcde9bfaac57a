//go:build matrixx_fault

package store

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// faultBuild: this build is for the fault tests (t/fault, -tags
// matrixx_fault); released binaries are built without it.
const faultBuild = true

// afterLockCheck runs right after each write's last lock ownership check
// and before its replace. With MATRIXX_FAULT_STOP_AFTER_LOCK_CHECK=1 the
// process stops itself (SIGSTOP) there, the moment a late write would come
// from, so t/fault can prove the fencing. The signal is sent to the calling
// thread (tgkill, with the goroutine locked to it), not to the process: a
// process-directed SIGSTOP may be taken by another thread, and the caller
// then keeps running until the group stop reaches it — on a loaded machine
// long enough to finish the very write the stop was meant to hold back.
func afterLockCheck() {
	if os.Getenv("MATRIXX_FAULT_STOP_AFTER_LOCK_CHECK") != "1" {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
}
