//go:build linux

package feed

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestNotifySweepsNamedFiles: with the kernel's reports, a step long
// before the next full sweep sees a created, changed and removed file
// (only the files named are looked at), and a change the notifier did not
// name waits for the full sweep.
func TestNotifySweepsNamedFiles(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	// Each record is written beside the store and renamed in: one report
	// per write, as a toolkit write makes it.
	write := func(tk *task.Task) {
		b, err := task.Encode(tk)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, task.FileName(tk.ID))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p, filepath.Join(dir, task.FileName(tk.ID))); err != nil {
			t.Fatal(err)
		}
	}
	a := rec("T-01a00000-0000-7000-8000-000000000001", "a", task.Pending)
	write(a)
	w := &Watcher{Dir: dir}
	wake := w.Notify()
	if wake == nil {
		t.Skip("no inotify here")
	}
	defer w.Close()
	start := time.Now()
	if _, err := w.Sweep(start); err != nil {
		t.Fatal(err)
	}
	wait := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !w.n.pending(); {
			select {
			case <-wake:
			case <-time.After(time.Until(deadline)):
				t.Fatalf("no report of %s", what)
			}
		}
	}
	step := func() []Change {
		t.Helper()
		at := start.Add(time.Millisecond) // long before the next full sweep
		if !w.Due(at) {
			t.Fatal("a reported change is not due")
		}
		chs, err := w.Sweep(at)
		if err != nil {
			t.Fatal(err)
		}
		return chs
	}
	b := rec("T-01a00000-0000-7000-8000-000000000002", "b", task.Pending)
	write(b)
	wait("a create")
	if chs := step(); len(chs) != 1 || chs[0].Old != nil || chs[0].New.ID != b.ID {
		t.Fatalf("create: %+v", chs)
	}
	write(rec(a.ID, "a renamed", task.Pending))
	wait("a rename")
	if chs := step(); len(chs) != 1 || chs[0].New.Subject != "a renamed" {
		t.Fatalf("update: %+v", chs)
	}
	if err := os.Remove(filepath.Join(dir, task.FileName(b.ID))); err != nil {
		t.Fatal(err)
	}
	wait("a removal")
	if chs := step(); len(chs) != 1 || chs[0].New != nil || chs[0].Old.ID != b.ID {
		t.Fatalf("removal: %+v", chs)
	}
	if w.Due(start.Add(time.Millisecond)) {
		t.Fatal("due with nothing reported")
	}
	if w.Due(start.Add(FullEvery)) {
		t.Fatal("a full sweep is due after FullEvery although the kernel reports changes")
	}
	if !w.Due(start.Add(FullEveryNotified)) {
		t.Fatal("the full sweep is not due after FullEvery")
	}

	// The directory goes away: the reports stop and the watcher polls again.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !w.n.stopped(); {
		select {
		case <-wake:
		case <-time.After(time.Until(deadline)):
			t.Fatal("no report of the directory's removal")
		}
	}
	w.Due(start.Add(time.Millisecond))
	if w.n != nil {
		t.Fatal("still waiting for reports of a directory that is gone")
	}
}
