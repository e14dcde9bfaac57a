//go:build linux

package fault

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// mountTmpfs mounts a tmpfs of size bytes and unmounts it when the test
// ends. Tests run as root, where permissions do not bite, so a real small
// filesystem is the honest way to make writes fail; the test is skipped
// (with the reason) where mounting is not possible.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=755", size)); err != nil {
		t.Skipf("cannot mount a size-limited tmpfs here (%v; needs root or CAP_SYS_ADMIN): skipping", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// snapshot maps every file under dir (relative path) to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameSnapshot reports the differences between two snapshots.
func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: new file %s", what, k)
		} else if before[k] != after[k] {
			t.Errorf("%s: %s changed", what, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%s: %s disappeared", what, k)
		}
	}
}

// fill writes a file until the filesystem is full, then frees keep bytes.
func fill(t *testing.T, path string, keep int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(max(0, n-keep)); err != nil {
		t.Fatal(err)
	}
}

// wantToolError requires exit 1 with the flat envelope's code and a
// message holding every fragment.
func wantToolError(t *testing.T, what string, r result, code string, fragments ...string) {
	t.Helper()
	var env struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(r.stdout, &env); err != nil || r.code != 1 || env.Error != code {
		t.Errorf("%s: want exit 1 with %s, got %s", what, code, r)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(env.Message, f) {
			t.Errorf("%s: message %q does not mention %q", what, env.Message, f)
		}
	}
}

// wantItemError requires task-create's envelope with no task created, one
// item error of code whose message holds every fragment, and exit 1 (D7).
func wantItemError(t *testing.T, what string, r result, code string, fragments ...string) {
	t.Helper()
	var env struct {
		Tasks  []any `json:"tasks"`
		Errors []struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.stdout, &env); err != nil || r.code != 1 || len(env.Tasks) != 0 || len(env.Errors) != 1 || env.Errors[0].Error != code {
		t.Errorf("%s: want exit 1 with one %s item error, got %s", what, code, r)
		return
	}
	for _, f := range fragments {
		if !strings.Contains(env.Errors[0].Message, f) {
			t.Errorf("%s: message %q does not mention %q", what, env.Errors[0].Message, f)
		}
	}
}

// TestDiskFull: on a full filesystem task-create and task-update fail
// with internal_error naming the file (the record, or .lock when not even
// the lock fits), exit 1, and change nothing: no new or half-written
// record, no temp file left, the lock released.
func TestDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, 1<<20)
	p := newProject(t, filepath.Join(mnt, "proj"))
	p.home = filepath.Join(t.TempDir(), "home") // config lookups stay off the small disk
	ids := []string{p.create(`{"subject":"First"}`), p.create(`{"subject":"Second"}`)}
	big := strings.Repeat("x", 256<<10)

	// Room for the lock, not for a 256 KiB record.
	fill(t, filepath.Join(mnt, "filler"), 16<<10)
	before := snapshot(t, p.root)
	r := p.call("task-create", fmt.Sprintf(`{"subject":"Too big","description":%q}`, big), nil)
	wantItemError(t, "create on a full disk", r, "internal_error", "writing T-", ".json", "no space left on device")
	r = p.call("task-update", fmt.Sprintf(`{"id":%q,"description":%q}`, ids[0], big), nil)
	wantToolError(t, "update on a full disk", r, "internal_error", "writing "+ids[0]+".json", "no space left on device")
	sameSnapshot(t, "after failed writes", before, snapshot(t, p.root))
	// Small writes still fit.
	p.mustCall("task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress"}`, ids[1]))
	validateStore(t, p.dir())

	// No room at all: not even .lock can be written.
	fill(t, filepath.Join(mnt, "filler2"), 0)
	before = snapshot(t, p.root)
	r = p.call("task-create", `{"subject":"Nothing fits"}`, nil)
	wantToolError(t, "create on a disk with no room", r, "internal_error", ".lock", "no space left on device")
	r = p.call("task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, ids[0]), nil)
	wantToolError(t, "update on a disk with no room", r, "internal_error", ".lock", "no space left on device")
	sameSnapshot(t, "after failed writes", before, snapshot(t, p.root))
	// Reads still work.
	if got := p.get(ids[1]); got.Status != "in_progress" {
		t.Errorf("task-get on a full disk: %+v", got)
	}
	p.mustCall("task-list", "")
}

// TestReadOnlyStore: on a read-only filesystem the readers work and every
// writer fails with internal_error naming the path, exit 1, nothing
// changed.
func TestReadOnlyStore(t *testing.T) {
	mnt := mountTmpfs(t, 4<<20)
	p := newProject(t, filepath.Join(mnt, "proj"))
	p.home = filepath.Join(t.TempDir(), "home")
	a := p.create(`{"subject":"Active"}`)
	done := p.create(`{"subject":"Done"}`)
	p.mustCall("task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, done))
	if err := unix.Mount("", mnt, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	before := snapshot(t, p.root)
	for _, c := range []struct {
		name, stdin string
		args        []string
	}{
		{"task-create", `{"subject":"New"}`, nil},
		{"task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress"}`, a), nil},
		{"task-cleanup", "", nil},
	} {
		r := p.call(c.name, c.stdin, nil, c.args...)
		wantToolError(t, c.name+" on a read-only store", r, "internal_error", p.dir(), "read-only file system")
	}
	sameSnapshot(t, "read-only store", before, snapshot(t, p.root))
	if got := p.get(a); got.Subject != "Active" {
		t.Errorf("task-get: %+v", got)
	}
	r := p.mustCall("task-list", "", "--all")
	var ans struct {
		Tasks []any `json:"tasks"`
	}
	if err := json.Unmarshal(r.stdout, &ans); err != nil || len(ans.Tasks) != 2 {
		t.Errorf("task-list --all on a read-only store: %s", r)
	}
	// A dry run reads only.
	p.mustCall("task-cleanup", "", "--dry-run")
}

// TestDiskFullRestorePending: a task file removed during a tool call while
// the disk is full cannot be written back by the post-call check. The
// agent is told exactly that — not put back yet, the good copy is kept,
// the next check puts it back — and not that it was put back or lost;
// once there is room, the next check writes it back.
func TestDiskFullRestorePending(t *testing.T) {
	mnt := mountTmpfs(t, 1<<20)
	p := newProject(t, filepath.Join(mnt, "proj"))
	p.home = filepath.Join(t.TempDir(), "home") // the ledger stays off the small disk
	if err := os.MkdirAll(filepath.Join(p.root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	id := p.create(fmt.Sprintf(`{"subject":"Big","description":%q}`, strings.Repeat("x", 300<<10)))
	env := []string{"CLAUDE_PROJECT_DIR=" + p.root}
	event := func(name, extra string) string {
		r := p.call("matrixx-hook", `{"session_id":"s1","cwd":`+strconv.Quote(p.root)+`,"hook_event_name":"`+name+`"`+extra+`}`, env)
		if r.code != 0 {
			t.Fatalf("%s: %s", name, r)
		}
		return string(r.stdout)
	}
	call := `,"tool_name":"Bash","tool_use_id":"toolu_1","tool_input":{"command":"rm x"}`
	event("SessionStart", `,"source":"startup"`)
	event("PreToolUse", call)
	path := filepath.Join(p.dir(), task.FileName(id))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(mnt, "filler"), 16<<10) // room for .lock, not for the record
	out := event("PostToolUse", call+`,"tool_response":{}`)
	for _, want := range []string{"pending", "next check puts it back", "none of them could be put back"} {
		if !strings.Contains(out, want) {
			t.Errorf("the answer on a full disk does not say %q: %s", want, out)
		}
	}
	for _, wrong := range []string{"they were put back", "lost"} {
		if strings.Contains(out, wrong) {
			t.Errorf("the answer on a full disk says %q: %s", wrong, out)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the file is back although the disk is full")
	}
	if err := os.Remove(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	event("PreToolUse", strings.Replace(call, "toolu_1", "toolu_2", 1))
	out = event("PostToolUse", strings.Replace(call, "toolu_1", "toolu_2", 1)+`,"tool_response":{}`)
	if got := p.get(id); got.Subject != "Big" {
		t.Errorf("the next check did not put the task back: %+v (answer %s)", got, out)
	}
}
