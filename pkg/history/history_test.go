package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func rec(t testing.TB, tk *task.Task) []byte {
	b, err := task.Encode(tk)
	if err != nil && t != nil {
		t.Fatal(err)
	}
	return b
}

// write records the change from old (nil: new) to new as the store does.
func write(t *testing.T, l *Log, old, new *task.Task) {
	t.Helper()
	var before []byte
	if old != nil {
		before = rec(t, old)
	}
	e := &Event{Task: new.ID, Kind: Updated, Changes: Diff(old, new), Hash: Sum(rec(t, new))}
	if old == nil {
		e.Kind = Created
	}
	if err := l.Record(e, before, old); err != nil {
		t.Fatal(err)
	}
}

func TestRecordSinceAndExternal(t *testing.T) {
	dir := t.TempDir()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &Log{Dir: filepath.Join(dir, DirName), By: Actor{User: "ann"}, Command: "test", Now: func() time.Time { clock = clock.Add(time.Minute); return clock }}
	a := &task.Task{ID: "T-a", Subject: "one", Status: task.Pending}
	write(t, l, nil, a)
	b := *a
	b.Status = task.InProgress
	write(t, l, a, &b)
	page, err := l.Since("", 0)
	if err != nil || len(page.Events) != 2 || page.Gap {
		t.Fatalf("since start: %+v %v", page, err)
	}
	if page.Events[0].Kind != Created || page.Events[1].Changes[0].Field != "status" || page.Events[0].By.User != "ann" {
		t.Fatalf("events: %+v", page.Events)
	}
	next := page.Next
	if again, _ := l.Since(next, 0); len(again.Events) != 0 || again.Next != next {
		t.Fatalf("nothing new expected: %+v", again)
	}
	// Changed outside the toolkit: the next write finds the file's hash
	// differs from the last event's and records the difference first.
	outside := b
	outside.Subject = "edited by hand"
	c := outside
	c.Status = task.Completed
	write(t, l, &outside, &c)
	page, _ = l.Since(next, 0)
	if len(page.Events) != 2 || page.Events[0].Kind != External || page.Events[0].Changes[0].Field != "subject" || page.Events[1].Kind != Updated {
		t.Fatalf("external: %+v", page.Events)
	}
	if n, _ := strconv.Atoi(page.Events[0].Cursor); n <= 0 {
		t.Fatalf("cursor %q", page.Events[0].Cursor)
	}
	evs, _ := l.Events("T-a")
	if got := Replay("T-a", evs); got == nil || got.Subject != "edited by hand" || got.Status != task.Completed {
		t.Fatalf("replay: %+v", got)
	}
	times := StatusTimes(evs, clock)
	if times[task.Pending] != time.Minute || times[task.InProgress] != 2*time.Minute {
		t.Fatalf("status times: %v", times)
	}
	if _, err := l.Since("5", 0); err == nil {
		t.Fatal("a cursor inside a line must be refused")
	}
}

func TestAdoptedAndTornLine(t *testing.T) {
	l := &Log{Dir: filepath.Join(t.TempDir(), DirName)}
	a := &task.Task{ID: "T-b", Subject: "old", Status: task.Pending}
	b := *a
	b.Subject = "new"
	write(t, l, a, &b) // a task from before the history
	f, _ := os.OpenFile(l.File("T-b"), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"id":"torn","ki`) // a crash mid-append
	_ = f.Close()
	c := b
	c.Owner = "x"
	write(t, l, &b, &c)
	evs, _ := l.Events("T-b")
	if len(evs) != 3 || evs[0].Kind != Adopted || evs[1].Kind != Updated || evs[2].Changes[0].Field != "owner" {
		t.Fatalf("%+v", evs)
	}
}

func TestCompactAndMerge(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var evs []Event
	cur := &task.Task{ID: "T-c", Subject: "s", Status: task.Pending}
	evs = append(evs, Event{ID: "e000", Task: "T-c", At: base, Kind: Created, Changes: Diff(nil, cur)})
	for i := 1; i <= 10; i++ {
		n := *cur
		n.Description = fmt.Sprint(i)
		evs = append(evs, Event{ID: fmt.Sprintf("e%03d", i), Task: "T-c", At: base.Add(time.Duration(i) * time.Second), Kind: Updated, Changes: Diff(cur, &n)})
		cur = &n
	}
	c := Compact("T-c", evs, 3)
	if len(c) != 4 || c[0].Kind != Compacted || c[0].At != evs[7].At {
		t.Fatalf("compact: %+v", c)
	}
	if got := Replay("T-c", c); got == nil || got.Description != "10" {
		t.Fatalf("replay after compaction: %+v", got)
	}
	// The other machine still has every event and one of its own.
	mine := append(append([]Event{}, evs...), Event{ID: "z", Task: "T-c", At: base.Add(time.Hour), Kind: Updated})
	m := Merge(c, mine)
	if len(m) != 5 || m[0].Kind != Compacted || m[4].ID != "z" {
		t.Fatalf("merge: %+v", m)
	}
}

// BenchmarkRecord is the history's part of one write: the tail read, the
// task line and the feed line (what the store adds to a write).
func BenchmarkRecord(b *testing.B) {
	l := &Log{Dir: filepath.Join(b.TempDir(), DirName), By: Actor{Session: "s", Host: "h", User: "u"}, Command: "task-update"}
	old := &task.Task{ID: "T-0193d1c2-aaaa-7bbb-8ccc-000000000001", Subject: "one", Description: "a task of ordinary size with a description of a few words", Status: task.Pending, Blocks: []string{}, BlockedBy: []string{}}
	cur := *old
	before := rec(nil, old)
	for i := range b.N {
		n := cur
		n.Subject = fmt.Sprint("subject ", i)
		after, _ := task.Encode(&n)
		e := &Event{Task: n.ID, Kind: Updated, Changes: Diff(&cur, &n), Hash: Sum(after)}
		if err := l.Record(e, before, &cur); err != nil {
			b.Fatal(err)
		}
		cur, before = n, after
	}
}

// Since reads across a sealed segment and the current one, and a cursor
// older than the oldest kept segment gives a gap.
func TestSinceAcrossSegments(t *testing.T) {
	l := &Log{Dir: filepath.Join(t.TempDir(), DirName)}
	if err := os.MkdirAll(filepath.Join(l.Dir, sealedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	var task1 []byte
	seg := func(start int64, ids ...string) []byte {
		b := header(start)
		for _, id := range ids {
			b = fmt.Appendf(b, "T-x %s\n", id)
			task1 = fmt.Appendf(task1, `{"id":%q,"task":"T-x","at":"2026-01-01T00:00:00Z","kind":"updated"}`+"\n", id)
		}
		return b
	}
	s1 := seg(1000, "a", "b")
	cur := seg(1000+int64(len(s1)), "c")
	_ = os.WriteFile(l.sealedPath(1000), s1, 0o644)
	_ = os.WriteFile(filepath.Join(l.Dir, feedName), cur, 0o644)
	_ = os.WriteFile(l.File("T-x"), task1, 0o644)
	all, err := l.Since("", 0)
	if err != nil || len(all.Events) != 3 || !all.Gap {
		t.Fatalf("%+v %v", all, err)
	}
	for i := range 3 {
		p, err := l.Since(all.Events[i].Cursor, 0)
		if err != nil || len(p.Events) != 2-i || p.Gap {
			t.Fatalf("after %d: %+v %v", i, p, err)
		}
	}
	if p, _ := l.Since("", 1); len(p.Events) != 1 || p.Next != all.Events[0].Cursor {
		t.Fatalf("limit: %+v", p)
	}
}
