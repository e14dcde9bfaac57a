package notepad

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// clock returns a Now that yields the given instants in turn, then the
// last one.
func clock(t *testing.T, stamps ...string) func() time.Time {
	i := 0
	return func() time.Time {
		ts, err := time.Parse(time.RFC3339Nano, stamps[min(i, len(stamps)-1)])
		if err != nil {
			t.Fatal(err)
		}
		i++
		return ts
	}
}

func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func meta(planName string) task.Metadata {
	return task.Metadata{"planName": jsontext.Value(fmt.Sprintf("%q", planName))}
}

func listing(t *testing.T, dir string) []string {
	t.Helper()
	names, err := notepads(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestExampleA is the spec's Example A byte for byte (its timestamps
// injected), and Example C's idempotency: a second create and completion
// change nothing.
func TestExampleA(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".matrixx", "plans"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(PlanFile(root, "auth-refresh"), []byte("# plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := &Writer{Root: root, Now: clock(t, "2026-09-27T16:20:10.393Z", "2026-09-27T16:20:10.394Z", "2026-09-27T16:20:11Z", "2026-09-27T16:20:12Z")}
	created := &task.Task{ID: "T-3f1c9a20-8d4e-4b77-9c11-5a0e2b6d4f10", Subject: "Rotate the refresh-token signing key",
		Status: task.Pending, Priority: "high", Metadata: meta("auth-refresh")}
	res, err := w.Create(created)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Action: Wrote, Path: ".matrixx/notepads/auth-refresh/0-rotate-the-refresh-token-signing-key.md", Bucket: "auth-refresh", Reason: PlanFileExists}
	if res != want {
		t.Fatalf("got %+v, want %+v", res, want)
	}
	path := filepath.Join(root, res.Path)
	if got := read(t, path); got != golden(t, "example-a.md") {
		t.Errorf("scaffold:\n%s", got)
	}
	// the update answer carries no metadata: the plan bucket is found by
	// the marker through adhoc + plan candidates only when planName is
	// known, so the caller passes the stored metadata (as the hook does)
	completed := &task.Task{ID: created.ID, Subject: created.Subject, Status: task.Completed, Metadata: meta("auth-refresh")}
	res, err = w.Complete(completed)
	if err != nil || res.Action != Stamped {
		t.Fatalf("complete: %+v %v", res, err)
	}
	round1 := read(t, path)
	if round1 != golden(t, "example-a-completed.md") || len(round1) != 646 {
		t.Errorf("completed (%d bytes):\n%s", len(round1), round1)
	}
	// Example C: fire both again
	if res, err := w.Create(created); err != nil || res.Action != Exists {
		t.Errorf("second create: %+v %v", res, err)
	}
	if res, err := w.Complete(completed); err != nil || res.Action != AlreadyStamped {
		t.Errorf("second complete: %+v %v", res, err)
	}
	if read(t, path) != round1 {
		t.Error("round 2 changed the file")
	}
	if got := listing(t, filepath.Join(Dir(root), "auth-refresh")); len(got) != 1 {
		t.Errorf("bucket: %v", got)
	}
}

// TestExampleB: a dangling planName and no metadata both go to adhoc, the
// index counts up, and no plan bucket appears.
func TestExampleB(t *testing.T) {
	root := t.TempDir()
	w := &Writer{Root: root, Now: clock(t, "2026-09-27T16:20:10.394Z", "2026-09-27T16:20:10.395Z")}
	res, err := w.Create(&task.Task{ID: "T-77b2c4d6-1e3f-4a58-8b90-c1d2e3f40516", Subject: "Document the flaky 111 architect gate", Status: task.Pending, Metadata: meta("auth-refresh")})
	if err != nil || res.Reason != PlanFileMissing || res.Bucket != Adhoc {
		t.Fatalf("%+v %v", res, err)
	}
	if got := read(t, filepath.Join(root, res.Path)); got != golden(t, "example-b.md") {
		t.Errorf("adhoc file:\n%s", got)
	}
	res, err = w.Create(&task.Task{ID: "T-88b2c4d6-1e3f-4a58-8b90-c1d2e3f40516", Subject: "Spike the notepad bucket naming", Status: task.Pending})
	if err != nil || res.Reason != NoPlanName {
		t.Fatalf("%+v %v", res, err)
	}
	got := listing(t, filepath.Join(Dir(root), Adhoc))
	want := []string{"0-document-the-flaky-111-architect-gate.md", "1-spike-the-notepad-bucket-naming.md"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("adhoc: %v", got)
	}
	entries, _ := os.ReadDir(Dir(root))
	if len(entries) != 1 || entries[0].Name() != Adhoc {
		t.Errorf("buckets: %v", entries)
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	_ = os.MkdirAll(filepath.Join(root, ".matrixx", "plans", "dir.md"), 0o755)
	_ = os.WriteFile(PlanFile(root, "live"), nil, 0o644)
	_ = os.WriteFile(filepath.Join(root, ".matrixx", "secret.md"), nil, 0o644)
	// a symbolic link to a real file, and a dangling one: the plan binary
	// refuses both, so they are no plan file
	_ = os.Symlink(PlanFile(root, "live"), PlanFile(root, "linked"))
	_ = os.Symlink(filepath.Join(root, "nowhere.md"), PlanFile(root, "dangling"))
	tests := []struct {
		name   string
		bucket string
		why    Reason
	}{
		{"live", "live", PlanFileExists},
		{"", Adhoc, NoPlanName},
		{"gone", Adhoc, PlanFileMissing},
		{"dir", Adhoc, PlanFileMissing},
		{"linked", Adhoc, PlanFileMissing},
		{"dangling", Adhoc, PlanFileMissing},
		{"../secret", Adhoc, UnsafePlanName},
		{"..", Adhoc, UnsafePlanName},
		{"a/b", Adhoc, UnsafePlanName},
		{`a\b`, Adhoc, UnsafePlanName},
		{"Live", Adhoc, UnsafePlanName},
		{"live\x00", Adhoc, UnsafePlanName},
		{"/etc", Adhoc, UnsafePlanName},
		{strings.Repeat("a", plan.MaxNameLen+1), Adhoc, UnsafePlanName},
		{"-lead", Adhoc, UnsafePlanName},
		{"a--b", Adhoc, UnsafePlanName},
	}
	for _, tt := range tests {
		b, why := Resolve(root, tt.name)
		if b != tt.bucket || why != tt.why {
			t.Errorf("Resolve(%q) = %s, %s; want %s, %s", tt.name, b, why, tt.bucket, tt.why)
		}
	}
}

// TestIndex: the index is the count of visible *.md files; directories,
// dotfiles and other extensions do not count; a taken name moves to the
// next free index instead of being overwritten.
func TestIndex(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(Dir(root), Adhoc)
	_ = os.MkdirAll(filepath.Join(dir, "sub.md"), 0o755)
	for _, n := range []string{".hidden.md", "notes.txt", "0-a.md", "2-b.md"} {
		_ = os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644)
	}
	w := &Writer{Root: root}
	res, err := w.Create(&task.Task{ID: "T-1", Subject: "b"})
	if err != nil {
		t.Fatal(err)
	}
	// two files counted → 2-b.md is taken → 3-b.md
	if res.Path != ".matrixx/notepads/adhoc/3-b.md" {
		t.Errorf("path %s", res.Path)
	}
	if read(t, filepath.Join(dir, "2-b.md")) != "x\n" {
		t.Error("2-b.md was overwritten")
	}
	for _, e := range mustReadDir(t, dir) {
		if strings.Contains(e, ".tmp-") || e == ".lock" {
			t.Errorf("left behind: %s", e)
		}
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestConcurrentCreates: writers in one process (the t/ script runs real
// processes) never share an index.
func TestConcurrentCreates(t *testing.T) {
	root := t.TempDir()
	w := &Writer{Root: root}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.Create(&task.Task{ID: fmt.Sprintf("T-%d", i+1), Subject: "same subject"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := listing(t, filepath.Join(Dir(root), Adhoc))
	var idx []int
	for _, n := range got {
		var i int
		fmt.Sscanf(n, "%d-", &i)
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for i, n := range idx {
		if n != i {
			t.Fatalf("indexes %v", idx)
		}
	}
	if len(idx) != 16 {
		t.Fatalf("%d files", len(idx))
	}
}

func TestCompleteEdgeCases(t *testing.T) {
	root := t.TempDir()
	w := &Writer{Root: root, Now: clock(t, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z")}
	if res, err := w.Complete(&task.Task{ID: "T-none", Status: task.Completed}); err != nil || res.Action != NoNotepad {
		t.Errorf("no notepad: %+v %v", res, err)
	}
	res, err := w.Create(&task.Task{ID: "T-2", Subject: "edited"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, res.Path)
	// the agent left the file without a final newline
	data := strings.TrimRight(read(t, path), "\n") + "\nnotes"
	_ = os.WriteFile(path, []byte(data), 0o644)
	if res, err := w.Complete(&task.Task{ID: "T-2", Status: task.Completed}); err != nil || res.Action != Stamped {
		t.Fatalf("%+v %v", res, err)
	}
	if got := read(t, path); !strings.HasSuffix(got, "\nnotes\n\n## Completion\n- completed_at: 2026-01-01T00:00:01.000Z\n- status: completed\n") {
		t.Errorf("ending: %q", got[len(got)-80:])
	}
	// the notepad moved to a plan bucket by hand is still found through the plan candidate
	_ = os.MkdirAll(filepath.Join(Dir(root), "moved"), 0o755)
	res2, err := w.Create(&task.Task{ID: "T-3", Subject: "x"})
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(Dir(root), "moved", "0-x.md")
	_ = os.Rename(filepath.Join(root, res2.Path), moved)
	if res, err := w.Complete(&task.Task{ID: "T-3", Status: task.Completed, Metadata: meta("moved")}); err != nil || res.Action != Stamped || res.Bucket != "moved" {
		t.Errorf("moved: %+v %v", res, err)
	}
	// an invalid id is refused
	if _, err := w.Create(&task.Task{ID: "../x", Subject: "x"}); err == nil {
		t.Error("bad id accepted")
	}
}

func TestMarkerMustBeExact(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "0-x.md")
	content := "**Task ID**: T-10\n  **Task ID**: T-1  \n" + strings.Repeat("y", 10000) + "\n## Completion x\n"
	_ = os.WriteFile(p, []byte(content), 0o644)
	for _, tt := range []struct {
		id              string
		hit, completion bool
	}{{"T-1", true, false}, {"T-10", true, false}, {"T-100", false, false}} {
		hit, completed, err := scanFile(p, MarkerPrefix+tt.id)
		if err != nil || hit != tt.hit || completed != tt.completion {
			t.Errorf("%s: hit %v completed %v err %v", tt.id, hit, completed, err)
		}
	}
}
