package store

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// UndoRequest names the change to revert: Event, an event id or its last
// 8 or more characters; or, when empty, the latest change made by By (the
// same user and host, and the same session when By has one) that is not
// an undo itself and was not undone yet.
type UndoRequest struct {
	Event string
	By    history.Actor
}

// UndoResult is what Undo did: the task as stored and the event reverted.
type UndoResult struct {
	Task   *task.Task    `json:"task"`
	Undone history.Event `json:"undone"`
}

// undoable are the kinds an undo can revert: changes a person or an agent
// made (not the toolkit's own bookkeeping, nor changes from outside).
var undoable = map[history.Kind]bool{
	history.Created: true, history.Updated: true, history.Claimed: true, history.Completed: true,
	history.Deleted: true, history.Reopened: true, history.Released: true,
}

// Undo reverts one event through the store, as a compare-and-swap: no
// later event of its task but the toolkit's bookkeeping (the other end of
// another task's dependency, a lease renewal) and later changes reverted
// by later undos (each pair cancels out), the record still what the
// last event left (its hash) and every field the event set still holding
// that value; else precondition_failed names what changed since and
// nothing is written. Reverting sets every field the event
// changed back to its old value (dependencies with their other ends, as
// task-update's removeBlockedBy/addBlockedBy do; the claim follows the
// status as in task-update); reverting created deletes the task (status
// deleted). The write is recorded as an undone event naming the event.
// Errors: nothing_to_undo, precondition_failed, task_not_found,
// claim_conflict, dependency_cycle, task_lock_unavailable, internal_error.
func (s *Store) Undo(req UndoRequest) (*UndoResult, error) {
	if s.History == nil {
		return nil, errcode.New(errcode.NothingToUndo, "this store keeps no history")
	}
	taskID, eventID, err := s.findUndo(req)
	if err != nil {
		return nil, err
	}
	if !exists(filepath.Join(s.Dir, task.FileName(taskID))) {
		return nil, errcode.New(errcode.NothingToUndo, "%s no longer exists (removed by task-cleanup): its changes cannot be reverted", taskID)
	}
	res := &UndoResult{}
	err = s.transact(func(tx *txn) error {
		t, data, _, err := s.readFull(taskID)
		if err != nil {
			return err
		}
		if t == nil {
			return errcode.Field(errcode.TaskNotFound, "id", "no task %s in %s", taskID, s.Dir)
		}
		tx.remember(taskID, data)
		evs, err := s.History.Events(taskID)
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "reading the history of %s", taskID)
		}
		i := -1
		for k := range evs {
			if evs[k].ID == eventID {
				i = k
			}
		}
		if i < 0 {
			return errcode.New(errcode.NothingToUndo, "event %s is no longer in %s's history (compacted)", eventID, taskID)
		}
		e := evs[i]
		if !undoable[e.Kind] {
			return errcode.New(errcode.NothingToUndo, "event %s is %s: only changes made with the toolkit (created, updated, claimed, completed, deleted, reopened, released) can be undone", short(e.ID), e.Kind)
		}
		// Changed since: any later event but the toolkit's bookkeeping
		// (another task's edge mirrored here, a lease renewal), a file
		// that is not what the last event left, a field no longer what
		// e set.
		// A later change that a later undo reverted cancels out with that
		// undo: neither counts (the fields are checked below all the same).
		at := make(map[string]int, len(evs))
		for k, ev := range evs {
			at[ev.ID] = k
		}
		reverted := map[string]bool{}
		for _, later := range evs[i+1:] {
			if k, ok := at[later.Undoes]; later.Kind == history.Undone && ok && k > i {
				reverted[later.Undoes], reverted[later.ID] = true, true
			}
		}
		var since []string
		for _, later := range evs[i+1:] {
			if later.Of == "" && later.Kind != history.LeaseRenewed && !reverted[later.ID] {
				since = append(since, describe(later))
			}
		}
		if last := evs[len(evs)-1]; len(since) == 0 && last.Hash != history.Sum(data) {
			since = append(since, "the file changed outside the toolkit")
		}
		for _, c := range e.Changes {
			if len(since) > 0 || e.Kind == history.Created || c.Field == "threadID" || c.Field == history.MetadataPrefix+"claim" {
				continue
			}
			if !bytes.Equal(history.Value(t, c.Field), c.New) {
				since = append(since, c.Field+" is no longer what it set")
			}
		}
		if len(since) > 0 {
			return errcode.New(errcode.PreconditionFailed, "%s changed since %s %s: %s; nothing was undone", taskID, e.Kind, short(e.ID), strings.Join(since, "; "))
		}
		up, err := reverse(t, e)
		if err != nil {
			return err
		}
		// Checked above that nothing changed since e: a claim e made is
		// reverted deliberately (the guard's expect.owner rule).
		owner := t.Owner
		up.Expect = &task.Expect{Owner: &owner}
		tx.kind, tx.undoes = history.Undone, e.ID
		out, _, err := tx.update(t, up)
		if err != nil {
			return err
		}
		res.Task, res.Undone = out, e
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// findUndo returns the task and the event an undo request names.
func (s *Store) findUndo(req UndoRequest) (string, string, error) {
	page, err := s.History.Since("", 0)
	if err != nil {
		return "", "", errcode.Wrap(errcode.InternalError, err, "reading the history")
	}
	evs := page.Events
	if req.Event != "" {
		if len(req.Event) < 8 {
			return "", "", errcode.New(errcode.InvalidArguments, "an event is named by its id or its last 8 or more characters (matrixx log shows them)")
		}
		var found []history.Event
		for _, e := range evs {
			if strings.HasSuffix(e.ID, req.Event) {
				found = append(found, e)
			}
		}
		switch len(found) {
		case 0:
			return "", "", errcode.New(errcode.NothingToUndo, "no event %s in this store's history", req.Event)
		case 1:
			return found[0].Task, found[0].ID, nil
		}
		return "", "", errcode.New(errcode.AmbiguousID, "%s names %d events: give more of the id", req.Event, len(found))
	}
	undone := map[string]bool{}
	for _, e := range evs {
		if e.Undoes != "" {
			undone[e.Undoes] = true
		}
	}
	for k := len(evs) - 1; k >= 0; k-- {
		e := evs[k]
		if e.Kind == history.Undone || e.Of != "" || undone[e.ID] || !undoable[e.Kind] {
			continue
		}
		if e.By.User != req.By.User || e.By.Host != req.By.Host || (req.By.Session != "" && e.By.Session != req.By.Session) {
			continue
		}
		return e.Task, e.ID, nil
	}
	who := req.By.User + "@" + req.By.Host
	return "", "", errcode.New(errcode.NothingToUndo, "no change by %s to undo in this store's history", who)
}

// reverse is the update that sets back what e changed on t.
func reverse(t *task.Task, e history.Event) (*task.UpdateRequest, error) {
	up := &task.UpdateRequest{ID: t.ID}
	if e.Kind == history.Created {
		st := task.Deleted
		up.Status = &st
		return up, nil
	}
	str := func(v []byte) (*string, error) {
		var s string
		if v != nil {
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, err
			}
		}
		return &s, nil
	}
	list := func(v []byte) ([]string, error) {
		var l []string
		if v != nil {
			if err := json.Unmarshal(v, &l); err != nil {
				return nil, err
			}
		}
		return l, nil
	}
	for _, c := range e.Changes {
		var err error
		switch c.Field {
		case "subject":
			up.Subject, err = str(c.Old)
		case "description":
			up.Description, err = str(c.Old)
		case "activeForm":
			up.ActiveForm, err = str(c.Old)
		case "owner":
			up.Owner, err = str(c.Old)
		case "status":
			var v *string
			if v, err = str(c.Old); err == nil {
				st := task.Status(*v)
				up.Status = &st
			}
		case "priority":
			var v *string
			if v, err = str(c.Old); err == nil {
				p := task.Priority(*v)
				up.Priority = &p
			}
		case "blockedBy", "blocks":
			var old, cur []string
			if old, err = list(c.Old); err != nil {
				break
			}
			if cur, err = list(c.New); err != nil {
				break
			}
			add, remove := setDiff(old, cur), setDiff(cur, old)
			if c.Field == "blockedBy" {
				up.AddBlockedBy, up.RemoveBlockedBy = add, remove
			} else {
				up.AddBlocks, up.RemoveBlocks = add, remove
			}
		case "threadID":
			// the stamp of the session that wrote: not reverted
		case history.MetadataPrefix + "claim":
			// the claim follows the status (task-update's rules)
		default:
			k, ok := strings.CutPrefix(c.Field, history.MetadataPrefix)
			if !ok {
				return nil, errcode.New(errcode.NothingToUndo, "event %s changed %s, which cannot be set back (create-only)", short(e.ID), c.Field)
			}
			if up.Metadata == nil {
				up.Metadata = task.Metadata{}
			}
			if c.Old == nil {
				up.Metadata[k] = []byte("null")
			} else {
				up.Metadata[k] = c.Old
			}
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "event %s's %s", short(e.ID), c.Field)
		}
	}
	return up, nil
}

// setDiff returns the ids of a that b lacks, in a's order.
func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

func short(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// describe says one event in a line: kind, fields, who, when.
func describe(e history.Event) string {
	var fields []string
	for _, c := range e.Changes {
		fields = append(fields, c.Field)
	}
	who := e.By.Owner
	if who == "" {
		who = e.By.User
	}
	if who == "" {
		who = e.By.Session
	}
	out := string(e.Kind)
	if len(fields) > 0 {
		out += " " + strings.Join(fields, ", ")
	}
	if who != "" {
		out += " by " + who
	}
	return fmt.Sprintf("%s at %s (event %s)", out, e.At.Local().Format("2006-01-02 15:04:05"), short(e.ID))
}
