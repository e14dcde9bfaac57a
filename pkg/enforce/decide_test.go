package enforce

import (
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

var now = time.Date(2026, 9, 27, 16, 0, 0, 0, time.UTC)

// rec builds a store entry: id, status, thread, with options.
func rec(id string, status task.Status, thread string, opts ...func(*task.Task, *time.Time)) store.Entry {
	t := &task.Task{ID: id, Subject: "subject of " + id, Status: status, ThreadID: thread, Blocks: []string{}, BlockedBy: []string{}}
	mtime := now.Add(-time.Minute)
	for _, o := range opts {
		o(t, &mtime)
	}
	return store.Entry{Task: t, ModTime: mtime}
}

func idle(d time.Duration) func(*task.Task, *time.Time) {
	return func(_ *task.Task, m *time.Time) { *m = now.Add(-d) }
}
func blockedBy(ids ...string) func(*task.Task, *time.Time) {
	return func(t *task.Task, _ *time.Time) { t.BlockedBy = ids }
}
func parent(id string) func(*task.Task, *time.Time) {
	return func(t *task.Task, _ *time.Time) { t.ParentID = id }
}
func owner(o string) func(*task.Task, *time.Time) {
	return func(t *task.Task, _ *time.Time) { t.Owner = o }
}

func input(entries ...store.Entry) Input {
	return Input{Session: "S", SessionScoped: true, StaleAfter: 24 * time.Hour, Now: now, Entries: entries}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name  string
		in    Input
		block bool
		why   string // substring of Why
		line  string // status line when blocking
	}{
		{"nothing", input(), false, "no incomplete", ""},
		{"one pending", input(rec("T-1", task.Pending, "S")), true, "block 1/3", "1 incomplete (0 in_progress, 1 pending)"},
		{"other sessions and no session ignored", input(
			rec("T-1", task.Pending, "other"), rec("T-2", task.Pending, "no-session"), rec("T-3", task.Pending, "")),
			false, "no incomplete", ""},
		{"unscoped counts all", func() Input {
			in := input(rec("T-1", task.Pending, "other"), rec("T-2", task.InProgress, "no-session"), rec("T-3", task.Pending, ""))
			in.SessionScoped = false
			return in
		}(), true, "", "3 incomplete (1 in_progress, 2 pending)"},
		{"completed and deleted are done", input(rec("T-1", task.Completed, "S"), rec("T-2", task.Deleted, "S")), false, "no incomplete", ""},
		{"subtask of a finished parent is resolved", input(
			rec("T-1", task.Completed, "S"), rec("T-2", task.Pending, "S", parent("T-1")),
			rec("T-3", task.Deleted, "other"), rec("T-4", task.Pending, "S", parent("T-3"))), false, "no incomplete", ""},
		{"subtask of an open parent stays", input(rec("T-1", task.InProgress, "S"), rec("T-2", task.Pending, "S", parent("T-1"))),
			true, "", "2 incomplete (1 in_progress, 1 pending)"},
		{"subtask of a missing parent stays", input(rec("T-2", task.Pending, "S", parent("T-9"))), true, "", "1 incomplete (0 in_progress, 1 pending)"},
		{"blocked only", input(rec("T-1", task.Pending, "other"), rec("T-2", task.Pending, "S", blockedBy("T-1"))),
			false, "only stale or blocked", ""},
		{"missing and deleted blockers stay unresolved", input(rec("T-1", task.Deleted, "S"), rec("T-2", task.Pending, "S", blockedBy("T-1", "T-404"))),
			false, "only stale or blocked", ""},
		{"completed blocker resolves", input(rec("T-1", task.Completed, "S"), rec("T-2", task.Pending, "S", blockedBy("T-1"))),
			true, "", "1 incomplete (0 in_progress, 1 pending)"},
		{"in_progress with blockers still counts", input(rec("T-2", task.InProgress, "S", blockedBy("T-404"))), true, "", "1 incomplete (1 in_progress, 0 pending)"},
		{"stale only", input(rec("T-1", task.Pending, "S", idle(25*time.Hour)), rec("T-2", task.InProgress, "S", idle(48*time.Hour))),
			false, "only stale or blocked", ""},
		{"mixed", input(rec("T-1", task.Pending, "S", idle(30*time.Hour)), rec("T-2", task.Pending, "S"),
			rec("T-3", task.Pending, "S", blockedBy("T-2")), rec("T-4", task.InProgress, "S")),
			true, "", "4 incomplete (1 in_progress, 3 pending; 1 blocked, 1 stale)"},
		{"background running", func() Input { in := input(rec("T-1", task.Pending, "S")); in.Background = 1; return in }(), false, "background", ""},
		{"no session id", func() Input { in := input(rec("T-1", task.Pending, "")); in.Session = ""; return in }(), false, "no incomplete", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Decide(tt.in, State{})
			if out.Block != tt.block || !strings.Contains(out.Why, tt.why) {
				t.Fatalf("block %v, why %q", out.Block, out.Why)
			}
			if tt.block {
				if got := StatusLine(out.Queue); got != tt.line {
					t.Errorf("status line %q, want %q", got, tt.line)
				}
				if !strings.HasPrefix(out.Reason, "matrixx: "+tt.line+".") || !out.Save || out.State.Blocks != 1 {
					t.Errorf("reason %q, state %+v", out.Reason, out.State)
				}
			}
		})
	}
}

func TestDirectiveOrderAndAnnotations(t *testing.T) {
	in := input(
		rec("T-1", task.Pending, "S", idle(30*time.Hour)),
		rec("T-2", task.Pending, "S"),
		rec("T-3", task.Pending, "S", blockedBy("T-2")),
		rec("T-4", task.InProgress, "S"),
	)
	out := Decide(in, State{})
	want := "- T-4 [in_progress] subject of T-4\n" +
		"- T-2 [pending] subject of T-2\n" +
		"- T-3 [pending, blocked by T-2] subject of T-3\n" +
		"- T-1 [pending] subject of T-1 (stale: 30h)\n"
	if !strings.Contains(out.Reason, want) {
		t.Errorf("reason:\n%s", out.Reason)
	}
	if !strings.Contains(out.Reason, "no file activity for over 24h and may be orphans") {
		t.Errorf("no orphan note:\n%s", out.Reason)
	}
	// without stale tasks, no orphan note
	out = Decide(input(rec("T-2", task.Pending, "S")), State{})
	if strings.Contains(out.Reason, "orphans") {
		t.Errorf("orphan note without stale tasks")
	}
}

func TestDirectiveCapsTheList(t *testing.T) {
	var entries []store.Entry
	for i := range 25 {
		entries = append(entries, rec("T-"+string(rune('a'+i)), task.Pending, "S"))
	}
	out := Decide(input(entries...), State{})
	if strings.Count(out.Reason, "\n- T-") != maxListed || !strings.Contains(out.Reason, "… and 5 more") {
		t.Errorf("reason:\n%s", out.Reason)
	}
}

// TestNoProgressCap: the same task state is blocked MaxBlocks times, then
// let through; any change starts over.
func TestNoProgressCap(t *testing.T) {
	in := input(rec("T-1", task.Pending, "S"))
	var st State
	for i := 1; i <= MaxBlocks; i++ {
		out := Decide(in, st)
		if !out.Block || out.State.Blocks != i {
			t.Fatalf("stop %d: block %v, blocks %d", i, out.Block, out.State.Blocks)
		}
		st = out.State
	}
	if out := Decide(in, st); out.Block || !strings.Contains(out.Why, "no task progress") {
		t.Fatalf("past the cap: %+v", out)
	}
	// progress: the file was touched
	in.Entries[0].ModTime = in.Entries[0].ModTime.Add(time.Second)
	if out := Decide(in, st); !out.Block || out.State.Blocks != 1 {
		t.Fatalf("after progress: %+v", out)
	}
}

func TestFingerprint(t *testing.T) {
	base := func() Queue { return Build(input(rec("T-1", task.Pending, "S"), rec("T-2", task.Completed, "S"))) }
	fp := Fingerprint(base())
	if Fingerprint(base()) != fp {
		t.Fatal("not stable")
	}
	changes := []Input{
		input(rec("T-1", task.InProgress, "S"), rec("T-2", task.Completed, "S")),
		input(rec("T-1", task.Pending, "S", idle(time.Hour)), rec("T-2", task.Completed, "S")),
		input(rec("T-1", task.Pending, "S"), rec("T-2", task.Completed, "S"), rec("T-3", task.Deleted, "S")),
		input(rec("T-1", task.Pending, "S")),
	}
	for i, in := range changes {
		if Fingerprint(Build(in)) == fp {
			t.Errorf("change %d kept the fingerprint", i)
		}
	}
	// other sessions' changes are not this session's progress
	if Fingerprint(Build(input(rec("T-1", task.Pending, "S"), rec("T-2", task.Completed, "S"), rec("T-9", task.Pending, "other")))) != fp {
		t.Error("another session's task changed the fingerprint")
	}
}

func TestSubagent(t *testing.T) {
	in := input(
		rec("T-1", task.InProgress, "S", owner("agent_7f")),
		rec("T-2", task.Pending, "S", owner("agent_7f")),
		rec("T-3", task.InProgress, "S", owner("someone-else")),
		rec("T-4", task.InProgress, "S"),
		rec("T-5", task.InProgress, "S", owner("Explore")),
		rec("T-6", task.InProgress, "S", owner("agent_7f"), idle(48*time.Hour)),
	)
	in.Subagent, in.AgentID, in.AgentType = true, "agent_7f", "general-purpose"
	out := Decide(in, State{})
	if !out.Block || len(out.Queue.Items) != 2 || out.Queue.Items[0].Task.ID != "T-1" || out.Queue.Items[1].Task.ID != "T-6" {
		t.Fatalf("%+v", out.Queue.Items)
	}
	if !strings.Contains(out.Reason, "you (general-purpose agent_7f) still hold 2 in_progress task(s)") || !strings.Contains(out.Reason, "(stale: 48h)") {
		t.Errorf("reason:\n%s", out.Reason)
	}
	in.AgentID, in.AgentType = "agent_99", "Explore"
	out = Decide(in, State{})
	if !out.Block || len(out.Queue.Items) != 1 || out.Queue.Items[0].Task.ID != "T-5" {
		t.Errorf("by type: %+v", out.Queue.Items)
	}
	in.AgentID, in.AgentType = "", ""
	if out := Decide(in, State{}); out.Block {
		t.Error("a subagent without id or type is held by unowned tasks")
	}
}

func TestHours(t *testing.T) {
	for d, want := range map[time.Duration]string{30 * time.Hour: "30h", 90 * time.Minute: "1h", 30 * time.Minute: "30m", 24 * time.Hour: "24h", 59*time.Minute + 59*time.Second: "59m"} {
		if got := hours(d); got != want {
			t.Errorf("hours(%v) = %s, want %s", d, got, want)
		}
	}
}

// TestWindow: a configured window prints as people write it, never
// rounded to a different value (0.25h was printed "0.2h").
func TestWindow(t *testing.T) {
	for h, want := range map[float64]string{0.25: "15m", 0.5: "30m", 0.75: "45m", 1: "1h", 1.5: "1.5h", 2.25: "2.25h", 24: "24h", 0.3: "18m", 1.333: "1.33h"} {
		if got := Window(time.Duration(h * float64(time.Hour))); got != want {
			t.Errorf("Window(%vh) = %s, want %s", h, got, want)
		}
	}
}

// TestDirectiveStuckBlockers: a task blocked by a deleted or missing
// blocker would wait forever; the directive says which blocker and what to
// do instead of "waits until its blockers are completed".
func TestDirectiveStuckBlockers(t *testing.T) {
	in := input(
		rec("T-1", task.Deleted, "S"),
		rec("T-2", task.Pending, "S"),
		rec("T-3", task.Pending, "S", blockedBy("T-1", "T-2")),
		rec("T-4", task.Pending, "S", blockedBy("T-404")),
		rec("T-5", task.Pending, "S", blockedBy("T-2")),
	)
	out := Decide(in, State{})
	if !out.Block {
		t.Fatalf("want a block: %s", out.Why)
	}
	for _, want := range []string{
		"- T-3 [pending, blocked by T-1 (deleted), T-2] subject of T-3\n",
		"- T-4 [pending, blocked by T-404 (missing)] subject of T-4\n",
		"- T-5 [pending, blocked by T-2] subject of T-5\n",
		"T-3 can never start as things stand: its blocker T-1 is deleted (if that work is done or no longer needed, mark it completed: task-update T-1 --status completed); re-plan it",
		"T-4 can never start as things stand: its blocker T-404 is not in the task store, so it can never be completed; re-plan it (create a replacement task with task-create without that blocker, then task-update T-4 --status deleted)",
	} {
		if !strings.Contains(out.Reason, want) {
			t.Errorf("directive lacks %q:\n%s", want, out.Reason)
		}
	}
	if strings.Contains(out.Reason, "T-5 can never start") {
		t.Errorf("T-5 waits on a live blocker:\n%s", out.Reason)
	}
	q := Build(in)
	for _, it := range q.Items {
		if stuck := it.Task.ID == "T-3" || it.Task.ID == "T-4"; it.Stuck() != stuck {
			t.Errorf("%s: Stuck() = %v", it.Task.ID, it.Stuck())
		}
	}
}
