package store

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Update applies req to its task under the lock and returns
// the task as stored. The file is re-read after the lock is taken. An
// update that changes nothing (no fields, or only values the record already
// has) writes nothing, so the file's mtime, which the Stop hook counts as
// progress, stays as it was; changed reports whether it wrote.
// With req.Expect the update is a compare-and-swap: precondition_failed
// when the task no longer has the expected status/owner. req.If is a
// precondition checked on the record as re-read under the lock, before
// anything else: when it reports false nothing is written and changed is
// false. Ids in
// addBlockedBy and addBlocks must name existing tasks (task_not_found
// naming the id); the other end of each new edge gets its mirror (blocks
// for blockedBy and back) in the same transaction. Status in_progress
// records metadata.claim, any other status ends it (docs/claims.md).
// Errors: task_not_found, task_corrupt (the file is left as it was),
// removeBlockedBy and removeBlocks remove edges, both ends under the same
// lock (an edge neither end records is validation_error).
// precondition_failed, claim_conflict (see claimGuard), dependency_cycle, validation_error,
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
		out, changed, err = tx.update(t, req)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return out, changed, nil
}

// update applies req to t, the task as read under the lock (Update's
// rules), and writes it and the other ends of changed edges.
func (tx *txn) update(t *task.Task, req *task.UpdateRequest) (*task.Task, bool, error) {
	s := tx.s
	if err := req.Expect.Check(t); err != nil {
		return nil, false, err
	}
	if req.If != nil && !req.If(t) {
		// The caller's precondition does not hold: nothing is
		// written, not even the mirrors of new edges.
		return t, false, nil
	}
	if err := claimGuard(t, req, s.Session, s.now()); err != nil {
		return nil, false, err
	}
	if req.Status != nil && *req.Status == task.Completed && t.Status != task.Completed && !req.Force {
		if err := tx.childrenDone(t.ID); err != nil {
			return nil, false, err
		}
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
	mirrors, err := tx.edgeMirrors(t, blockedBy, blocks, "addBlockedBy", "addBlocks", req.RemoveBlockedBy, req.RemoveBlocks)
	if err != nil {
		return nil, false, err
	}
	tx.removeEdges(task.EdgesOf(t.ID, req.RemoveBlockedBy, req.RemoveBlocks))
	if err := tx.addEdges(task.EdgesOf(t.ID, blockedBy, blocks)); err != nil {
		return nil, false, err
	}
	before, err := task.Encode(t)
	if err != nil {
		return nil, false, err
	}
	prevStatus, prevOwner := t.Status, t.Owner
	if req.Owner != nil {
		tx.owner = *req.Owner
	}
	req.Apply(t)
	updateClaim(t, prevStatus, prevOwner, req, s.Session, s.now())
	if after, err := task.Encode(t); err == nil && bytes.Equal(before, after) && len(mirrors) == 0 {
		// Nothing to change: no write, no threadID stamp, no mtime.
		// (The unlink of .lock moved the directory's mtime: the
		// still valid dedup index is re-stamped, as after every
		// transaction.)
		return t, false, nil
	}
	if t.ThreadID == "" {
		t.ThreadID = s.Session
	}
	if err := t.Validate(); err != nil {
		return nil, false, err
	}
	if err := tx.write(t); err != nil {
		return nil, false, err
	}
	if err := tx.writeMirrors(mirrors); err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// childrenDone refuses (children_active, naming them) completing a task
// whose subtasks are still pending or in_progress.
func (tx *txn) childrenDone(id string) error {
	kids, err := tx.activeChildren(id)
	if err != nil || len(kids) == 0 {
		return err
	}
	shown := kids
	if len(shown) > 10 {
		shown = shown[:10]
	}
	more := ""
	if len(kids) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(kids)-len(shown))
	}
	return errcode.New(errcode.ChildrenActive, "%s has %d subtask(s) still active: %s%s; complete them first, or force it (--force, \"force\":true); nothing was written",
		id, len(kids), strings.Join(shown, ", "), more)
}

// claimGuard refuses (claim_conflict) an update that would take a task
// from the owner of its live claim: one that sets status in_progress or
// changes the owner, unless it is the holder's own (the resulting owner is
// the claim's owner and, for in_progress, the session is the claim's or
// the claim has none) or its expect.owner names the claim's owner (a
// deliberate reassignment by someone who looked). docs/claims.md.
func claimGuard(t *task.Task, req *task.UpdateRequest, session string, now time.Time) error {
	c := claim.Live(t, now)
	if c == nil || c.Owner == "" {
		return nil
	}
	if req.Expect != nil && req.Expect.Owner != nil && *req.Expect.Owner == c.Owner {
		return nil
	}
	owner := t.Owner
	if req.Owner != nil {
		owner = *req.Owner
	}
	toInProgress := req.Status != nil && *req.Status == task.InProgress
	if !toInProgress && owner == t.Owner {
		return nil
	}
	if session == project.NoSession {
		session = ""
	}
	if owner == c.Owner && (!toInProgress || c.Session == "" || c.Session == session) {
		return nil
	}
	until := "with no lease (it does not expire)"
	if exp, ok := c.Expiry(); ok {
		until = "until " + claim.Stamp(exp)
	}
	return errcode.New(errcode.ClaimConflict, "%s is claimed by %s %s: task-update does not take a claimed task over (task-claim %s --owner NAME takes it once the claim expires; to reassign it deliberately, add --expect-owner %s)",
		t.ID, c.Owner, until, t.ID, c.Owner)
}
