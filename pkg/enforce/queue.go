// Package enforce is task-continuation-enforcer for Stop and SubagentStop:
// it decides whether an agent that wants to stop
// still has task work, and if so blocks the stop with a directive listing
// that work.
//
// Scope. With tasks.session_scoped (the default) only tasks whose threadID
// is the event's session_id count, and their descendants through parentID
// (at most AncestryDepth hops: a subtask filed under one of the session's
// tasks by a subagent or a shell without the session id); other tasks
// without a threadID or with "no-session" never do. A live claim
// (metadata.claim of an in_progress task whose lease has not ended,
// docs/claims.md) that names a session overrides both: the task holds the
// claiming session, not its creator. With session_scoped false every task of the store
// counts. Subtasks whose parent is completed or deleted are resolved and
// leave the queue.
//
// Classification of an incomplete (pending or in_progress) task: blocked
// when it is pending with an unresolved blocker (the original's specification: only completed
// resolves); stale when its file's mtime is older than
// tasks.stale_after_hours (on SubagentStop, tasks.background_stale_after_hours:
// a subagent's claimed task idle past that window stops holding it). Blocked and stale tasks are listed but never force
// continuation on their own: a queue of only stale and/or blocked tasks lets
// the agent stop.
//
// SubagentStop: subagents share the parent's session_id, so a subagent is
// held only by in_progress tasks it owns: owner (or its live claim's
// owner) equal to the event's agent_id or agent_type.
package enforce

import (
	"sort"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Input is one stop to decide.
type Input struct {
	// Subagent is set for SubagentStop.
	Subagent bool
	// Session is the event's session_id.
	Session string
	// AgentID and AgentType identify the subagent (SubagentStop).
	AgentID, AgentType string
	// Background counts running background_tasks entries.
	Background int
	// SessionScoped is tasks.session_scoped.
	SessionScoped bool
	// StaleAfter is tasks.stale_after_hours; zero means never stale.
	StaleAfter time.Duration
	// Now is the current time.
	Now time.Time
	// Entries are the store's records with their mtimes.
	Entries []store.Entry
	// LastMessage is the event's last_assistant_message (Stop): a
	// message that asks the user a question lets the agent stop
	// (AwaitsUser).
	LastMessage string
	// BackgroundStaleAfter is tasks.background_stale_after_hours: on
	// SubagentStop it replaces StaleAfter (a subagent's claimed task idle
	// past it stops holding the subagent); zero means StaleAfter.
	BackgroundStaleAfter time.Duration
	// Reserve is how many bytes of MaxReasonBytes the caller keeps for
	// text it adds after the directive (the integrity check's line).
	Reserve int
}

// Item is one incomplete task of the queue.
type Item struct {
	Task *task.Task
	// Blockers are the unresolved blockedBy ids (pending tasks only).
	Blockers []string
	// Deleted and Missing are the Blockers that can never be completed as
	// things stand: tasks marked deleted, and ids with no readable task in
	// the store. A task waiting on them waits forever unless someone
	// completes the deleted blocker or re-plans the task.
	Deleted, Missing []string
	// Idle is how long the file has been untouched; Stale says it is past
	// the threshold.
	Idle  time.Duration
	Stale bool
}

// Blocked reports a pending task waiting on unresolved blockers.
func (it Item) Blocked() bool { return len(it.Blockers) > 0 }

// Stuck reports a blocked task that waits on a deleted or missing blocker.
func (it Item) Stuck() bool { return len(it.Deleted)+len(it.Missing) > 0 }

// Actionable reports whether the item forces continuation.
func (it Item) Actionable() bool { return !it.Blocked() && !it.Stale }

// Queue is the incomplete work in scope.
type Queue struct {
	// Items: in_progress first, then pending, then blocked, then stale;
	// by id within each group.
	Items []Item
	// Counts.
	InProgress, Pending, Blocked, Stale, Actionable int
	// Scope are the in-scope records of any status (the fingerprint's input).
	Scope []store.Entry
}

// Build selects and classifies the tasks of the stop.
func Build(in Input) Queue {
	status := make(map[string]task.Status, len(in.Entries))
	for _, e := range in.Entries {
		status[e.Task.ID] = e.Task.Status
	}
	byID := make(map[string]*task.Task, len(in.Entries))
	for _, e := range in.Entries {
		byID[e.Task.ID] = e.Task
	}
	var q Queue
	for _, e := range in.Entries {
		t := e.Task
		if !in.inScope(t, byID) {
			continue
		}
		q.Scope = append(q.Scope, e)
		if !t.Status.Active() {
			continue
		}
		if in.Subagent && t.Status != task.InProgress {
			continue
		}
		if p := t.ParentID; p != "" && (status[p] == task.Completed || status[p] == task.Deleted) {
			continue // subtask of a finished parent: resolved
		}
		it := Item{Task: t}
		if t.Status == task.Pending {
			if u := task.Unresolved(t.BlockedBy, status); len(u) > 0 {
				it.Blockers = u
				for _, id := range u {
					switch st, ok := status[id]; {
					case !ok:
						it.Missing = append(it.Missing, id)
					case st == task.Deleted:
						it.Deleted = append(it.Deleted, id)
					}
				}
			}
		}
		if !e.ModTime.IsZero() {
			it.Idle = in.Now.Sub(e.ModTime)
			window := in.staleWindow()
			it.Stale = window > 0 && it.Idle > window
		}
		q.Items = append(q.Items, it)
		switch t.Status {
		case task.InProgress:
			q.InProgress++
		default:
			q.Pending++
		}
		if it.Blocked() {
			q.Blocked++
		}
		if it.Stale {
			q.Stale++
		}
		if it.Actionable() {
			q.Actionable++
		}
	}
	sort.SliceStable(q.Items, func(i, j int) bool {
		a, b := q.Items[i], q.Items[j]
		if ga, gb := group(a), group(b); ga != gb {
			return ga < gb
		}
		return a.Task.ID < b.Task.ID
	})
	return q
}

// staleWindow is the idle time past which a task is stale: the background
// window on SubagentStop (when set), else StaleAfter.
func (in Input) staleWindow() time.Duration {
	if in.Subagent && in.BackgroundStaleAfter > 0 {
		return in.BackgroundStaleAfter
	}
	return in.StaleAfter
}

func group(it Item) int {
	switch {
	case it.Stale:
		return 3
	case it.Blocked():
		return 2
	case it.Task.Status == task.InProgress:
		return 0
	}
	return 1
}

// AncestryDepth is how many parentID hops the session filter follows: a
// task whose parent, grandparent or great-grandparent belongs to the
// session belongs to it too (spec: DEFAULT_ANCESTRY_DEPTH = 3).
const AncestryDepth = 3

// inScope applies the session filter (and, for a subagent, ownership).
// A live claim that names a session overrides the threadID (claims.go);
// byID holds every record of the store, for the parentID walk.
func (in Input) inScope(t *task.Task, byID map[string]*task.Task) bool {
	if in.SessionScoped {
		if ok, decided := in.claimScope(t); decided {
			if !ok {
				return false
			}
		} else if !in.ownSession(t) && !in.ancestorInSession(t, byID) {
			return false
		}
	}
	if in.Subagent {
		owner := func(o string) bool { return o != "" && (o == in.AgentID || o == in.AgentType) }
		return owner(t.Owner) || owner(in.claimOwner(t))
	}
	return true
}

// ownSession reports whether t was stamped with the event's session.
func (in Input) ownSession(t *task.Task) bool {
	return t.ThreadID != "" && t.ThreadID != project.NoSession && t.ThreadID == in.Session
}

// ancestorInSession walks t's parentID chain, at most AncestryDepth hops,
// for a task of the session: only an in-scope ancestor admits a
// descendant, a missing parent ends the walk, and so does a cycle.
func (in Input) ancestorInSession(t *task.Task, byID map[string]*task.Task) bool {
	seen := map[string]bool{t.ID: true}
	p := t.ParentID
	for hop := 0; hop < AncestryDepth && p != "" && !seen[p]; hop++ {
		seen[p] = true
		parent := byID[p]
		if parent == nil {
			return false
		}
		if in.ownSession(parent) {
			return true
		}
		p = parent.ParentID
	}
	return false
}
