//go:build linux

package fault

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/google/uuid"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// paused is a task-update stopped with SIGSTOP right after it took the
// lock (it printed its MATRIXX_DEBUG lock line), before its write.
type paused struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
}

// pauseHolder starts task-update with env and stops it as soon as it
// reports holding the lock. The record it updates is large (see
// bigRecord), so reading, re-encoding and syncing it keeps the process
// busy for tens of milliseconds after that line: the stop lands before
// its ownership check. It returns nil when the process finished first.
func pauseHolder(t *testing.T, p *project, env []string, doc string) *paused {
	t.Helper()
	h := &paused{cmd: p.cmd("task-update", append(env, "MATRIXX_DEBUG=1")), done: make(chan struct{})}
	h.cmd.Stdin = strings.NewReader(doc)
	h.cmd.Stdout = &h.stdout
	pipe, err := h.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.reap(t)
	rd := bufio.NewReader(pipe)
	for {
		line, err := rd.ReadString('\n')
		h.stderr.WriteString(line)
		if strings.Contains(line, ": debug: lock") {
			_ = syscall.Kill(h.cmd.Process.Pid, syscall.SIGSTOP)
			break
		}
		if err != nil {
			_ = h.cmd.Wait()
			t.Fatalf("holder ended before taking the lock: %s", h.stderr.String())
		}
	}
	go func() {
		_, _ = io.Copy(&h.stderr, rd)
		close(h.done)
	}()
	waitStopped(t, h.cmd.Process.Pid)
	return h
}

// reap kills the holder when the test ends before resuming it (a failed
// check), so no stopped process outlives the test.
func (h *paused) reap(t *testing.T) {
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			_ = h.cmd.Wait()
		}
	})
}

// resume sends SIGCONT and waits for the holder to exit.
func (h *paused) resume(t *testing.T) result {
	t.Helper()
	_ = syscall.Kill(h.cmd.Process.Pid, syscall.SIGCONT)
	<-h.done
	err := h.cmd.Wait()
	r := result{stdout: h.stdout.Bytes(), stderr: h.stderr.Bytes()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// stoppedBeforeCheck reports whether the holder, now stopped, has not yet
// reached its ownership check for record id: it has written no temp file
// yet, or it still holds its temp file open (the check comes after the
// temp file is synced and closed). When the stop came later, the attempt
// proves nothing and is retried.
func (h *paused) stoppedBeforeCheck(t *testing.T, dir, id string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var temps []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "."+task.FileName(id)+".tmp-") {
			temps = append(temps, filepath.Join(dir, e.Name()))
		}
	}
	if len(temps) == 0 {
		data, err := os.ReadFile(filepath.Join(dir, task.FileName(id)))
		return err == nil && !bytes.Contains(data, []byte(`"holder"`))
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", h.cmd.Process.Pid))
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", h.cmd.Process.Pid, fd.Name()))
		if err == nil && slices.Contains(temps, target) {
			return true
		}
	}
	return false
}

// attempts runs try until it reports a conclusive attempt (at most 5).
func attempts(t *testing.T, try func(t *testing.T) bool) {
	t.Helper()
	for i := range 5 {
		if try(t) {
			return
		}
		t.Logf("attempt %d: the holder was stopped past its ownership check; retrying", i+1)
	}
	t.Fatal("could not stop the holder before its ownership check in 5 attempts")
}

// waitStopped polls /proc until pid is in the stopped state. The stop is
// certain to come (the process stops itself, or is sent SIGSTOP), so the
// wait is bounded only by stopTimeout, far past what a loaded machine
// takes to start a process; a process that exits instead fails the test.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(stopTimeout)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) S ...: the state follows the last ')'.
		f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(f) > 0 && f[0] == "T" {
			return
		}
		if len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			t.Fatalf("pid %d exited before it stopped", pid)
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("pid %d did not stop within %v", pid, stopTimeout)
}

// stopTimeout bounds waitStopped: it catches a process that never gets
// to its stop, not a slow one.
const stopTimeout = 2 * time.Minute

// bigRecord writes a task whose description is 8 MiB straight into the
// store (past the 4 MiB input cap, below the 16 MiB record cap).
func bigRecord(t *testing.T, p *project) string {
	t.Helper()
	id, err := task.NewID()
	if err != nil {
		t.Fatal(err)
	}
	rec := &task.Task{ID: id, Subject: "Big", Description: strings.Repeat("0123456789abcdef", 512<<10),
		Status: task.Pending, ThreadID: "no-session", ProjectRoot: p.root}
	data, err := task.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p.dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir(), task.FileName(id)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return id
}

// ageLock rewrites .lock with the same holder id but a timestamp and mtime
// a minute in the past: to everyone else it now looks stale (spec §5.3),
// while to its holder it is still its own.
func ageLock(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, ".lock")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the paused holder has no .lock: %v", err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf(".lock %s: %v", data, err)
	}
	old := time.Now().Add(-time.Minute)
	rec["timestamp"] = old.UnixMilli()
	data, err = json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	id, _ := rec["id"].(string)
	return id
}

func metadataKeys(rec *task.Task) []string {
	var keys []string
	for k := range rec.Metadata {
		keys = append(keys, k)
	}
	return keys
}

// TestPausedHolderLosesLock: a holder using the plain .lock protocol
// (MATRIXX_NO_FLOCK=1, as on filesystems without flock) is paused with
// SIGSTOP right after taking the lock; its lock is made to look older than
// 30 s; a second process evicts it and completes an update. Resumed with
// SIGCONT, the first holder must notice at its ownership check before the
// rename that it lost the lock: it answers task_lock_unavailable, writes
// nothing, leaves no temp file, and does not remove the .lock of anyone
// else. Holder and taker run with and without flock.
func TestPausedHolderLosesLock(t *testing.T) {
	plain := []string{"MATRIXX_NO_FLOCK=1"}
	for _, c := range []struct {
		name          string
		holder, taker []string
	}{
		{"plain holder, plain taker", plain, plain},
		{"plain holder, flock taker", plain, nil},
		// A flock holder's .lock is evicted by a process that cannot use
		// flock (another host, or the original implementation) once it
		// looks stale; the holder must still notice.
		{"flock holder, plain taker", nil, plain},
	} {
		t.Run(c.name, func(t *testing.T) {
			attempts(t, func(t *testing.T) bool {
				p := newProject(t, filepath.Join(t.TempDir(), "proj"))
				id := bigRecord(t, p)
				h := pauseHolder(t, p, c.holder, fmt.Sprintf(`{"id":%q,"metadata":{"holder":true}}`, id))
				if !h.stoppedBeforeCheck(t, p.dir(), id) {
					h.resume(t)
					return false
				}
				holderLock := ageLock(t, p.dir())

				r := p.call("task-update", fmt.Sprintf(`{"id":%q,"metadata":{"taker":true}}`, id), c.taker)
				if r.code != 0 {
					t.Fatalf("taker could not evict the stale lock: %s", r)
				}
				got := h.resume(t)
				if got.code != 1 || got.errorCode() != "task_lock_unavailable" {
					t.Fatalf("resumed holder: want exit 1 task_lock_unavailable, got %s", got)
				}
				st := validateStore(t, p.dir())
				md := st.records[id].Metadata
				if _, ok := md["taker"]; !ok {
					t.Errorf("the taker's update was overwritten: metadata keys %v", metadataKeys(st.records[id]))
				}
				if _, ok := md["holder"]; ok {
					t.Errorf("the holder wrote after losing its lock %s", holderLock)
				}
				if len(st.temps) > 0 {
					t.Errorf("temp files left: %v", st.temps)
				}
				if st.lock {
					t.Error(".lock left behind")
				}
				return true
			})
		})
	}
}

// TestPausedHolderForeignLock: while a plain-protocol holder is paused,
// its stale-looking lock is replaced by one of the original implementation
// ({"id","timestamp"} only). Resumed, the holder must refuse to write and
// must leave that lock in place.
func TestPausedHolderForeignLock(t *testing.T) {
	attempts(t, func(t *testing.T) bool {
		p := newProject(t, filepath.Join(t.TempDir(), "proj"))
		id := bigRecord(t, p)
		before, err := os.ReadFile(filepath.Join(p.dir(), task.FileName(id)))
		if err != nil {
			t.Fatal(err)
		}
		h := pauseHolder(t, p, []string{"MATRIXX_NO_FLOCK=1"}, fmt.Sprintf(`{"id":%q,"metadata":{"holder":true}}`, id))
		if !h.stoppedBeforeCheck(t, p.dir(), id) {
			h.resume(t)
			return false
		}
		foreign := fmt.Sprintf(`{"id":%q,"timestamp":%d}`, uuid.NewString(), time.Now().UnixMilli())
		tmp := filepath.Join(p.dir(), ".foreign-lock")
		if err := os.WriteFile(tmp, []byte(foreign), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(p.dir(), ".lock")); err != nil {
			t.Fatal(err)
		}
		got := h.resume(t)
		if got.code != 1 || got.errorCode() != "task_lock_unavailable" {
			t.Fatalf("resumed holder: want exit 1 task_lock_unavailable, got %s", got)
		}
		after, err := os.ReadFile(filepath.Join(p.dir(), task.FileName(id)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Error("the record changed although the holder had lost the lock")
		}
		lock, err := os.ReadFile(filepath.Join(p.dir(), ".lock"))
		if err != nil || string(lock) != foreign {
			t.Errorf("the foreign .lock was not left as it was: %q, %v", lock, err)
		}
		return true
	})
}

// TestPausedFlockHolderKeepsLock: a paused holder of ours holds the kernel
// lock, which never goes stale: even with its .lock aged past 30 s another
// process of ours queues on flock and answers task_lock_unavailable when
// its budget ends, writing nothing; resumed, the holder completes.
func TestPausedFlockHolderKeepsLock(t *testing.T) {
	attempts(t, func(t *testing.T) bool {
		p := newProject(t, filepath.Join(t.TempDir(), "proj"))
		id := bigRecord(t, p)
		h := pauseHolder(t, p, nil, fmt.Sprintf(`{"id":%q,"metadata":{"holder":true}}`, id))
		if !h.stoppedBeforeCheck(t, p.dir(), id) {
			h.resume(t)
			return false
		}
		ageLock(t, p.dir())
		r := p.call("task-update", fmt.Sprintf(`{"id":%q,"metadata":{"waiter":true}}`, id), []string{"MATRIXX_LOCK_TIMEOUT_MS=1000"})
		if r.code != 1 || r.errorCode() != "task_lock_unavailable" {
			t.Fatalf("waiter: want exit 1 task_lock_unavailable, got %s", r)
		}
		got := h.resume(t)
		if got.code != 0 {
			t.Fatalf("resumed holder failed: %s", got)
		}
		st := validateStore(t, p.dir())
		md := st.records[id].Metadata
		if _, ok := md["holder"]; !ok {
			t.Error("the holder's update is missing")
		}
		if _, ok := md["waiter"]; ok {
			t.Error("the waiter wrote without the lock")
		}
		if st.lock {
			t.Error(".lock left behind")
		}
		return true
	})
}

// stopAfterCheck starts task-update, built with -tags matrixx_fault, with
// MATRIXX_FAULT_STOP_AFTER_LOCK_CHECK set: it stops itself between its
// write's last lock ownership check and the replace (the moment a late
// write comes from). It returns once the process is stopped there.
func stopAfterCheck(t *testing.T, p *project, env []string, doc string) *paused {
	t.Helper()
	if !faultTag {
		t.Skip("needs go test -tags matrixx_fault (make test gives it): released builds cannot stop after the lock check")
	}
	h := &paused{cmd: p.cmd("task-update", append(env, "MATRIXX_FAULT_STOP_AFTER_LOCK_CHECK=1")), done: make(chan struct{})}
	h.cmd.Stdin = strings.NewReader(doc)
	h.cmd.Stdout = &h.stdout
	h.cmd.Stderr = &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.reap(t)
	close(h.done)
	waitStopped(t, h.cmd.Process.Pid)
	return h
}

// TestPausedAfterCheckLateWrite: the fencing of a write. A holder stopped
// between its last ownership check and its replace (so the check passed)
// has its .lock aged past 30 s; a second process evicts it and completes an
// acknowledged update. Resumed, the first holder's replace must not
// overwrite that update: the replace is conditional on the file still
// holding what the holder read under the lock, so it answers
// task_lock_unavailable, and the taker's write stands. Holder and taker
// without flock (MATRIXX_NO_FLOCK, as on network filesystems) and a flock
// holder evicted by a process that does not use flock (another
// implementation).
func TestPausedAfterCheckLateWrite(t *testing.T) {
	plain := []string{"MATRIXX_NO_FLOCK=1"}
	for _, c := range []struct {
		name          string
		holder, taker []string
	}{
		{"plain holder, plain taker", plain, plain},
		{"plain holder, flock taker", plain, nil},
		{"flock holder, plain taker", nil, plain},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range scale() {
				p := newProject(t, filepath.Join(t.TempDir(), "proj"))
				id := p.create(`{"subject":"Fenced"}`)
				h := stopAfterCheck(t, p, c.holder, fmt.Sprintf(`{"id":%q,"metadata":{"holder":true}}`, id))
				// The stop must come before the replace, or the run proves
				// nothing: the record is still the one the holder read.
				if data, err := os.ReadFile(filepath.Join(p.dir(), task.FileName(id))); err != nil || bytes.Contains(data, []byte(`"holder"`)) {
					t.Fatalf("the holder was not stopped before its replace (err %v): %s", err, data)
				}
				ageLock(t, p.dir())
				r := p.call("task-update", fmt.Sprintf(`{"id":%q,"metadata":{"taker":true}}`, id), c.taker)
				if r.code != 0 {
					t.Fatalf("taker could not evict the stale lock: %s", r)
				}
				got := h.resume(t)
				if got.code != 1 || got.errorCode() != "task_lock_unavailable" {
					t.Fatalf("resumed holder: want exit 1 task_lock_unavailable, got %s", got)
				}
				st := validateStore(t, p.dir())
				md := st.records[id].Metadata
				if _, ok := md["taker"]; !ok {
					t.Errorf("the taker's acknowledged update was overwritten: metadata keys %v", metadataKeys(st.records[id]))
				}
				if _, ok := md["holder"]; ok {
					t.Error("the late write of the evicted holder landed")
				}
				if len(st.temps) > 0 {
					t.Errorf("temp files left: %v", st.temps)
				}
			}
		})
	}
}
