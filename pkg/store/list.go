package store

import (
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Reminder is the scheduling note task-list returns with every answer.
const Reminder = "1 task = 1 task. Maximize parallel execution: every pending task whose blockedBy is empty is runnable now; take it with task-claim right before work and mark it completed right after."

// ListResult is task-list's answer. Problems lists T-*.json
// files that could not be read; it is omitted when empty. Reminder is
// omitted when the store is empty or missing (no T-*.json file at all):
// the spec's "Empty or missing dir returns { tasks: [] }".
type ListResult struct {
	Tasks    []task.Summary `json:"tasks"`
	Reminder string         `json:"reminder,omitempty"`
	Problems []Problem      `json:"problems,omitempty"`
}

// List reads the store and returns summaries sorted by id (creation order
// for UUIDv7 ids). Without a status filter only active tasks are
// listed; blockedBy holds only unresolved blockers, resolved through a map
// of every readable task. Ready leaves out parents whose
// subtasks are still active (task.ActiveChildren).
func (s *Store) List(req *task.ListRequest) (*ListResult, error) {
	snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		return nil, err
	}
	return SummarizeAt(snap, req, s.now()), nil
}

// Summarize applies task-list's filters to a snapshot, marking expired
// claims as of now.
func Summarize(snap *Snapshot, req *task.ListRequest) *ListResult {
	return SummarizeAt(snap, req, time.Now())
}

// SummarizeAt is Summarize with the clock given: an in_progress task whose
// claim's lease ended at or before now gets claimExpired:true
// (docs/claims.md).
func SummarizeAt(snap *Snapshot, req *task.ListRequest, now time.Time) *ListResult {
	status := make(map[string]task.Status, len(snap.Entries))
	for _, e := range snap.Entries {
		status[e.Task.ID] = e.Task.Status
	}
	var parents map[string][]string
	if req.Ready {
		parents = task.ActiveChildren(snap.Tasks())
	}
	res := &ListResult{Tasks: []task.Summary{}, Reminder: Reminder, Problems: snap.Problems}
	if len(snap.Entries) == 0 && len(snap.Problems) == 0 {
		res.Reminder = "" // an empty or missing store
	}
	for _, e := range snap.Entries {
		t := e.Task
		switch {
		case req.Status != "":
			if t.Status != req.Status {
				continue
			}
		case req.All:
		default:
			if !t.Status.Active() {
				continue
			}
		}
		if req.ParentID != "" && t.ParentID != req.ParentID {
			continue
		}
		unresolved := task.Unresolved(t.BlockedBy, status)
		if req.Ready && (t.Status != task.Pending || len(unresolved) > 0 || len(parents[t.ID]) > 0) {
			continue
		}
		res.Tasks = append(res.Tasks, summaryOf(t, unresolved, now))
	}
	return res
}

// summaryOf is t's task-list entry.
func summaryOf(t *task.Task, unresolved []string, now time.Time) task.Summary {
	sum := task.Summary{
		ID: t.ID, Subject: t.Subject, Status: t.Status, Owner: t.Owner,
		BlockedBy: unresolved, ParentID: t.ParentID,
	}
	if t.Status == task.InProgress {
		if _, ok := t.Metadata[claim.Key]; ok {
			c := claim.Of(t)
			sum.ClaimExpired = c.Expired(now)
			if c != nil {
				sum.Paths, sum.Worktree, sum.Branch = c.Paths, c.Worktree, c.Branch
			}
		}
	}
	return sum
}
