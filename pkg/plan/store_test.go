package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	root := t.TempDir()
	return &Store{Dir: DirOf(root), Root: root, Lock: lock.Options{Timeout: 5 * time.Second}}
}

func mustCreate(t *testing.T, s *Store, name, content string) {
	t.Helper()
	if _, err := s.Create(name, []byte(content), false); err != nil {
		t.Fatal(err)
	}
}

func fileOf(t *testing.T, s *Store, name string) string {
	t.Helper()
	b, err := os.ReadFile(s.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantCode(t *testing.T, err error, code errcode.Code, msg string) {
	t.Helper()
	if e := errcode.As(err); err == nil || e.Code != code || !strings.Contains(e.Message, msg) {
		t.Fatalf("error = %v; want %s containing %q", err, code, msg)
	}
}

func TestCreateReadDelete(t *testing.T) {
	s := newStore(t)
	if _, err := s.Read("auth"); errcode.Of(err) != errcode.FileNotFound {
		t.Fatalf("read before create: %v", err)
	}
	if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read created the plans directory")
	}
	content := "# Auth\r\n\r\n1. [ ] a\r\n2. [x] b"
	res, err := s.Create("auth", []byte(content), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Name != "auth" || res.Size != len(content) || res.Progress != (Progress{1, 2}) || res.TotalLines != 4 || res.Replaced {
		t.Errorf("create = %+v", res)
	}
	if got := fileOf(t, s, "auth"); got != content {
		t.Errorf("file = %q, want it byte for byte", got)
	}
	_, err = s.Create("auth", []byte("x"), false)
	wantCode(t, err, errcode.FileExists, "already exists")
	if res, err = s.Create("auth", []byte("new\n"), true); err != nil || !res.Replaced {
		t.Fatalf("force: %+v, %v", res, err)
	}
	p, err := s.Read("auth")
	if err != nil || p.Size != 4 || len(p.Text.Lines) != 1 {
		t.Fatalf("read = %+v, %v", p, err)
	}
	if d, err := s.Delete("auth"); err != nil || !d.Deleted {
		t.Fatalf("delete = %+v, %v", d, err)
	}
	_, err = s.Delete("auth")
	wantCode(t, err, errcode.FileNotFound, "plan auth does not exist (.matrixx/plans/auth.md)")
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
}

func TestCreateRefusals(t *testing.T) {
	s := newStore(t)
	for _, tc := range []struct {
		name, content string
		code          errcode.Code
		msg           string
	}{
		{"Auth", "x", errcode.InvalidFilePath, "did you mean auth"},
		{"../x", "x", errcode.InvalidFilePath, "is a path"},
		{"big", strings.Repeat("x", MaxBytes+1), errcode.FileTooLarge, "102401 bytes"},
		{"bin", "\xff\xfe", errcode.ValidationError, "UTF-8"},
		{"nul", "a\x00b", errcode.ValidationError, "NUL"},
	} {
		_, err := s.Create(tc.name, []byte(tc.content), false)
		wantCode(t, err, tc.code, tc.msg)
	}
	if _, err := s.Create("edge", []byte(strings.Repeat("x", MaxBytes)), false); err != nil {
		t.Errorf("a plan of exactly MaxBytes: %v", err)
	}
}

func TestUpdateAllOrNothing(t *testing.T) {
	s := newStore(t)
	content := "# Plan\n\n1. [ ] one\n2. [ ] two\n"
	mustCreate(t, s, "p", content)
	text := hashline.Split(content)
	a := func(n int) string { return text.At(n).Anchor() }

	res, err := s.Update("p", []hashline.Edit{
		{Op: hashline.Replace, Pos: a(3), Lines: []string{"1. [x] one"}, HasLines: true},
		{Op: hashline.Append, Lines: []string{"3. [ ] three"}},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Plan\n\n1. [x] one\n2. [ ] two\n3. [ ] three\n"
	if got := fileOf(t, s, "p"); got != want {
		t.Fatalf("file = %q", got)
	}
	if !res.Changed || res.Progress != (Progress{1, 3}) || res.TotalLines != 5 || len(res.Lines) != 2 || res.Lines[1].Anchor() != hashline.Split(want).At(5).Anchor() {
		t.Errorf("answer = %+v", res)
	}

	// the old anchor of line 3 is stale now: nothing changes
	_, err = s.Update("p", []hashline.Edit{
		{Op: hashline.Append, Lines: []string{"never"}},
		{Op: hashline.Replace, Pos: a(3), Lines: []string{"x"}, HasLines: true},
	}, false)
	var me *hashline.MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("stale anchor: %v", err)
	}
	if got := fileOf(t, s, "p"); got != want {
		t.Fatalf("file changed by a refused update: %q", got)
	}

	// dry run and no-op edits write nothing
	fresh := hashline.Split(want)
	res, err = s.Update("p", []hashline.Edit{{Op: hashline.Append, Lines: []string{"4. [ ] four"}}}, true)
	if err != nil || !res.DryRun || !res.Changed || res.Progress.Total != 4 || fileOf(t, s, "p") != want {
		t.Fatalf("dry run = %+v, %v", res, err)
	}
	res, err = s.Update("p", []hashline.Edit{{Op: hashline.Replace, Pos: fresh.At(1).Anchor(), Lines: []string{"# Plan"}, HasLines: true}}, false)
	if err != nil || res.Changed {
		t.Fatalf("no-op = %+v, %v", res, err)
	}

	_, err = s.Update("missing", []hashline.Edit{{Op: hashline.Append, Lines: []string{"x"}}}, false)
	wantCode(t, err, errcode.FileNotFound, "missing")
	_, err = s.Update("p", []hashline.Edit{{Op: hashline.Append, Lines: []string{"a\x00"}}}, false)
	wantCode(t, err, errcode.ValidationError, "NUL")
}

func TestUpdateSizeCap(t *testing.T) {
	s := newStore(t)
	content := strings.Repeat("x", MaxBytes-10) + "\n"
	mustCreate(t, s, "p", content)
	_, err := s.Update("p", []hashline.Edit{{Op: hashline.Append, Lines: []string{"0123456789"}}}, false)
	wantCode(t, err, errcode.FileTooLarge, "102402 bytes")
	if got := fileOf(t, s, "p"); got != content {
		t.Fatal("file changed by a refused update")
	}
	if _, err := s.Update("p", []hashline.Edit{{Op: hashline.Append, Lines: []string{"12345678"}}}, false); err != nil {
		t.Fatalf("an edit to exactly MaxBytes: %v", err)
	}
	if info, _ := os.Stat(s.Path("p")); info.Size() != MaxBytes {
		t.Fatalf("size %d", info.Size())
	}
}

func TestReadRefusesOddFiles(t *testing.T) {
	s := newStore(t)
	mustCreate(t, s, "real", "x\n")
	if err := os.Symlink(s.Path("real"), s.Path("link")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read("link")
	wantCode(t, err, errcode.InvalidFilePath, "symbolic link")
	if err := os.Mkdir(s.Path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = s.Read("dir")
	wantCode(t, err, errcode.InvalidFilePath, "not a regular file")
	if err := os.WriteFile(s.Path("huge"), make([]byte, MaxReadBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.Read("huge")
	wantCode(t, err, errcode.FileTooLarge, "not read")
	if err := os.WriteFile(filepath.Join(s.Dir, "Bad_Name.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".hidden.md", "notes.txt", ".real.md.tmp-123"} {
		if err := os.WriteFile(filepath.Join(s.Dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Plans) != 1 || l.Plans[0].Name != "real" {
		t.Errorf("plans = %+v", l.Plans)
	}
	var files []string
	for _, p := range l.Problems {
		files = append(files, p.File)
	}
	if strings.Join(files, ",") != "Bad_Name.md,dir.md,huge.md,link.md" {
		t.Errorf("problems = %+v", l.Problems)
	}
}

func TestCheckAndSync(t *testing.T) {
	s := newStore(t)
	mustCreate(t, s, "p", "1. [ ] a\n2. [ ] b\n3. [X] c\n- [ ] meta\n")
	res, err := s.Check("p", 2, true)
	if err != nil || !res.Changed || !res.Done || res.Progress != (Progress{2, 3}) || res.Lines[0].Text != "2. [x] b" {
		t.Fatalf("check = %+v, %v", res, err)
	}
	if res, err = s.Check("p", 2, true); err != nil || res.Changed {
		t.Fatalf("second check = %+v, %v", res, err)
	}
	if res, err = s.Check("p", 3, false); err != nil || !res.Changed || res.Lines[0].Text != "3. [ ] c" {
		t.Fatalf("uncheck = %+v, %v", res, err)
	}
	_, err = s.Check("p", 4, true)
	wantCode(t, err, errcode.InvalidEdit, "no numbered item 4")
	_, err = s.Check("p", 0, true)
	wantCode(t, err, errcode.InvalidEdit, "start at 1")

	links := Links{
		{ID: "T-1", Status: task.Completed, Item: 1, Text: "a", HasText: true},
		{ID: "T-3", Status: task.Completed, Item: 3, Text: "c", HasText: true},
		{ID: "T-3b", Status: task.Pending, Item: 3, Text: "c"},
	}
	var moved []Move
	sy, err := s.Sync("p", links, func(m []Move) error { moved = m; return nil })
	if err != nil || len(sy.Checked) != 1 || sy.Checked[0] != 1 || sy.Progress != (Progress{2, 3}) {
		t.Fatalf("sync = %+v, %v", sy, err)
	}
	if got := fileOf(t, s, "p"); got != "1. [x] a\n2. [x] b\n3. [ ] c\n- [ ] meta\n" {
		t.Fatalf("file = %q", got)
	}
	// the task without a recorded text gets it
	if len(moved) != 1 || moved[0].Link.ID != "T-3b" || moved[0].Item != 3 || moved[0].Text != "c" {
		t.Fatalf("moves = %+v", moved)
	}
}

func TestLinksAndManifest(t *testing.T) {
	tk := func(status task.Status, root string, md map[string]string) *task.Task {
		m := task.Metadata{}
		for k, v := range md {
			m[k] = jsontext.Value(v)
		}
		return &task.Task{Status: status, ProjectRoot: root, Metadata: m, Subject: map[string]string{"1": "a", `"3"`: "c", "4": "d"}[md["planItem"]]}
	}
	tasks := []*task.Task{
		tk(task.Pending, "/r", map[string]string{"planName": `"auth"`, "planItem": `1`}),
		tk(task.Deleted, "/r", map[string]string{"planName": `"auth"`, "planItem": `2`}),
		tk(task.Completed, "", map[string]string{"planName": `"auth"`, "planItem": `"3"`}),
		tk(task.Pending, "/other", map[string]string{"planName": `"auth"`, "planItem": `4`}),
		tk(task.Pending, "/r", map[string]string{"planName": `"other"`, "planItem": `5`}),
		tk(task.Pending, "/r", map[string]string{"planName": `"auth"`, "planItem": `6.5`}),
		tk(task.Pending, "/r", map[string]string{"planName": `"auth"`, "planItem": `true`}),
		tk(task.Pending, "/r", map[string]string{"planItem": `7`}),
	}
	// a shared store: /other is another project (docs/design/decisions.md, "Canonical roots")
	links := LinksOf(tasks, "auth", project.NewMatcher("/r", false).Same)
	content := "# Auth\n1. [ ] a\n2. [ ] b\n3. [ ] c\n4. [ ] d\n5. [x] e\n6. [ ]\n7. [ ] g\n- [ ] meta\n"
	p := &Plan{Name: "auth", Text: hashline.Split(content)}
	if len(links) != 2 {
		t.Fatalf("links = %v", links)
	}
	r, err := p.Resolve(links)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Filed(1) || r.Filed(2) || !r.Filed(3) || r.Filed(4) || r.Finished(1) || !r.Finished(3) {
		t.Fatalf("resolution = %+v", r)
	}
	// the project's own store: every task is the project's, whatever its root
	own := LinksOf(tasks, "auth", project.NewMatcher("/r", true).Same)
	if ro, err := p.Resolve(own); err != nil || len(own) != 3 || !ro.Filed(4) {
		t.Fatalf("own-store links = %v, %v", own, err)
	}
	m, notes := ManifestOf(p, r)
	var got []string
	for _, it := range m.Items {
		if it.Metadata.PlanName != "auth" {
			t.Errorf("item %+v", it)
		}
		got = append(got, fmt.Sprintf("%d:%s", it.Metadata.PlanItem, it.Subject))
	}
	if strings.Join(got, ",") != "2:b,4:d,7:g" {
		t.Errorf("manifest = %v", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "item 6 (line 7) has no text") {
		t.Errorf("notes = %v", notes)
	}
	if m.Items[0].Metadata.PlanItemText != "b" {
		t.Errorf("planItemText = %q", m.Items[0].Metadata.PlanItemText)
	}
	p.Text = hashline.Split("1. [ ] a\n1. [ ] b\n")
	_, err = p.Resolve(links)
	wantCode(t, err, errcode.ValidationError, "numbers two items 1")
}

// Writers in parallel never lose an edit: each append without an anchor
// lands, under the lock.
func TestUpdateConcurrent(t *testing.T) {
	s := newStore(t)
	mustCreate(t, s, "p", "# Plan\n")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Update("p", []hashline.Edit{{Op: hashline.Append, Lines: []string{fmt.Sprintf("%d. [ ] item %d", i+1, i+1)}}}, false)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	p, err := s.Read("p")
	if err != nil {
		t.Fatal(err)
	}
	if got := ProgressOf(p.Items()).Total; got != 20 {
		t.Fatalf("%d items after 20 appends:\n%s", got, fileOf(t, s, "p"))
	}
}

func TestTemplate(t *testing.T) {
	tpl := Template("release-2-0")
	if !strings.HasPrefix(string(tpl), "# Release 2 0\n") {
		t.Errorf("title: %q", tpl[:20])
	}
	p := &Plan{Name: "x", Text: hashline.Split(string(tpl))}
	if got := ProgressOf(p.Items()); got != (Progress{0, 3}) {
		t.Errorf("template progress = %+v", got)
	}
	if len(tpl) > MaxBytes || checkContent(tpl) != nil {
		t.Error("template is not a valid plan")
	}
}
