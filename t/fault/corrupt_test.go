//go:build linux

package fault

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// badFile is one way a T-*.json file can fail to be a record.
type badFile struct {
	kind string
	make func(dir, name string, good []byte) error
}

func writeFile(data []byte) func(dir, name string, good []byte) error {
	return func(dir, name string, _ []byte) error { return os.WriteFile(filepath.Join(dir, name), data, 0o644) }
}

// badKinds covers corrupt, foreign, empty and odd files. Each is written
// under a name that matches T-*.json.
var badKinds = []badFile{
	{"empty", writeFile(nil)},
	{"whitespace", writeFile([]byte(" \n\t\n"))},
	{"garbage", writeFile([]byte("not json at all \x00\x01"))},
	{"truncated", func(dir, name string, good []byte) error {
		return os.WriteFile(filepath.Join(dir, name), good[:len(good)/2], 0o644)
	}},
	{"foreign", writeFile([]byte(`{"name":"a foreign document","version":3}`))},
	{"array", writeFile([]byte(`[1,2,3]`))},
	{"null", writeFile([]byte(`null`))},
	{"mismatched-id", func(dir, name string, good []byte) error {
		return os.WriteFile(filepath.Join(dir, name), good, 0o644) // the id of another file
	}},
	{"bad-status", writeFile([]byte(`{"id":"T-x","subject":"s","description":"","status":"done","blocks":[],"blockedBy":[]}`))},
	{"unknown-key", writeFile([]byte(`{"id":"T-x","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[],"extra":1}`))},
	{"wrong-case", writeFile([]byte(`{"ID":"T-x","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[]}`))},
	{"duplicate-key", writeFile([]byte(`{"id":"T-x","id":"T-x","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[]}`))},
	{"invalid-utf8", writeFile([]byte("{\"id\":\"T-x\",\"subject\":\"\xff\xfe\",\"description\":\"\",\"status\":\"pending\",\"blocks\":[],\"blockedBy\":[]}"))},
	{"bom", func(dir, name string, good []byte) error {
		return os.WriteFile(filepath.Join(dir, name), append([]byte{0xEF, 0xBB, 0xBF}, good...), 0o644)
	}},
	{"directory", func(dir, name string, _ []byte) error { return os.Mkdir(filepath.Join(dir, name), 0o755) }},
	{"symlink", func(dir, name string, _ []byte) error {
		return os.Symlink("/etc/hostname", filepath.Join(dir, name))
	}},
	{"dangling-symlink", func(dir, name string, _ []byte) error {
		return os.Symlink("/nonexistent/record.json", filepath.Join(dir, name))
	}},
	{"fifo", func(dir, name string, _ []byte) error { return syscall.Mkfifo(filepath.Join(dir, name), 0o644) }},
}

// TestCorruptAndForeignFiles mixes thousands of corrupt, foreign, empty
// and odd T-*.json files (plus files outside the glob) into a store of
// valid tasks: every command completes, reports the bad files (task-list's
// problems and stderr, task-cleanup's problems, task_corrupt on get and
// update) and never changes or deletes them.
func TestCorruptAndForeignFiles(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	valid := []string{
		p.create(`{"subject":"Alpha"}`),
		p.create(`{"subject":"Beta"}`),
		p.create(`{"subject":"Gamma"}`),
	}
	p.mustCall("task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, valid[2]))
	good, err := os.ReadFile(filepath.Join(p.dir(), task.FileName(valid[0])))
	if err != nil {
		t.Fatal(err)
	}
	dir := p.dir()
	perKind := 200 * scale()
	bad := map[string]bool{} // file names
	for _, k := range badKinds {
		n := perKind
		if k.kind == "fifo" || k.kind == "directory" {
			n = 5
		}
		for i := range n {
			name := fmt.Sprintf("T-%s-%d.json", k.kind, i)
			if err := k.make(dir, name, good); err != nil {
				t.Fatal(err)
			}
			bad[name] = true
		}
	}
	// One record past the 16 MiB cap.
	huge := "T-huge-1.json"
	if err := os.WriteFile(filepath.Join(dir, huge), bytes.Repeat([]byte(" "), 17<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	bad[huge] = true
	// Files outside the T-*.json glob are not records and not problems.
	for _, name := range []string{"README.md", "notes.json", "T-.json", "T-x.json.bak", "t-lower.json", ".T-hidden.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d bad T-*.json files next to %d valid records", len(bad), len(valid))
	before := snapshotBad(t, dir, bad)

	// task-list: completes, lists the valid tasks, reports every bad file.
	r := p.mustCall("task-list", "", "--all")
	var list struct {
		Tasks    []struct{ ID string } `json:"tasks"`
		Problems []struct {
			File  string `json:"file"`
			Error string `json:"error"`
		} `json:"problems"`
	}
	if err := json.Unmarshal(r.stdout, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tasks) != len(valid) {
		t.Errorf("task-list --all: %d tasks, want %d", len(list.Tasks), len(valid))
	}
	reported := map[string]bool{}
	for _, pr := range list.Problems {
		reported[pr.File] = true
		if pr.Error == "" {
			t.Errorf("problem %s has no reason", pr.File)
		}
		if !bytes.Contains(r.stderr, []byte("skipped "+pr.File+":")) {
			t.Errorf("%s is in problems but not on stderr", pr.File)
		}
	}
	for name := range bad {
		if !reported[name] {
			t.Errorf("%s is not reported by task-list", name)
		}
	}
	if len(reported) != len(bad) {
		t.Errorf("task-list reports %d problems, want %d", len(reported), len(bad))
	}
	logReasons(t, list.Problems)

	// task-get and task-update: valid tasks work, bad files are
	// task_corrupt and stay as they are.
	for _, k := range badKinds {
		name := fmt.Sprintf("T-%s-0.json", k.kind)
		id := strings.TrimSuffix(name, ".json")
		if r := p.call("task-get", "", nil, id); r.code != 1 || r.errorCode() != "task_corrupt" {
			t.Errorf("task-get %s (%s): want task_corrupt, got %s", id, k.kind, r)
		}
		if r := p.call("task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, id), nil); r.code != 1 || r.errorCode() != "task_corrupt" {
			t.Errorf("task-update %s (%s): want task_corrupt, got %s", id, k.kind, r)
		}
	}
	p.get(valid[0])
	p.mustCall("task-update", fmt.Sprintf(`{"id":%q,"addBlockedBy":[%q],"status":"in_progress"}`, valid[0], valid[1]))

	// task-create: the dedup scan and the cycle check read past bad files.
	p.create(`{"subject":"Delta"}`)
	p.create(fmt.Sprintf(`{"subject":"Epsilon","blockedBy":[%q],"blocks":[%q]}`, valid[1], valid[0]))

	// task-cleanup: reports the bad files, deletes only the completed
	// record.
	r = p.mustCall("task-cleanup", "", "--dry-run")
	var dry struct {
		Deleted  int   `json:"deleted"`
		Problems []any `json:"problems"`
	}
	if err := json.Unmarshal(r.stdout, &dry); err != nil || dry.Deleted != 1 || len(dry.Problems) != len(bad) {
		t.Errorf("task-cleanup --dry-run: want 1 deletion and %d problems, got %d and %d (%v)", len(bad), dry.Deleted, len(dry.Problems), err)
	}
	r = p.mustCall("task-cleanup", "")
	var clean struct {
		DeletedIDs []string `json:"deletedIds"`
		Problems   []any    `json:"problems"`
	}
	if err := json.Unmarshal(r.stdout, &clean); err != nil || len(clean.DeletedIDs) != 1 || clean.DeletedIDs[0] != valid[2] || len(clean.Problems) != len(bad) {
		t.Errorf("task-cleanup: want %s deleted and %d problems, got %s", valid[2], len(bad), r.stdout)
	}
	sameSnapshot(t, "bad files", before, snapshotBad(t, dir, bad))
}

// snapshotBad records each bad file's type and content (without following
// links or opening FIFOs).
func snapshotBad(t *testing.T, dir string, bad map[string]bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name := range bad {
		path := filepath.Join(dir, name)
		fi, err := os.Lstat(path)
		if err != nil {
			continue // reported by sameSnapshot as disappeared
		}
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = "file:" + string(data)
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[name] = "link:" + target
		default:
			out[name] = fi.Mode().Type().String()
		}
	}
	return out
}

// logReasons logs one example reason per distinct message prefix.
func logReasons(t *testing.T, problems []struct {
	File  string `json:"file"`
	Error string `json:"error"`
}) {
	seen := map[string]bool{}
	for _, p := range problems {
		kind := strings.SplitN(strings.TrimPrefix(p.File, "T-"), "-", 2)[0]
		if !seen[kind] {
			seen[kind] = true
			t.Logf("%-10s %s", kind, p.Error)
		}
	}
}
