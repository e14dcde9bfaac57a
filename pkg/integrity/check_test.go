package integrity

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// fixture is a directory area with a few files, accepted as good.
type fixture struct {
	t    *testing.T
	root string
	area *Area
	c    *Checker
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "tasks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for n, c := range files {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{t: t, root: root,
		area: &Area{Name: "tasks", Dir: dir, Match: IsTaskName, Ledger: filepath.Join(root, "ledger"), LockDir: dir, MaxBytes: 1 << 20},
		c:    &Checker{Quarantine: filepath.Join(root, "quarantine")},
	}
	if _, err := f.c.Accept(f.area); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) path(n string) string { return filepath.Join(f.area.Dir, n) }

// snap describes the area: names, content, mode and mtime.
func (f *fixture) snap() string {
	ents, _ := os.ReadDir(f.area.Dir)
	var out []string
	for _, e := range ents {
		if !IsTaskName(e.Name()) {
			continue
		}
		fi, err := os.Lstat(f.path(e.Name()))
		if err != nil {
			continue
		}
		data := []byte{}
		if fi.Mode().IsRegular() {
			data, _ = os.ReadFile(f.path(e.Name()))
		}
		out = append(out, fmt.Sprintf("%s %v %d %q", e.Name(), fi.Mode(), fi.ModTime().UnixNano(), data))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func (f *fixture) check(w Window) *Result {
	f.t.Helper()
	res, err := f.c.Check(f.area, w)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func actions(res *Result) string {
	var s []string
	for _, c := range res.Changes {
		s = append(s, c.File+":"+c.What+":"+c.Action)
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

func TestUnchangedStoreIsNotHashedOnceSettled(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa", "T-b.json": "bbb"})
	time.Sleep(50 * time.Millisecond) // past the ctime tick of the writes
	f.check(Window{All: true})        // hashes once and settles
	res := f.check(Window{All: true})
	if len(res.Changes) != 0 || res.Checked != 2 {
		t.Fatalf("changes %v checked %d", res.Changes, res.Checked)
	}
	if res.Hashed != 0 {
		t.Errorf("hashed %d files of an unchanged, settled store", res.Hashed)
	}
}

// TestLargeDirectoryIsCheckedInParallel: a directory of parallelFrom
// files or more is stat-ed from several goroutines; a change, a deletion
// and a creation spread over it are each found once and undone.
func TestLargeDirectoryIsCheckedInParallel(t *testing.T) {
	files := map[string]string{}
	for i := range parallelFrom + 37 {
		files[fmt.Sprintf("T-%04d.json", i)] = fmt.Sprintf("record %04d", i)
	}
	f := newFixture(t, files)
	before := f.snap()
	fi, _ := os.Stat(f.path("T-0003.json"))
	if err := os.WriteFile(f.path("T-0003.json"), []byte("changed 03"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(f.path("T-0003.json"), fi.ModTime(), fi.ModTime())
	if err := os.Remove(f.path(fmt.Sprintf("T-%04d.json", parallelFrom))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path("T-new.json"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.check(Window{All: true})
	want := fmt.Sprintf("T-0003.json:changed:restored T-%04d.json:deleted:restored T-new.json:created:quarantined", parallelFrom)
	if got := actions(res); got != want {
		t.Fatalf("actions %q, want %q", got, want)
	}
	if res.Checked != parallelFrom+37 {
		t.Errorf("checked %d files, want %d", res.Checked, parallelFrom+37)
	}
	if after := f.snap(); after != before {
		t.Errorf("not restored:\n%s\nwant\n%s", after, before)
	}
}

func TestChangeInsideTheWindowIsRestoredWithItsMtime(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa", "T-b.json": "bbb"})
	before := f.snap()
	// same size, in place, mtime put back with touch -r: only ctime tells
	fi, _ := os.Stat(f.path("T-a.json"))
	if err := os.WriteFile(f.path("T-a.json"), []byte("XXX"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(f.path("T-a.json"), fi.ModTime(), fi.ModTime())
	res := f.check(Window{All: true})
	if got := actions(res); got != "T-a.json:changed:restored" {
		t.Fatalf("actions %q", got)
	}
	if after := f.snap(); after != before {
		t.Errorf("not restored:\n%s\nwant\n%s", after, before)
	}
	q, _ := os.ReadFile(res.Changes[0].Quarantine)
	if string(q) != "XXX" {
		t.Errorf("quarantine holds %q", q)
	}
	if res := f.check(Window{All: true}); len(res.Changes) != 0 {
		t.Errorf("second check found %v", res.Changes)
	}
}

func TestEveryKindOfChangeIsUndone(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa", "T-b.json": "bbb", "T-c.json": "ccc", "T-d.json": "ddd", "T-e.json": "eee"})
	before := f.snap()
	_ = os.Remove(f.path("T-a.json"))
	_ = os.Chmod(f.path("T-b.json"), 0)
	_ = os.Chtimes(f.path("T-c.json"), time.Unix(1, 0), time.Unix(1, 0))
	_ = os.Remove(f.path("T-d.json"))
	_ = os.Symlink("/etc/passwd", f.path("T-d.json"))
	_ = os.Remove(f.path("T-e.json"))
	_ = syscall.Mkfifo(f.path("T-e.json"), 0o644)
	_ = os.WriteFile(f.path("T-new.json"), []byte("{}"), 0o644)
	_ = os.Mkdir(f.path("T-dir.json"), 0o755)
	res := f.check(Window{All: true})
	want := "T-a.json:deleted:restored T-b.json:metadata:restored T-c.json:metadata:restored T-d.json:odd:restored T-dir.json:odd:quarantined T-e.json:odd:restored T-new.json:created:quarantined"
	if got := actions(res); got != want {
		t.Errorf("actions\n%s\nwant\n%s", got, want)
	}
	if after := f.snap(); after != before {
		t.Errorf("not restored:\n%s\nwant\n%s", after, before)
	}
}

func TestChangeOutsideTheWindowIsAdopted(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	_ = os.WriteFile(f.path("T-a.json"), []byte("edited by the person"), 0o644)
	_ = os.WriteFile(f.path("T-b.json"), []byte("new"), 0o644)
	now, _ := coarseNow()
	res := f.check(Window{Start: now + int64(time.Second)})
	if got := actions(res); got != "T-a.json:changed:adopted T-b.json:created:adopted" {
		t.Fatalf("actions %q", got)
	}
	if data, _ := os.ReadFile(f.path("T-a.json")); string(data) != "edited by the person" {
		t.Errorf("content %q", data)
	}
	if res := f.check(Window{All: true}); len(res.Changes) != 0 {
		t.Errorf("adopted change reported again: %v", res.Changes)
	}
}

func TestValidRecordsOfAnotherImplementationAreAdopted(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	f.area.Valid = func(name string, data []byte) bool { return bytes.HasPrefix(data, []byte("valid")) }
	_ = os.WriteFile(f.path("T-a.json"), []byte("valid update"), 0o644)
	_ = os.WriteFile(f.path("T-b.json"), []byte("junk"), 0o644)
	res := f.check(Window{All: true, AdoptValid: true})
	if got := actions(res); got != "T-a.json:changed:adopted T-b.json:created:quarantined" {
		t.Fatalf("actions %q", got)
	}
}

func TestWritesOfOurBinariesAreNeverReverted(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	rec := f.area.Recorder()
	for i := range 20 {
		data := []byte(fmt.Sprintf("version %d", i))
		if err := rec.WriteFile(f.path("T-a.json"), data, durable.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := rec.WriteFile(f.path(fmt.Sprintf("T-n%d.json", i)), data, durable.Options{}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := rec.Remove(f.path(fmt.Sprintf("T-n%d.json", i))); err != nil {
				t.Fatal(err)
			}
		}
		if res := f.check(Window{All: true}); len(res.Changes) != 0 {
			t.Fatalf("write %d reverted: %v", i, res.Changes)
		}
	}
}

func TestAWriteRightAfterOursIsCaughtEvenInTheSameTick(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	rec := f.area.Recorder()
	if err := rec.WriteFile(f.path("T-a.json"), []byte("ours"), durable.Options{}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(f.path("T-a.json"))
	// in place, same size, mtime put back: possibly the same ctime tick
	fd, _ := os.OpenFile(f.path("T-a.json"), os.O_WRONLY, 0)
	_, _ = fd.WriteAt([]byte("evil"), 0)
	fd.Close()
	_ = os.Chtimes(f.path("T-a.json"), fi.ModTime(), fi.ModTime())
	res := f.check(Window{All: true})
	if got := actions(res); got != "T-a.json:changed:restored" {
		t.Fatalf("actions %q", got)
	}
	if data, _ := os.ReadFile(f.path("T-a.json")); string(data) != "ours" {
		t.Errorf("content %q", data)
	}
}

func TestSettleLineNeverResurrectsAnOlderContent(t *testing.T) {
	l := &Ledger{Entries: map[string]*Entry{}}
	newer := &Entry{Sum: SumOf([]byte("new")), Stat: Stat{Size: 3, Mode: 0o100644, Mtime: 5}}
	older := &Entry{Sum: SumOf([]byte("old")), Stat: Stat{Size: 3, Mtime: 9, Ctime: 9, Ino: 9}, Settled: true}
	l.apply([]byte(putLine("T-a.json", newer) + settleLine("T-a.json", older) + "P torn"))
	e := l.Entries["T-a.json"]
	if e == nil || e.Sum != newer.Sum || e.Settled || e.Stat.Mtime != 5 {
		t.Fatalf("entry %+v", e)
	}
}

func TestFirstRunAdoptsAndABrokenLedgerIsReported(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	if err := os.WriteFile(filepath.Join(f.area.Ledger, baseFile), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := f.check(Window{All: true})
	if len(res.Changes) != 1 || res.Changes[0].File != "(ledger)" {
		t.Fatalf("changes %v", res.Changes)
	}
	if res := f.check(Window{All: true}); len(res.Changes) != 0 {
		t.Errorf("after re-adoption: %v", res.Changes)
	}
}

func TestRemovedDirectoryIsRebuilt(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa", "T-b.json": "bbb"})
	before := f.snap()
	if err := os.RemoveAll(f.area.Dir); err != nil {
		t.Fatal(err)
	}
	res := f.check(Window{All: true})
	if got := actions(res); got != "T-a.json:deleted:restored T-b.json:deleted:restored" {
		t.Fatalf("actions %q", got)
	}
	if after := f.snap(); after != before {
		t.Errorf("not restored:\n%s\nwant\n%s", after, before)
	}
}

func TestDirectoryReplacedByALinkIsQuarantined(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	before := f.snap()
	elsewhere := filepath.Join(f.root, "elsewhere")
	_ = os.Rename(f.area.Dir, elsewhere)
	_ = os.Symlink(elsewhere, f.area.Dir)
	f.check(Window{All: true})
	if fi, err := os.Lstat(f.area.Dir); err != nil || !fi.IsDir() {
		t.Fatalf("the store is not a directory again: %v %v", fi, err)
	}
	if after := f.snap(); after != before {
		t.Errorf("not restored:\n%s\nwant\n%s", after, before)
	}
}

func TestCallMarkers(t *testing.T) {
	c := CallsOf(t.TempDir(), "/p")
	if _, n := c.Earliest("s", time.Now()); n != 0 {
		t.Fatal("open calls in an empty directory")
	}
	if err := c.Open("s", "a"); err != nil {
		t.Fatal(err)
	}
	start, ok := c.Start("s", "a")
	first, n := c.Earliest("s", time.Now())
	if !ok || n != 1 || first != start {
		t.Fatalf("start %d %v first %d n %d", start, ok, first, n)
	}
	if _, n := c.Earliest("other", time.Now()); n != 0 {
		t.Error("another session's call counted")
	}
	if _, n := c.Earliest("s", time.Now().Add(StaleCall+time.Minute)); n != 0 {
		t.Error("a stale call counted")
	}
	c.Close("s", "a")
	if _, ok := c.Start("s", "a"); ok {
		t.Error("closed call still open")
	}
}

func TestQuarantineNeverWritesThroughALink(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	elsewhere := filepath.Join(f.root, "elsewhere")
	_ = os.MkdirAll(elsewhere, 0o755)
	state := filepath.Join(f.root, "state")
	if err := os.Symlink(elsewhere, state); err != nil {
		t.Fatal(err)
	}
	f.c.Quarantine = filepath.Join(state, "quarantine")
	f.c.Fallback = filepath.Join(f.root, "fallback")
	_ = os.WriteFile(f.path("T-a.json"), []byte("evil"), 0o644)
	res := f.check(Window{All: true})
	if len(res.Changes) != 1 || !strings.HasPrefix(res.Changes[0].Quarantine, f.c.Fallback) {
		t.Fatalf("changes %+v", res.Changes)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("wrote through the link: %v", ents)
	}
}

func TestAKnownDirectoryIsListedAgainWhenItChanges(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	time.Sleep(50 * time.Millisecond)
	f.check(Window{All: true}) // records the settled directory tuple
	if l, _ := Load(f.area.Ledger); l.DirEntry == nil || !l.DirEntry.Settled {
		t.Fatalf("directory entry %+v", l.DirEntry)
	}
	_ = os.WriteFile(f.path("T-new.json"), []byte("x"), 0o644)
	if got := actions(f.check(Window{All: true})); got != "T-new.json:created:quarantined" {
		t.Fatalf("actions %q", got)
	}
	time.Sleep(50 * time.Millisecond)
	f.check(Window{All: true})
	_ = os.WriteFile(f.path("T-a.json"), []byte("in place"), 0o644) // the directory does not change
	if got := actions(f.check(Window{All: true})); got != "T-a.json:changed:restored" {
		t.Fatalf("actions %q", got)
	}
}

func TestAChangeInALiveSpanIsRestoredOutsideAnyCall(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	before := f.snap()
	_ = os.WriteFile(f.path("T-a.json"), []byte("a background job"), 0o644)
	now, _ := coarseNow()
	// no call open (None), but a session live since a second ago
	res := f.check(Window{None: true, Live: []Span{{From: now - int64(time.Second), To: now + int64(time.Minute)}}})
	if got := actions(res); got != "T-a.json:changed:restored" || f.snap() != before {
		t.Fatalf("actions %q", got)
	}
	// shared store: a valid record made outside the call is adopted even
	// in a live span, one made inside the call is not
	f.area.Valid = func(name string, data []byte) bool { return bytes.HasPrefix(data, []byte("valid")) }
	_ = os.WriteFile(f.path("T-a.json"), []byte("valid, by the plugin"), 0o644)
	now, _ = coarseNow()
	live := []Span{{From: now - int64(time.Second), To: now + int64(time.Minute)}}
	if got := actions(f.check(Window{Start: now + int64(time.Second), Live: live, SharedValid: true})); got != "T-a.json:changed:adopted" {
		t.Fatalf("shared store, outside the call: %q", got)
	}
	_ = os.WriteFile(f.path("T-a.json"), []byte("valid, in the agent's call"), 0o644)
	if got := actions(f.check(Window{Start: now - int64(time.Second), Live: live, SharedValid: true})); got != "T-a.json:changed:restored" {
		t.Fatalf("shared store, inside the call: %q", got)
	}
}

func TestAnOddLockNeverSilencesTheCheck(t *testing.T) {
	f := newFixture(t, map[string]string{"T-a.json": "aaa"})
	before := f.snap()
	if err := syscall.Mkfifo(filepath.Join(f.area.Dir, ".lock"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(f.path("T-a.json"), []byte("edited"), 0o644)
	start := time.Now()
	res := f.check(Window{All: true})
	if got := actions(res); got != ".lock:odd:quarantined T-a.json:changed:restored" || f.snap() != before {
		t.Fatalf("actions %q", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the check waited %v for the odd lock", d)
	}
	// alone (nothing else changed) it is moved away too
	if err := os.Mkdir(filepath.Join(f.area.Dir, ".lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := actions(f.check(Window{All: true})); got != ".lock:odd:quarantined" {
		t.Fatalf("actions %q", got)
	}
}

func TestProjectDirectoriesArePutRight(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	for _, d := range []string{filepath.Join(proj, ".matrixx", "plans"), filepath.Join(home, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := &Checker{Quarantine: filepath.Join(proj, ".matrixx", "state", "quarantine"), Fallback: filepath.Join(home, "q")}
	if err := os.Symlink(filepath.Join(home, "elsewhere"), filepath.Join(proj, ".matrixx", "tasks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(proj, ".matrixx", "plans"), 0o300); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ch := range c.Dirs(proj) {
		got = append(got, ch.File+":"+ch.What+":"+ch.Action)
	}
	if strings.Join(got, " ") != ".matrixx/tasks/:odd:quarantined .matrixx/plans/:metadata:restored" {
		t.Fatalf("changes %q", got)
	}
	if _, err := os.Lstat(filepath.Join(proj, ".matrixx", "tasks")); !os.IsNotExist(err) {
		t.Errorf("the link is still there: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "q")); len(ents) != 1 {
		t.Errorf("the link is not in the fallback quarantine: %v", ents)
	}
	if fi, _ := os.Stat(filepath.Join(proj, ".matrixx", "plans")); fi.Mode().Perm() != 0o700 {
		t.Errorf("plans mode %v", fi.Mode().Perm())
	}
}
