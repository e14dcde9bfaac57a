//go:build linux

package sync

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestGitMergeDriver: a project that tracks its tasks on the working
// branch (the opt-in of docs/sync.md) merges a branch where both sides
// added blockers, changed the status and edited metadata: `git merge`
// calls the registered driver and the record comes out merged by the
// documented rules, with no conflict left to a person.
func TestGitMergeDriver(t *testing.T) {
	_, ms := newMachines(t, 1)
	m := ms[0]
	os.WriteFile(filepath.Join(m.dir, ".gitignore"), []byte(".matrixx/state/\n.matrixx/tasks/.*\n"), 0o644)
	ids := make([]string, 4)
	for i := range ids {
		ids[i] = m.create("t" + string(rune('0'+i)))
	}
	id, b0, b1, b2 := ids[0], ids[1], ids[2], ids[3]
	m.must(nil, "", "task-update", id, "--add-blocked-by", b0, "--metadata", `{"k":1}`)
	g := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir, cmd.Env = m.dir, m.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	g("add", ".gitignore", ".matrixx/tasks")
	g("commit", "-q", "-m", "tasks on the working branch")
	m.must(nil, "", "task-sync", "setup")
	g("checkout", "-q", "-b", "side")
	m.must(nil, "", "task-update", id, "--add-blocked-by", b1, "--status", "completed", "-s", "from side", "--metadata", `{"side":"s"}`)
	g("commit", "-q", "-am", "side")
	g("checkout", "-q", "main")
	m.must(nil, "", "task-update", id, "--add-blocked-by", b2, "--status", "in_progress", "--owner", "me", "--metadata", `{"k":2,"main":"m"}`)
	g("commit", "-q", "-am", "main")
	out := g("merge", "--no-edit", "side")
	if strings.Contains(out, "CONFLICT") {
		t.Fatalf("git merge left a conflict:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(m.dir, ".matrixx", "tasks", id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := task.DecodeRecord(data)
	if err != nil {
		t.Fatalf("merged record invalid: %v\n%s", err, data)
	}
	if !slices.Equal(r.BlockedBy, []string{b0, b2, b1}) {
		t.Errorf("blockedBy = %v, want both sides' blockers %v", r.BlockedBy, []string{b0, b2, b1})
	}
	if r.Status != task.Completed || r.Subject != "from side" || r.Owner != "me" {
		t.Errorf("status %s subject %q owner %q: want completed (status order), side's subject, main's owner", r.Status, r.Subject, r.Owner)
	}
	if string(r.Metadata["k"]) != "2" || string(r.Metadata["main"]) != `"m"` || string(r.Metadata["side"]) != `"s"` {
		t.Errorf("metadata %v: want k 2 (changed on main only) and both sides' keys", r.Metadata)
	}
	if _, ok := r.Metadata["claim"]; ok {
		t.Errorf("a completed task keeps no claim: %s", data)
	}
	if st := g("status", "--porcelain"); strings.Contains(st, "UU") {
		t.Errorf("unmerged paths: %s", st)
	}
}
