package store

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// recordHistory records, in s.History, the write of t (data) that
// replaced before (nil: a new task); keep says the write kept the file's
// mtime (bookkeeping: a lease renewal, a mirror edge). A history that
// cannot be written does not undo the write, which stands: the failure is
// noted on Log, and the task's next write records the gap as an external
// change (docs/history.md).
func (tx *txn) recordHistory(t *task.Task, before, data []byte, keep bool) {
	h := tx.s.History
	if h == nil {
		return
	}
	var old *task.Task
	if before != nil {
		o, err := task.DecodeRecord(before)
		if err != nil {
			before = nil // unreadable before: the history says what is there now
		} else {
			old = o
		}
	}
	changes := history.Diff(old, t)
	if len(changes) == 0 && old != nil {
		return
	}
	e := &history.Event{Task: t.ID, Kind: tx.kind, Changes: changes, Hash: history.Sum(data), Undoes: tx.undoes}
	if e.Kind == "" {
		e.Kind = kindOf(old, t, changes, keep)
	}
	e.By.Owner = tx.owner
	if tx.mirroring {
		e.Of = tx.primary
	}
	if err := h.Record(e, before, old); err != nil {
		tx.s.logf("warning: the history of %s was not recorded (%v); the change stands", t.ID, err)
		return
	}
	if !tx.mirroring {
		tx.primary = e.ID
	}
}

// recordEvent records an event that comes with no write (a lease found
// expired, a record removed): current is the record's bytes as read
// under the lock.
func (tx *txn) recordEvent(kind history.Kind, t *task.Task, current []byte) {
	h := tx.s.History
	if h == nil || t == nil {
		return
	}
	e := &history.Event{Task: t.ID, Kind: kind}
	if kind != history.Removed {
		e.Hash = history.Sum(current)
	}
	e.By.Owner = tx.owner
	if err := h.Record(e, current, t); err != nil {
		tx.s.logf("warning: the history of %s was not recorded (%v)", t.ID, err)
	}
}

// kindOf names a change: by its status transition, else a new owner of an
// in_progress task (claimed), a bookkeeping write that only moved the
// claim (lease_renewed), else updated.
func kindOf(old, t *task.Task, changes []history.Change, keep bool) history.Kind {
	if old == nil {
		return history.Created
	}
	if old.Status != t.Status {
		switch {
		case t.Status == task.Completed:
			return history.Completed
		case t.Status == task.Deleted:
			return history.Deleted
		case !old.Status.Active():
			return history.Reopened
		case t.Status == task.InProgress:
			return history.Claimed
		default:
			return history.Released
		}
	}
	if t.Status == task.InProgress && old.Owner != t.Owner {
		return history.Claimed
	}
	if keep && len(changes) == 1 && changes[0].Field == history.MetadataPrefix+"claim" {
		return history.LeaseRenewed
	}
	return history.Updated
}

// TaskHistory returns task id's events, oldest first; nil when the store
// keeps no history or the task has none.
func (s *Store) TaskHistory(id string) ([]history.Event, error) {
	if s.History == nil {
		return nil, nil
	}
	return s.History.Events(id)
}

// HistoryAnswer is a task's history for readers (task-get --history):
// its events, oldest first, and the time it spent in each status (in
// milliseconds, up to now for the status it is in), derived from them.
type HistoryAnswer struct {
	Events       []history.Event  `json:"events"`
	TimeInStatus map[string]int64 `json:"timeInStatus"`
}

// HistoryOf returns task id's history (empty when it has none). It takes
// no lock.
func (s *Store) HistoryOf(id string) (*HistoryAnswer, error) {
	evs, err := s.TaskHistory(id)
	if err != nil {
		return nil, err
	}
	out := &HistoryAnswer{Events: evs, TimeInStatus: map[string]int64{}}
	if out.Events == nil {
		out.Events = []history.Event{}
	}
	for st, d := range history.StatusTimes(evs, s.now()) {
		out.TimeInStatus[string(st)] = d.Milliseconds()
	}
	return out, nil
}
