package integrity

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// TestSweep: ledger directories and list indexes nobody wrote for
// RetainFor are removed, recent ones and foreign names kept; a second
// sweep the same day does not look.
func TestSweep(t *testing.T) {
	state := t.TempDir()
	home := filepath.Join(state, "integrity")
	now := time.Now()
	old := now.Add(-RetainFor - time.Hour)
	mk := func(path string, mtime time.Time, dir bool) {
		if dir {
			if err := os.MkdirAll(path, 0o700); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	gone := key("tasks", "/gone/project/.matrixx/tasks")
	live := key("tasks", "/live/project/.matrixx/tasks")
	recentJournal := key("plans", "/quiet/project/.matrixx/plans")
	mk(filepath.Join(home, gone, baseFile), old, false)
	mk(filepath.Join(home, gone, journalFile), old, false)
	mk(filepath.Join(home, gone, blobDir), old, true)
	mk(filepath.Join(home, gone), old, true)
	mk(filepath.Join(home, live, baseFile), now, false)
	mk(filepath.Join(home, recentJournal, baseFile), old, false)
	mk(filepath.Join(home, recentJournal, journalFile), now.Add(-time.Hour), false)
	mk(filepath.Join(home, recentJournal), old, true)
	mk(filepath.Join(home, "quarantine"), old, true) // not a ledger: kept
	mk(filepath.Join(state, "index", "list-0123456789abcdef"), old, false)
	mk(filepath.Join(state, "index", "list-fedcba9876543210"), now, false)

	removed := Sweep(home, now)
	if len(removed) != 2 {
		t.Errorf("removed %v, want the old ledger and the old list index", removed)
	}
	for path, want := range map[string]bool{
		filepath.Join(home, gone):                              false,
		filepath.Join(home, live):                              true,
		filepath.Join(home, recentJournal):                     true,
		filepath.Join(home, "quarantine"):                      true,
		filepath.Join(state, "index", "list-0123456789abcdef"): false,
		filepath.Join(state, "index", "list-fedcba9876543210"): true,
	} {
		if _, err := os.Lstat(path); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", path, err == nil, want)
		}
	}
	mk(filepath.Join(home, gone, baseFile), old, false)
	mk(filepath.Join(home, gone), old, true)
	if again := Sweep(home, now.Add(time.Hour)); len(again) != 0 {
		t.Errorf("a second sweep within a day removed %v", again)
	}
	if later := Sweep(home, now.Add(sweepEvery+time.Hour)); len(later) != 1 {
		t.Errorf("a sweep a day later removed %v, want the old ledger", later)
	}
}

// TestWriterCompacts: a store written by plumbing alone (no check ever
// compacts its ledger) keeps the copies of the current versions and of
// the writes since the last compaction, not one of every version.
func TestWriterCompacts(t *testing.T) {
	dir := t.TempDir()
	r := &Recorder{Ledger: filepath.Join(t.TempDir(), "tasks-0123456789abcdef")}
	const files, writes = 5, 3000
	for i := range writes {
		path := filepath.Join(dir, fmt.Sprintf("T-%d.json", i%files))
		data := []byte(fmt.Sprintf(`{"version":%d}`, i))
		if err := r.WriteFile(path, data, durable.Options{NoSync: true}); err != nil {
			t.Fatal(err)
		}
	}
	blobs, err := os.ReadDir(filepath.Join(r.Ledger, blobDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) >= writes/2 {
		t.Errorf("%d blobs kept after %d writes of %d files", len(blobs), writes, files)
	}
	l, err := Load(r.Ledger)
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		name := fmt.Sprintf("T-%d.json", i)
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		e := l.Entries[name]
		if e == nil || e.Sum != SumOf(data) {
			t.Fatalf("%s: ledger entry %+v does not hold the file's content", name, e)
		}
		if _, err := readBlob(r.Ledger, e.Sum, 1<<20); err != nil {
			t.Errorf("%s: the copy of its current version is gone: %v", name, err)
		}
	}
}
