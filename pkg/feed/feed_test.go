package feed

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func rec(id, subject string, st task.Status, blockedBy ...string) *task.Task {
	return &task.Task{ID: id, Subject: subject, Status: st, BlockedBy: blockedBy, Blocks: []string{}}
}

func TestChangeEventKinds(t *testing.T) {
	a := rec("T-a", "a", task.Pending)
	claimed := rec("T-a", "a", task.InProgress)
	claimed.Owner = "bot"
	claimed.Metadata = task.Metadata{"claim": jsontext.Value(`{"owner":"bot","claimedAt":"2026-01-01T00:00:00.000Z"}`)}
	renewed := rec("T-a", "a", task.InProgress)
	renewed.Owner = "bot"
	renewed.Metadata = task.Metadata{"claim": jsontext.Value(`{"owner":"bot","claimedAt":"2026-01-01T00:00:00.000Z","renewedAt":"2026-01-01T00:05:00.000Z"}`)}
	taken := rec("T-a", "a", task.InProgress)
	taken.Owner = "other"
	done := rec("T-a", "a", task.Completed)
	gone := rec("T-a", "a", task.Deleted)
	renamed := rec("T-a", "b", task.Pending)
	renamed.Priority = "high"
	for _, tc := range []struct {
		name   string
		c      Change
		kind   Kind
		fields []string
		quiet  bool
	}{
		{"new file", Change{New: a}, Created, nil, false},
		{"file removed", Change{Old: a}, Deleted, nil, false},
		{"unreadable", Change{Old: a, Problem: "bad json"}, Unreadable, nil, false},
		{"claim", Change{Old: a, New: claimed}, Claimed, []string{"status", "owner", "metadata.claim"}, false},
		{"renewal only", Change{Old: claimed, New: renewed}, "", nil, true},
		{"takeover", Change{Old: claimed, New: taken}, Claimed, []string{"owner", "metadata.claim"}, false},
		{"completed", Change{Old: claimed, New: done}, Completed, []string{"status", "owner", "metadata.claim"}, false},
		{"deleted", Change{Old: a, New: gone}, Deleted, []string{"status"}, false},
		{"edit", Change{Old: a, New: renamed}, Updated, []string{"subject", "priority"}, false},
		{"edit outside", Change{Old: a, New: renamed, Outside: true}, Outside, []string{"subject", "priority"}, false},
		{"completed outside", Change{Old: a, New: done, Outside: true}, Completed, []string{"status"}, false},
	} {
		ev, ok := changeEvent(tc.c)
		if ok == tc.quiet {
			t.Errorf("%s: reported %v, want %v", tc.name, ok, !tc.quiet)
			continue
		}
		if tc.quiet {
			continue
		}
		if ev.Kind != tc.kind || !slices.Equal(ev.Fields, tc.fields) || ev.Outside != tc.c.Outside {
			t.Errorf("%s: got %s %v outside=%v, want %s %v", tc.name, ev.Kind, ev.Fields, ev.Outside, tc.kind, tc.fields)
		}
	}
}

func TestMatches(t *testing.T) {
	ev := &Event{Kind: Completed, Outside: true}
	if !Matches(ev, nil) || !Matches(ev, []Kind{Completed}) || !Matches(ev, []Kind{Outside}) || Matches(ev, []Kind{Claimed, Ready}) {
		t.Fatal("Matches")
	}
	if _, err := ParseKinds("completed, lease-expired"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", ",", "done"} {
		if _, err := ParseKinds(bad); err == nil {
			t.Errorf("ParseKinds(%q) accepted", bad)
		}
	}
}

// A feed over a real directory: the first step reads, later steps report
// created, ready/blocked transitions and lease expiry (by the clock alone).
func TestFeedSteps(t *testing.T) {
	dir := t.TempDir()
	write := func(tk *task.Task) {
		b, err := task.Encode(tk)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, task.FileName(tk.ID))
		if err := os.WriteFile(p+".tmp", b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(p+".tmp", p); err != nil {
			t.Fatal(err)
		}
	}
	blocker := rec("T-01a00000-0000-7000-8000-000000000001", "blocker", task.Pending)
	write(blocker)
	f := &Feed{W: &Watcher{Dir: dir}}
	now := time.Now()
	if evs, _, err := f.Step(now); err != nil || len(evs) != 0 {
		t.Fatalf("first step: %v %v", evs, err)
	}
	dep := rec("T-01a00000-0000-7000-8000-000000000002", "dep", task.Pending, blocker.ID)
	write(dep)
	evs, _, err := f.Step(now.Add(FullEvery))
	if err != nil || len(evs) != 2 || evs[0].Kind != Created || evs[1].Kind != Blocked || !slices.Equal(evs[1].BlockedBy, []string{blocker.ID}) {
		t.Fatalf("after a blocked create: %+v %v", evs, err)
	}
	if evs[0].Cursor == evs[1].Cursor || evs[0].Cursor == "" {
		t.Fatalf("cursors: %q %q", evs[0].Cursor, evs[1].Cursor)
	}
	held := rec(blocker.ID, "blocker", task.InProgress)
	held.Owner = "bot"
	exp := now.Add(3 * FullEvery)
	held.Metadata = task.Metadata{"claim": jsontext.Value(`{"owner":"bot","claimedAt":"` + now.UTC().Format("2006-01-02T15:04:05.000Z") + `","leaseMs":1000,"expiresAt":"` + exp.UTC().Format("2006-01-02T15:04:05.000Z") + `"}`)}
	write(held)
	evs, _, _ = f.Step(now.Add(2 * FullEvery))
	if len(evs) != 1 || evs[0].Kind != Claimed {
		t.Fatalf("claim: %+v", evs)
	}
	evs, _, _ = f.Step(exp.Add(time.Second))
	if len(evs) != 1 || evs[0].Kind != LeaseExpired || evs[0].Owner != "bot" {
		t.Fatalf("lease expiry: %+v", evs)
	}
	if evs, _, _ = f.Step(exp.Add(2 * time.Second)); len(evs) != 0 {
		t.Fatalf("lease expiry reported twice: %+v", evs)
	}
	write(rec(blocker.ID, "blocker", task.Completed))
	evs, _, _ = f.Step(exp.Add(3 * time.Second))
	if len(evs) != 2 || evs[0].Kind != Completed || evs[1].Kind != Ready || evs[1].ID != dep.ID {
		t.Fatalf("completion: %+v", evs)
	}
	if err := os.Remove(filepath.Join(dir, task.FileName(dep.ID))); err != nil {
		t.Fatal(err)
	}
	evs, _, _ = f.Step(exp.Add(4 * time.Second))
	if len(evs) != 1 || evs[0].Kind != Deleted || !evs[0].Removed {
		t.Fatalf("removal: %+v", evs)
	}
}
