package tasksync

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// RemovedWhileActive is the conflict rule of a record the remote removed
// while it is pending or in_progress here: the removal is not applied, the
// local record is kept (and pushed back). The toolkit's own removal,
// task-cleanup, only removes completed or deleted tasks and records the
// removal in the task's history, so a removal without that event was made
// behind its back (docs/sync.md, "The record merge").
const RemovedWhileActive = "removed_while_active"

// keepRemoved looks at the files the remote removed (present in the merge
// base and here, absent from theirs) and puts back into theirs the ones
// whose removal is not applied: every history file (the toolkit never
// removes one; a task's history stays when its record goes) and every
// record, unchanged here since the base, whose local status is pending or
// in_progress and whose removal the remote's history of the task does not
// record (its last event is not removed, as task-cleanup writes it),
// reported as RemovedWhileActive. A record changed here
// since the base is left to merge3 (removed_vs_changed). It reports
// whether the result needs a merge commit rather than a fast-forward: a
// file was put back, or an applied removal of a record comes without a
// removed event in the task's history (recordRemovals adds one).
func (r *repo) keepRemoved(res *contract.SyncResult, base, ours, theirs files, local map[string][]byte) (bool, error) {
	var gone []string
	for p := range ours {
		if _, ok := theirs[p]; !ok && base[p] != "" {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone) // history/ before tasks/
	force := false
	for _, p := range gone {
		ob := ours[p]
		switch {
		case isHistory(p):
			theirs[p] = ob
			force = true
		case strings.HasPrefix(p, "tasks/") && ob == base[p]:
			data, err := r.content(p, ob, local, nil)
			if err != nil {
				return false, err
			}
			t, err := task.DecodeRecord(data)
			if err != nil {
				continue // not a valid record: the removal applies, as before
			}
			hp := historyPath(t.ID)
			hist, err := r.content(hp, theirs[hp], local, nil)
			if err != nil {
				return false, err
			}
			switch {
			case endsRemoved(hist):
				// task-cleanup removed it elsewhere (after it was completed
				// or deleted there) and recorded the removal.
			case t.Status.Active():
				theirs[p] = ob
				force = true
				res.Conflicts = append(res.Conflicts, contract.SyncConflict{ID: t.ID, Field: "file", Kept: jsonString(string(t.Status)), Rule: RemovedWhileActive})
			default:
				force = true // recordRemovals records it
			}
		}
	}
	return force, nil
}

// recordRemovals adds a removed event (command task-sync) to the history
// of every record the merge removed (in have, absent from want) whose
// history does not already end with one (the removal was not made by
// task-cleanup, which records it), as task-cleanup records its own: the
// new history goes into want and contents, so it is written here and
// pushed with the merge.
func (r *repo) recordRemovals(have, want files, local, contents map[string][]byte) error {
	by := history.Here(os.Getenv)
	for p := range have {
		if _, ok := want[p]; ok || !strings.HasPrefix(p, "tasks/") {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), ".json")
		hp := historyPath(id)
		hist, err := r.content(hp, want[hp], local, contents)
		if err != nil {
			return err
		}
		if endsRemoved(hist) {
			continue
		}
		u, err := uuid.NewV7()
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "recording the removal of %s", id)
		}
		ev, err := history.Encode([]history.Event{{ID: u.String(), Task: id, At: time.Now().UTC(), Kind: history.Removed, By: by, Command: "task-sync"}})
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "recording the removal of %s", id)
		}
		merged, err := history.MergeFiles(id, hist, ev)
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "recording the removal of %s", id)
		}
		contents[hp] = merged
		want[hp] = r.hashBlob(merged)
	}
	return nil
}

// content reads the file p of blob oid: from contents or local when they
// hold it, else from git (nil for oid "").
func (r *repo) content(p, oid string, local, contents map[string][]byte) ([]byte, error) {
	if oid == "" {
		return nil, nil
	}
	for _, m := range []map[string][]byte{contents, local} {
		if d, ok := m[p]; ok && r.hashBlob(d) == oid {
			return d, nil
		}
	}
	return r.blob(oid)
}

func historyPath(id string) string { return "history/" + id + history.Ext }

// endsRemoved reports whether a history file's last event is a removal.
func endsRemoved(data []byte) bool {
	evs := history.Parse(data)
	return len(evs) > 0 && evs[len(evs)-1].Kind == history.Removed
}
