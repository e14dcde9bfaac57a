package store

import (
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
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

// FullListResult is task-list's answer with full: each task's whole
// record, as task-get prints it (blockedBy lists every blocker, resolved
// ones included).
type FullListResult struct {
	Tasks    []*task.Task `json:"tasks"`
	Reminder string       `json:"reminder,omitempty"`
	Problems []Problem    `json:"problems,omitempty"`
}

// List reads the store and returns summaries sorted by id (creation order
// for UUIDv7 ids). Without a status filter only active tasks are
// listed; blockedBy holds only unresolved blockers, resolved through a map
// of every readable task. Ready leaves out parents whose
// subtasks are still active (task.ActiveChildren).
//
// The scan decodes (or takes from the list index) only the list fields;
// when the filters need more (labels, text) or the answer is the whole
// records (full), the records of the tasks that pass the filters on list
// fields are read again whole, one file each, and the rest never are.
func (s *Store) List(req *task.ListRequest) (*ListResult, error) {
	snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		return nil, err
	}
	if req.NeedsRecords() {
		s.readCandidates(snap, req)
	}
	return SummarizeAt(snap, req, s.now()), nil
}

// ListFull is List answering whole records (req.Full).
func (s *Store) ListFull(req *task.ListRequest) (*FullListResult, error) {
	snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		return nil, err
	}
	s.readCandidates(snap, req)
	sum := SummarizeAt(snap, req, s.now())
	byID := make(map[string]*task.Task, len(sum.Tasks))
	for _, e := range snap.Entries {
		byID[e.Task.ID] = e.Task
	}
	res := &FullListResult{Tasks: make([]*task.Task, 0, len(sum.Tasks)), Reminder: sum.Reminder, Problems: sum.Problems}
	for _, t := range sum.Tasks {
		res.Tasks = append(res.Tasks, byID[t.ID])
	}
	return res, nil
}

// readCandidates replaces, in snap, the list fields of every task that
// passes req's filters on list fields (task.ListRequest.Selects) by its
// whole record, read now. A file that is gone since the scan leaves the
// snapshot; one that can no longer be read as a task becomes a problem.
func (s *Store) readCandidates(snap *Snapshot, req *task.ListRequest) {
	kept := snap.Entries[:0]
	for _, e := range snap.Entries {
		if req.Selects(e.Task) {
			t, err := s.Get(e.Task.ID)
			if err != nil {
				msg := err.Error()
				if ce, ok := err.(*errcode.Error); ok {
					msg = ce.Message
				}
				snap.Problems = append(snap.Problems, Problem{File: task.FileName(e.Task.ID), Error: msg})
				continue
			}
			if t == nil {
				continue
			}
			e.Task = t
		}
		kept = append(kept, e)
	}
	snap.Entries = kept
	slices.SortFunc(snap.Problems, func(a, b Problem) int { return strings.Compare(a.File, b.File) })
}

// Summarize applies task-list's filters to a snapshot, marking expired
// claims as of now. With label or text filters, the snapshot must hold the
// whole records of the tasks that pass the other filters (readCandidates).
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
	needs := req.NeedsRecords()
	// The tasks that pass, then their summaries in one allocation: a
	// summary is about 200 bytes, and growing the answer one append at a
	// time copied it over and over (8 % of listing 26,000 claimed tasks
	// out of 100,000).
	type pick struct {
		t          *task.Task
		unresolved []string
	}
	var picks []pick
	for _, e := range snap.Entries {
		t := e.Task
		if !req.Selects(t) || needs && !req.MatchesRecord(t) {
			continue
		}
		unresolved := task.Unresolved(t.BlockedBy, status)
		if req.Ready && (t.Status != task.Pending || len(unresolved) > 0 || len(parents[t.ID]) > 0) {
			continue
		}
		picks = append(picks, pick{t, unresolved})
	}
	res.Tasks = make([]task.Summary, len(picks))
	for i, p := range picks {
		res.Tasks[i] = summaryOf(p.t, p.unresolved, now)
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
