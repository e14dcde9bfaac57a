package store

import (
	"bytes"
	"path/filepath"
	"slices"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Update applies req to its task under the lock (spec §6.4, D8) and returns
// the task as stored. The file is re-read after the lock is taken. An
// update that changes nothing (no fields, or only values the record already
// has) writes nothing, so the file's mtime, which the Stop hook counts as
// progress, stays as it was (S14); changed reports whether it wrote.
// With req.Expect the update is a compare-and-swap: precondition_failed
// when the task no longer has the expected status/owner. Ids in
// addBlockedBy and addBlocks must name existing tasks (task_not_found
// naming the id); the other end of each new edge gets its mirror (blocks
// for blockedBy and back) in the same transaction. Status in_progress
// records metadata.claim, any other status ends it (docs/claims.md).
// Errors: task_not_found, task_corrupt (the file is left as it was),
// precondition_failed, dependency_cycle, validation_error,
// task_lock_unavailable, internal_error. Nothing is written on any error.
func (s *Store) Update(req *task.UpdateRequest) (*task.Task, bool, error) {
	if !exists(filepath.Join(s.Dir, task.FileName(req.ID))) {
		return nil, false, errcode.Field(errcode.TaskNotFound, "id", "no task %s in %s", req.ID, s.Dir)
	}
	var out *task.Task
	changed := false
	err := s.transact(func(tx *txn) error {
		t, err := tx.get(req.ID)
		if err != nil {
			return err
		}
		if t == nil {
			return errcode.Field(errcode.TaskNotFound, "id", "no task %s in %s", req.ID, s.Dir)
		}
		if err := req.Expect.Check(t); err != nil {
			return err
		}
		var blockedBy, blocks []string
		for _, id := range req.AddBlockedBy {
			if !slices.Contains(t.BlockedBy, id) {
				blockedBy = append(blockedBy, id)
			}
		}
		for _, id := range req.AddBlocks {
			if !slices.Contains(t.Blocks, id) {
				blocks = append(blocks, id)
			}
		}
		mirrors, err := tx.mirrorsFor(t.ID, blockedBy, blocks, "addBlockedBy", "addBlocks")
		if err != nil {
			return err
		}
		if err := tx.addEdges(task.EdgesOf(t.ID, blockedBy, blocks)); err != nil {
			return err
		}
		before, err := task.Encode(t)
		if err != nil {
			return err
		}
		prevStatus, prevOwner := t.Status, t.Owner
		req.Apply(t)
		updateClaim(t, prevStatus, prevOwner, req, s.Session, s.now())
		if after, err := task.Encode(t); err == nil && bytes.Equal(before, after) && len(mirrors) == 0 {
			// Nothing to change: no write, no threadID stamp, no mtime.
			// The unlink of .lock moved the directory's mtime: re-stamp
			// the (still valid) dedup index so creates need no rebuild.
			if tx.recent != nil {
				tx.recent.changed = true
			}
			out = t
			return nil
		}
		if t.ThreadID == "" {
			t.ThreadID = s.Session
		}
		if err := t.Validate(); err != nil {
			return err
		}
		if err := tx.write(t); err != nil {
			return err
		}
		if err := tx.writeMirrors(mirrors); err != nil {
			return err
		}
		out, changed = t, true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, changed, nil
}
