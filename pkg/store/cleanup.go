package store

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// CleanupResult is task-cleanup's answer. With dryRun the
// counts say what would be deleted and nothing is.
type CleanupResult struct {
	Deleted    int      `json:"deleted"`
	Remaining  int      `json:"remaining"`
	DeletedIDs []string `json:"deletedIds"`
	DryRun     bool     `json:"dryRun,omitzero"`
	// KeptBlockers are completed tasks kept because an active task still
	// lists them in blockedBy: deleting them would block it again.
	KeptBlockers []string `json:"keptBlockers,omitempty"`
	// KeptPlanItems are completed tasks kept because the plan item they
	// were filed for is still unticked: deleting them would make plan
	// tasks file the item again. A task kept for both reasons is
	// listed under KeptBlockers only.
	KeptPlanItems []string  `json:"keptPlanItems,omitempty"`
	SweptTemps    []string  `json:"sweptTemps,omitempty"`
	Problems      []Problem `json:"problems,omitempty"`
}

// OpenPlanItem reports whether a completed task stands for a plan item
// that is still unticked (plan.OpenItems.Has); Cleanup keeps such tasks.
type OpenPlanItem func(t *task.Task) bool

// Cleanup deletes completed tasks and, when asked, deleted ones
// and stale active ones. A task's age is its file's mtime (strict
// records carry no timestamp fields). Corrupt files are reported, never
// deleted. Completed tasks still needed are kept: blockers of a task that
// stays active, and, when openItem is not nil, tasks whose plan item is
// still unticked. Temp files left by killed writers are swept.
// Errors: task_lock_unavailable, internal_error.
func (s *Store) Cleanup(req *task.CleanupRequest, openItem OpenPlanItem) (*CleanupResult, error) {
	res := &CleanupResult{DeletedIDs: []string{}, DryRun: req.DryRun}
	if !exists(s.Dir) {
		return res, nil
	}
	if req.DryRun {
		snap, err := s.Scan(ScanOptions{Mtime: true})
		if err != nil {
			return nil, err
		}
		s.selectForCleanup(snap, req, openItem, res)
		return res, nil
	}
	err := s.transact(func(tx *txn) error {
		snap, err := s.Scan(ScanOptions{Mtime: true})
		if err != nil {
			return err
		}
		ids := s.selectForCleanup(snap, req, openItem, res)
		status := make(map[string]task.Status, len(snap.Entries))
		for _, e := range snap.Entries {
			status[e.Task.ID] = e.Task.Status
		}
		res.DeletedIDs = res.DeletedIDs[:0]
		for _, id := range ids {
			if err := tx.keepAlive(); err != nil {
				return err
			}
			if err := tx.l.Check(); err != nil {
				return err
			}
			// Removed only if the file still holds a task of the status it
			// was selected with: a cleanup paused past its lock's stale
			// age never deletes a task another writer reopened meanwhile.
			want := status[id]
			path := filepath.Join(s.Dir, task.FileName(id))
			undo, err := s.Record.Removing(path)
			var gone *task.Task
			var goneData []byte
			if err == nil {
				err = durable.RemoveIf(path, func(data []byte) bool {
					t, err := task.DecodeRecord(data)
					gone, goneData = t, data
					return err == nil && t.ID == id && t.Status == want
				})
				if err != nil {
					undo()
				}
			}
			if errors.Is(err, durable.ErrChanged) {
				res.Problems = append(res.Problems, Problem{File: task.FileName(id), Error: "changed by another writer while this cleanup ran; kept"})
				continue
			}
			if err != nil && !os.IsNotExist(err) {
				res.Problems = append(res.Problems, Problem{File: task.FileName(id), Error: err.Error()})
				continue
			}
			// The dedup index may still name it: its lines go at the
			// shard's next compaction (a candidate is read before use).
			res.DeletedIDs = append(res.DeletedIDs, id)
			if tx.ready != nil {
				tx.ready.note(goneLine(id))
			}
			if err == nil {
				tx.recordEvent(history.Removed, gone, goneData)
			}
		}
		res.Remaining += len(ids) - len(res.DeletedIDs)
		res.Deleted = len(res.DeletedIDs)
		tx.dirty = tx.dirty || res.Deleted > 0
		res.SweptTemps, _ = durable.SweepTemps(s.Dir, lock.StaleAfter, s.now())
		if swept, _ := durable.SweepTemps(filepath.Join(s.Dir, indexDir), lock.StaleAfter, s.now()); len(swept) > 0 {
			for _, n := range swept {
				res.SweptTemps = append(res.SweptTemps, filepath.Join(indexDir, n))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.Record != nil {
		// The state kept outside projects: ledgers and list indexes of
		// projects nobody wrote for 30 days (at most once a day).
		integrity.Sweep(filepath.Dir(s.Record.Ledger), s.now())
	}
	return res, nil
}

// selectForCleanup fills res (as if everything selected were deleted) and
// returns the selected ids.
func (s *Store) selectForCleanup(snap *Snapshot, req *task.CleanupRequest, openItem OpenPlanItem, res *CleanupResult) []string {
	now := s.now()
	staleAge := s.StaleAfter
	if req.Age > 0 {
		staleAge = req.Age
	}
	var ids []string
	selected := map[string]bool{}
	for _, e := range snap.Entries {
		t := e.Task
		age := now.Sub(e.ModTime)
		switch {
		case t.Status == task.Completed || (t.Status == task.Deleted && req.IncludeDeleted):
			selected[t.ID] = req.Age == 0 || age > req.Age
		case t.Status.Active() && req.Stale:
			selected[t.ID] = staleAge > 0 && age > staleAge
		}
	}
	// A completed blocker of a task that stays active keeps it runnable;
	// deleting the blocker would make the dependent blocked forever (a
	// missing blocker is unresolved).
	needed := map[string]bool{}
	for _, e := range snap.Entries {
		if e.Task.Status.Active() && !selected[e.Task.ID] {
			for _, b := range e.Task.BlockedBy {
				needed[b] = true
			}
		}
	}
	for _, e := range snap.Entries {
		id := e.Task.ID
		switch {
		case !selected[id]:
		case e.Task.Status == task.Completed && needed[id]:
			res.KeptBlockers = append(res.KeptBlockers, id)
		case e.Task.Status == task.Completed && openItem != nil && openItem(e.Task):
			// plan sync has not ticked its item yet
			res.KeptPlanItems = append(res.KeptPlanItems, id)
		default:
			ids = append(ids, id)
		}
	}
	res.DeletedIDs = append(res.DeletedIDs, ids...)
	res.Deleted = len(ids)
	res.Remaining = len(snap.Entries) - len(ids)
	res.Problems = append(res.Problems, snap.Problems...)
	return ids
}
