package history

import (
	"os"
	"slices"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The compaction rule (docs/history.md): each time an append takes a
// task's history file past a multiple of compactStep bytes, and the file
// then holds more than CompactAbove events, every event but the newest
// KeepEvents is folded into one compacted event: the task's state at the
// last folded event (as changes from nothing, so replays start there) and
// the time spent in each status until then. Its At is the last folded
// event's, so a task-sync merge drops the events it stands for (see
// Merge).
const (
	compactStep  = 1 << 20
	CompactAbove = 200
	KeepEvents   = 100
)

func (l *Log) compactIfDue(id string) error {
	evs, err := l.Events(id)
	if err != nil || len(evs) <= CompactAbove {
		return err
	}
	return l.write(id, Compact(id, evs, KeepEvents))
}

// Compact folds all but the newest keep events into one compacted event
// (see the rule above); fewer than keep+1 events are returned as they are.
func Compact(id string, evs []Event, keep int) []Event {
	if len(evs) <= keep {
		return evs
	}
	folded, kept := evs[:len(evs)-keep], evs[len(evs)-keep:]
	last := folded[len(folded)-1]
	c := Event{ID: last.ID, Task: id, At: last.At, Kind: Compacted, Hash: last.Hash}
	if st := Replay(id, folded); st != nil {
		c.Changes = Diff(nil, st)
	}
	c.Status = map[string]int64{}
	for s, d := range StatusTimes(folded, last.At) {
		c.Status[string(s)] = d.Milliseconds()
	}
	return append([]Event{c}, kept...)
}

// write replaces task id's history file with evs, durably (a rewrite, not
// an append: a crash must leave the old file or the new one).
func (l *Log) write(id string, evs []Event) error {
	var buf []byte
	for i := range evs {
		evs[i].Cursor = ""
		line, err := json.Marshal(&evs[i], json.Deterministic(true))
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
	}
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return err
	}
	return durable.WriteFile(l.File(id), buf, durable.Options{})
}

// Merge is the union of two versions of one task's history (task-sync):
// every event of either, once by id, ordered by At then id. When either
// holds a compacted event, the latest one stands for everything up to its
// At: the other side's events at or before it are dropped (they were
// folded, or are older than what the history keeps).
func Merge(a, b []Event) []Event {
	byID := map[string]Event{}
	var cut *Event
	for _, list := range [][]Event{a, b} {
		for _, e := range list {
			if _, ok := byID[e.ID]; ok {
				continue
			}
			e.Cursor = ""
			byID[e.ID] = e
			if e.Kind == Compacted && (cut == nil || e.At.After(cut.At) || (e.At.Equal(cut.At) && e.ID > cut.ID)) {
				c := e
				cut = &c
			}
		}
	}
	out := make([]Event, 0, len(byID))
	for _, e := range byID {
		if cut != nil && e.ID != cut.ID && !e.At.After(cut.At) {
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(x, y Event) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		if x.ID == cut.idOrEmpty() {
			return -1
		}
		if y.ID == cut.idOrEmpty() {
			return 1
		}
		if x.ID < y.ID {
			return -1
		}
		if x.ID > y.ID {
			return 1
		}
		return 0
	})
	return out
}

func (e *Event) idOrEmpty() string {
	if e == nil {
		return ""
	}
	return e.ID
}

// StatusTimes derives the time a task spent in each status from its
// events, up to now (for the status it is still in): a status starts at
// the event that set it; a compacted event contributes the times it
// carries. The task's creation starts its first status.
func StatusTimes(evs []Event, now time.Time) map[task.Status]time.Duration {
	out := map[task.Status]time.Duration{}
	var cur task.Status
	var since time.Time
	for _, e := range evs {
		if e.Kind == Compacted {
			for s, ms := range e.Status {
				out[task.Status(s)] += time.Duration(ms) * time.Millisecond
			}
		}
		if e.Kind == Removed {
			if cur != "" {
				out[cur] += e.At.Sub(since)
			}
			cur = ""
			continue
		}
		for _, c := range e.Changes {
			if c.Field != "status" || c.New == nil {
				continue
			}
			var s task.Status
			if json.Unmarshal(c.New, &s) != nil {
				continue
			}
			if cur != "" && e.Kind != Compacted {
				out[cur] += e.At.Sub(since)
			}
			cur, since = s, e.At
		}
	}
	if cur != "" && now.After(since) {
		out[cur] += now.Sub(since)
	}
	return out
}
