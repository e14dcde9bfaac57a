//go:build linux

package sync

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// gitIn runs git in the bare repository with stdin, returning its trimmed
// stdout.
func gitIn(t *testing.T, bare string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", bare}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@x",
		"GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@x")
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// TestHostileRemote: a sync branch pushed by someone else holds, under
// valid task and plan names, files that must never reach the store: a
// record that is not JSON, one whose id is not its file name, a symbolic
// link, JSON nested 100,000 deep, a blob over the record cap (sized by
// git, never read), a record that does not satisfy the schema and would
// replace a local task, a plan with a NUL byte and one over the plan cap.
// The sync refuses each by path and reason, writes none of them, brings in
// the remote's valid change, keeps the local task, and its push replaces
// the refused files on the branch with what the store holds.
func TestHostileRemote(t *testing.T) {
	bare, ms := newMachines(t, 2)
	a, b := ms[0], ms[1]
	shared := a.create("shared")
	a.sync()
	b.sync()
	local := b.create("local work")
	localBefore := b.files()["tasks/"+local+".json"]

	tip := gitIn(t, bare, nil, "rev-parse", "refs/heads/matrixx-tasks")
	blob := func(data []byte) string { return gitIn(t, bare, data, "hash-object", "-w", "--stdin") }
	newID := func() string {
		id, err := task.NewID()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	record := func(id, subject string) []byte {
		data, err := task.Encode(&task.Task{ID: id, Subject: subject, Status: task.Pending, ThreadID: "remote"})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	// The remote's valid change to the shared task.
	sharedRec := record(shared, "changed on the remote")
	bad := map[string]string{} // path → a word the reason must hold
	var tasks []string
	add := func(mode, name string, data []byte) string {
		tasks = append(tasks, fmt.Sprintf("%s blob %s\t%s", mode, blob(data), name))
		return "tasks/" + name
	}
	add("100644", shared+".json", sharedRec)
	bad[add("100644", newID()+".json", []byte("{not json"))] = "not a valid record"
	other := newID()
	bad[add("100644", newID()+".json", record(other, "wrong name"))] = other
	bad[add("120000", newID()+".json", []byte("/etc/passwd"))] = "symbolic link"
	deep := `{"id":"` + newID() + `","subject":"s","description":"","status":"pending","metadata":{"x":` +
		strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
	bad[add("100644", strings.TrimPrefix(strings.Split(deep, `"`)[3], "")+".json", []byte(deep))] = "malformed JSON"
	big := bytes.Repeat([]byte(" "), 17<<20) // over the 16 MiB record cap
	bad[add("100644", newID()+".json", big)] = "cap"
	bad[add("100644", local+".json", []byte(`{"id":"`+local+`","subject":"x","status":"bogus","description":""}`))] = "status"
	planNUL := fmt.Sprintf("100644 blob %s\tnul.md", blob([]byte("# Plan\n\x00\n")))
	planBig := fmt.Sprintf("100644 blob %s\tbig.md", blob(bytes.Repeat([]byte("- [ ] x\n"), 20000)))
	bad["plans/nul.md"] = "NUL"
	bad["plans/big.md"] = "cap"
	tasksTree := gitIn(t, bare, []byte(strings.Join(tasks, "\n")+"\n"), "mktree")
	plansTree := gitIn(t, bare, []byte(planNUL+"\n"+planBig+"\n"), "mktree")
	top := gitIn(t, bare, []byte(fmt.Sprintf("040000 tree %s\ttasks\n040000 tree %s\tplans\n", tasksTree, plansTree)), "mktree")
	commit := gitIn(t, bare, nil, "commit-tree", top, "-p", tip, "-m", "hostile")
	gitIn(t, bare, nil, "update-ref", "refs/heads/matrixx-tasks", commit, tip)

	var ans struct {
		Pulled  int `json:"pulled"`
		Refused []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"refused"`
	}
	b.must(&ans, "", "task-sync")
	got := map[string]string{}
	for _, r := range ans.Refused {
		got[r.Path] = r.Reason
		if len(r.Reason) > 400 {
			t.Errorf("%s: a %d-byte reason", r.Path, len(r.Reason))
		}
	}
	for p, word := range bad {
		reason, ok := got[p]
		switch {
		case !ok:
			t.Errorf("%s was not refused (answer %+v)", p, ans)
		case !strings.Contains(reason, word):
			t.Errorf("%s refused for %q, want a reason with %q", p, reason, word)
		}
	}
	if len(got) != len(bad) {
		t.Errorf("refused %d files, want %d: %+v", len(got), len(bad), ans)
	}
	files := b.files()
	for p := range bad {
		if p == "tasks/"+local+".json" {
			continue
		}
		if _, ok := files[p]; ok {
			t.Errorf("%s was written into the store", p)
		}
		if _, err := os.Lstat(filepath.Join(b.dir, ".matrixx", p)); err == nil {
			t.Errorf("%s exists in the store", p)
		}
	}
	if files["tasks/"+local+".json"] != localBefore {
		t.Errorf("the local task changed:\n%s\nwant\n%s", files["tasks/"+local+".json"], localBefore)
	}
	if !strings.Contains(files["tasks/"+shared+".json"], "changed on the remote") {
		t.Errorf("the remote's valid change did not come in: %s", files["tasks/"+shared+".json"])
	}

	// The push replaced the refused files on the branch: what it holds
	// now is what the store holds.
	listing := gitIn(t, bare, nil, "ls-tree", "-r", "--name-only", "refs/heads/matrixx-tasks")
	for p := range bad {
		if p != "tasks/"+local+".json" && strings.Contains(listing, p) {
			t.Errorf("%s is still on the branch after the push", p)
		}
	}
	if got := gitIn(t, bare, nil, "cat-file", "blob", "refs/heads/matrixx-tasks:tasks/"+local+".json"); got != strings.TrimSpace(localBefore) {
		t.Errorf("the branch holds the local task as %s", got)
	}
	if again := b.sync(); again.Pulled != 0 {
		t.Errorf("a second sync pulled %d", again.Pulled)
	}
	out, _ := b.run("", "task-sync")
	if strings.Contains(out, "refused") {
		t.Errorf("a second sync refused again: %s", out)
	}
}
