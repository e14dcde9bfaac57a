//go:build linux

package fault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// oddLocks make a .lock that is not a regular file.
var oddLocks = []struct {
	name string
	make func(t *testing.T, path string)
}{
	{"dangling symlink", func(t *testing.T, path string) {
		if err := os.Symlink(filepath.Join(filepath.Dir(path), "nowhere"), path); err != nil {
			t.Fatal(err)
		}
	}},
	{"symlink to a file outside", func(t *testing.T, path string) {
		out := filepath.Join(t.TempDir(), "outside")
		if err := os.WriteFile(out, []byte(`{"id":"x","timestamp":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(out, path); err != nil {
			t.Fatal(err)
		}
	}},
	{"FIFO", func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"empty directory", func(t *testing.T, path string) {
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}},
}

// age sets path's own mtime (not a link's target) a minute back.
func age(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
}

// TestOddLockFresh: a .lock that is a symlink (dangling or not), a FIFO or
// a directory, made just now, makes task-update, task-create and plan
// create wait out their budget (1 s here) and then answer
// task_lock_unavailable naming what they found; never a hang, never a
// spin, never a write. Both with flock and with MATRIXX_NO_FLOCK.
func TestOddLockFresh(t *testing.T) {
	for _, odd := range oddLocks {
		for _, mode := range []struct {
			name string
			env  []string
		}{{"flock", nil}, {"no flock", []string{"MATRIXX_NO_FLOCK=1"}}} {
			t.Run(odd.name+"/"+mode.name, func(t *testing.T) {
				p := newProject(t, filepath.Join(t.TempDir(), "proj"))
				id := p.create(`{"subject":"Odd lock"}`)
				odd.make(t, filepath.Join(p.dir(), ".lock"))
				env := append([]string{"MATRIXX_LOCK_TIMEOUT_MS=1000"}, mode.env...)
				var cpu0 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &cpu0)
				start := time.Now()
				r := p.call("task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress"}`, id), env)
				took := time.Since(start)
				var cpu1 syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &cpu1)
				if r.code != 1 || r.errorCode() != "task_lock_unavailable" {
					t.Fatalf("task-update: want task_lock_unavailable, got %s", r)
				}
				if !strings.Contains(string(r.stdout), "not a lock file") {
					t.Errorf("the error does not say what .lock is: %s", r.stdout)
				}
				if took > 5*time.Second {
					t.Errorf("task-update took %v with a 1 s budget", took)
				}
				// A spin would burn about the whole second of CPU.
				cpu := time.Duration(cpu1.Utime.Nano()+cpu1.Stime.Nano()-cpu0.Utime.Nano()-cpu0.Stime.Nano()) * time.Nanosecond
				if cpu > 500*time.Millisecond {
					t.Errorf("task-update used %v of CPU waiting 1 s for the lock (a spin)", cpu)
				}
				if got := p.get(id); got.Status != "pending" {
					t.Errorf("the task changed without the lock: %s", got.Status)
				}
				r = p.call("task-create", `{"subject":"Another"}`, env)
				if r.code != 1 || r.errorCode() != "task_lock_unavailable" {
					t.Errorf("task-create: want task_lock_unavailable, got %s", r)
				}
				plans := filepath.Join(p.root, ".matrixx", "plans")
				if err := os.MkdirAll(plans, 0o755); err != nil {
					t.Fatal(err)
				}
				odd.make(t, filepath.Join(plans, ".lock"))
				r = p.call("plan", "# Plan\n\n1. One\n", env, "create", "odd-lock")
				if r.code != 1 || r.errorCode() != "task_lock_unavailable" {
					t.Errorf("plan create: want task_lock_unavailable, got %s", r)
				}
			})
		}
	}
}

// TestOddLockStale: the same odd .lock older than the 30 s stale age is
// recovered: moved away and removed, and the write goes through.
func TestOddLockStale(t *testing.T) {
	for _, odd := range oddLocks {
		for _, mode := range []struct {
			name string
			env  []string
		}{{"flock", nil}, {"no flock", []string{"MATRIXX_NO_FLOCK=1"}}} {
			t.Run(odd.name+"/"+mode.name, func(t *testing.T) {
				p := newProject(t, filepath.Join(t.TempDir(), "proj"))
				id := p.create(`{"subject":"Odd lock"}`)
				lock := filepath.Join(p.dir(), ".lock")
				odd.make(t, lock)
				age(t, lock)
				r := p.call("task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress"}`, id), append([]string{"MATRIXX_LOCK_TIMEOUT_MS=2000"}, mode.env...))
				if r.code != 0 {
					t.Fatalf("task-update over a stale odd .lock: %s", r)
				}
				if got := p.get(id); got.Status != "in_progress" {
					t.Errorf("status %s after the update", got.Status)
				}
				st := validateStore(t, p.dir())
				if st.lock || len(st.temps) > 0 {
					t.Errorf(".lock left: %v, temps left: %v", st.lock, st.temps)
				}
			})
		}
	}
}

// TestOddLockFullDirectory: a directory named .lock that holds files is
// never removed, however old: writes end within their budget saying to
// move it away, and its files are kept.
func TestOddLockFullDirectory(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	id := p.create(`{"subject":"Odd lock"}`)
	lock := filepath.Join(p.dir(), ".lock")
	if err := os.MkdirAll(lock, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lock, "keep"), []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	age(t, lock)
	start := time.Now()
	r := p.call("task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress"}`, id), []string{"MATRIXX_LOCK_TIMEOUT_MS=1000"})
	if r.code != 1 || r.errorCode() != "task_lock_unavailable" || !strings.Contains(string(r.stdout), "move it away") {
		t.Fatalf("want task_lock_unavailable saying to move it away, got %s", r)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v with a 1 s budget", took)
	}
	if data, err := os.ReadFile(filepath.Join(lock, "keep")); err != nil || string(data) != "precious" {
		t.Errorf("the directory's file was not kept: %q %v", data, err)
	}
}
