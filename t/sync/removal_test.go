//go:build linux

package sync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
)

// historyOf reads the machine's local history of task id.
func (m *machine) historyOf(id string) []history.Event {
	data, _ := os.ReadFile(filepath.Join(m.dir, ".matrixx", "tasks", history.DirName, id+history.Ext))
	return history.Parse(data)
}

func removedEvents(evs []history.Event) (n int, commands []string) {
	for _, e := range evs {
		if e.Kind == history.Removed {
			n++
			commands = append(commands, e.Command)
		}
	}
	return n, commands
}

// TestRemoteRemovals: one commit pushed by someone else removes every
// record and every history from the branch. The sync keeps the pending
// and the in_progress task (reported removed_while_active, and pushed
// back to the branch), applies the removal of the completed one, keeps
// every local history file and records the applied removal in the
// completed task's history (command task-sync). A removal made by
// task-cleanup on another machine still comes through, without a
// conflict and without a second removed event.
func TestRemoteRemovals(t *testing.T) {
	bare, ms := newMachines(t, 2)
	a, b := ms[0], ms[1]
	pending := b.create("pending work")
	active := b.create("work in progress")
	b.must(nil, "", "task-update", active, "--status", "in_progress", "--owner", "b")
	done := b.create("finished work")
	b.must(nil, "", "task-update", done, "--status", "completed")
	b.sync()

	tip := gitIn(t, bare, nil, "rev-parse", "refs/heads/matrixx-tasks")
	empty := gitIn(t, bare, nil, "mktree")
	wipe := gitIn(t, bare, nil, "commit-tree", empty, "-p", tip, "-m", "wipe")
	gitIn(t, bare, nil, "update-ref", "refs/heads/matrixx-tasks", wipe, tip)

	ans := b.sync()
	kept := map[string]string{}
	for _, c := range ans.Conflicts {
		if c.Rule == "removed_while_active" {
			kept[c.ID] = string(c.Kept)
		}
	}
	if kept[pending] != `"pending"` || kept[active] != `"in_progress"` || len(kept) != 2 {
		t.Errorf("removed_while_active conflicts %v, want the pending and the in_progress task (answer %+v)", kept, ans)
	}
	files := b.files()
	for _, id := range []string{pending, active} {
		if _, ok := files["tasks/"+id+".json"]; !ok {
			t.Errorf("the active task %s was removed by the remote's commit", id)
		}
	}
	if _, ok := files["tasks/"+done+".json"]; ok {
		t.Errorf("the completed task %s was kept: its removal should apply", done)
	}
	for _, id := range []string{pending, active, done} {
		if len(b.historyOf(id)) == 0 {
			t.Errorf("the local history of %s is gone", id)
		}
	}
	if n, cmds := removedEvents(b.historyOf(done)); n != 1 || cmds[0] != "task-sync" {
		t.Errorf("the completed task's history holds %d removed events %v, want one by task-sync", n, cmds)
	}
	if n, _ := removedEvents(b.historyOf(pending)); n != 0 {
		t.Errorf("the kept task's history records a removal")
	}
	branch := gitIn(t, bare, nil, "ls-tree", "-r", "--name-only", "refs/heads/matrixx-tasks")
	for _, p := range []string{"tasks/" + pending + ".json", "tasks/" + active + ".json", "history/" + done + history.Ext} {
		if !strings.Contains(branch, p) {
			t.Errorf("the branch lacks %s after the push:\n%s", p, branch)
		}
	}
	if strings.Contains(branch, "tasks/"+done+".json") {
		t.Errorf("the branch still holds the removed record %s", done)
	}

	// A removal by task-cleanup elsewhere still syncs.
	a.sync()
	a.must(nil, "", "task-update", pending, "--status", "completed")
	a.must(nil, `{"all":true}`, "task-cleanup")
	if _, ok := a.files()["tasks/"+pending+".json"]; ok {
		t.Fatalf("task-cleanup kept the completed task %s", pending)
	}
	a.sync()
	ans = b.sync()
	for _, c := range ans.Conflicts {
		t.Errorf("a cleanup made elsewhere gave a conflict: %+v", c)
	}
	if _, ok := b.files()["tasks/"+pending+".json"]; ok {
		t.Errorf("the removal by task-cleanup on the other machine did not come through")
	}
	if n, cmds := removedEvents(b.historyOf(pending)); n != 1 || cmds[0] != "task-cleanup" {
		t.Errorf("the cleaned task's history holds %d removed events %v, want task-cleanup's only", n, cmds)
	}
}
