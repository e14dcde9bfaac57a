package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Path leases through the real Claude Code (docs/leases.md): session A
// claims a task with --paths 'src/api/**' and writes there; session B's
// Write, Edit and Bash sed -i of src/api/x.go are refused with the lease's
// reason reaching B's model, B's write elsewhere succeeds; once A's task
// is completed, B's write succeeds.

const sessionB = "7c2d9e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f"
const sessionC = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"

// leaseScenario runs A in pa and B in pb (the same checkout, or two
// worktrees of one repository) and checks the refusals and the release.
func leaseScenario(t *testing.T, pa, pb *Project, storeRoot string) {
	// Each session makes a handful of calls; a loaded 2-core machine
	// needs more than the default minute for some of them.
	pa.Timeout, pb.Timeout = 3*time.Minute, 3*time.Minute
	// The Stop hook would hold A (it holds a claim): not what is tested.
	writeConfig(t, &Project{Root: storeRoot}, `{"disabled_hooks":["task-continuation-enforcer"]}`)
	id := pa.createTask(t, "--subject", "Rewrite the API")
	for _, p := range []*Project{pa, pb} {
		if err := os.MkdirAll(filepath.Join(p.Root, "src", "api"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.Root, "src", "api", "x.go"), []byte("package api\n// original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	xa, xb := filepath.Join(pa.Root, "src", "api", "x.go"), filepath.Join(pb.Root, "src", "api", "x.go")

	// A claims with paths (the owner name is A's choice) and writes there.
	pa.Claude(t, Steps(
		Bash("task-claim "+id+" --owner agent-a --paths 'src/api/**'"),
		Call("Read", map[string]any{"file_path": xa}), // the host writes only files read first
		Call("Write", map[string]any{"file_path": xa, "content": "package api\n// by A\n"}),
	), "Claim the API task and start.", "--session-id", sessionA)
	if r := resultOf(t, pa.Server, 0); r.IsError || !strings.Contains(r.ResultText(), `"paths":["src/api/**"]`) {
		t.Fatalf("A's task-claim: is_error=%v %q", r.IsError, r.ResultText())
	}
	if r := resultOf(t, pa.Server, 2); r.IsError {
		t.Fatalf("A's own write was refused: %q", r.ResultText())
	}
	if got := readFile(t, xa); got != "package api\n// by A\n" {
		t.Fatalf("A's write did not land: %q", got)
	}
	before := readFile(t, xb)

	// B, another session: refused on the leased path, free elsewhere.
	other := filepath.Join(pb.Root, "src", "other.go")
	pb.Claude(t, Steps(
		Call("Read", map[string]any{"file_path": xb}),
		Call("Write", map[string]any{"file_path": xb, "content": "package api\n// by B\n"}),
		Call("Edit", map[string]any{"file_path": xb, "old_string": "package api", "new_string": "package api2"}),
		Bash(`sed -i 's/api/b/' src/api/x.go`),
		Call("Write", map[string]any{"file_path": other, "content": "package src\n"}),
	), "Change the API.", "--session-id", sessionB)
	if r := resultOf(t, pb.Server, 0); r.IsError {
		t.Errorf("B's read of the leased file was refused: %q", r.ResultText())
	}
	for i, what := range []string{"Write", "Edit", "Bash sed -i"} {
		r := resultOf(t, pb.Server, i+1)
		if !r.IsError {
			t.Errorf("B's %s of the leased file: not refused: %q", what, r.ResultText())
		}
		contains(t, "B's "+what+" tool_result", r.ResultText(), "leased to agent-a for task "+id, "Rewrite the API", "Do not change it now", "ask the holder")
	}
	if r := resultOf(t, pb.Server, 4); r.IsError {
		t.Errorf("B's write elsewhere was refused: %q", r.ResultText())
	}
	if got := readFile(t, xb); got != before {
		t.Errorf("the leased file changed under B: %q", got)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("B's write elsewhere did not land: %v", err)
	}

	// A completes: the lease ends; B (a later session) writes.
	pa.Run(t, "task-update", id, "--status", "completed")
	pb.Claude(t, Steps(
		Call("Read", map[string]any{"file_path": xb}),
		Call("Write", map[string]any{"file_path": xb, "content": "package api\n// by B\n"}),
	), "Change the API now.", "--session-id", sessionC)
	if r := resultOf(t, pb.Server, 1); r.IsError {
		t.Errorf("B's write after A completed: refused: %q", r.ResultText())
	}
	if got := readFile(t, xb); got != "package api\n// by B\n" {
		t.Errorf("B's write after the release did not land: %q", got)
	}
}

// TestLeaseOneCheckout: two sessions on one checkout.
func TestLeaseOneCheckout(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	leaseScenario(t, p, p, p.Root)
}

// TestLeaseTwoWorktrees: A in the main worktree, B in a linked worktree
// of the same repository (hooks installed in each checkout); the
// worktrees share one store, so A's lease holds in B's checkout.
func TestLeaseTwoWorktrees(t *testing.T) {
	t.Parallel()
	pa := newProject(t)
	wt := filepath.Join(filepath.Dir(pa.Root), "feature")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+pa.Home,
			"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	if err := os.WriteFile(filepath.Join(pa.Root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(pa.Root, "init", "-q", "-b", "main")
	git(pa.Root, "add", "README.md")
	git(pa.Root, "commit", "-q", "-m", "init")
	git(pa.Root, "worktree", "add", "-q", "-b", "feature", wt)
	pb := *pa
	pb.Root = wt
	pb.Run(t, "matrixx-hook", "install", "-C", wt)
	if _, err := os.Stat(filepath.Join(wt, ".claude", "settings.local.json")); err != nil {
		t.Fatalf("install in the worktree wrote no settings there: %v", err)
	}
	leaseScenario(t, pa, &pb, pa.Root)
	if _, err := os.Stat(filepath.Join(wt, ".matrixx", "tasks")); err == nil {
		t.Errorf("the worktree got a store of its own")
	}
}
