// Package feed is the store's change feed: what happened to which task,
// as events in order, each with a cursor. A Watcher notices changes on
// disk (any writer: our binaries, agents' hooks, task-sync bringing
// another machine's work, a person with an editor); Events turns each
// change into events (created, updated with the fields changed, claimed,
// completed, deleted, outside the toolkit), and the derived ones that
// depend on other tasks (ready, blocked) or on the clock (lease_expired).
// task-feed prints them as JSON Lines, matrixx watch for people, and the
// board (pkg/board) is fed by the same stream. docs/board.md is the guide.
package feed

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Kind is what an event says happened.
type Kind string

const (
	// Created: a task file appeared.
	Created Kind = "created"
	// Updated: fields changed (Fields names them) and no other kind says
	// more.
	Updated Kind = "updated"
	// Claimed: the task became in_progress, or its in_progress owner
	// changed (a takeover).
	Claimed Kind = "claimed"
	// LeaseExpired: an in_progress task's claim lease ended (no file
	// changes: the clock passed metadata.claim.expiresAt).
	LeaseExpired Kind = "lease_expired"
	// Completed: the status became completed.
	Completed Kind = "completed"
	// Reopened: back to pending or in_progress from completed or deleted.
	Reopened Kind = "reopened"
	// Released: back to pending from in_progress (a claim given back).
	Released Kind = "released"
	// Deleted: the status became deleted, or the file went away
	// (Removed).
	Deleted Kind = "deleted"
	// Outside: fields changed by something other than the toolkit (the
	// integrity ledger does not know the new content). Every event of such
	// a change carries outside:true; this kind is the one for changes that
	// are neither created, claimed, completed nor deleted.
	Outside Kind = "outside"
	// Ready: a pending task now has every blocker completed (its own
	// change or a blocker's).
	Ready Kind = "ready"
	// Blocked: a pending task now waits for a blocker that is not
	// completed.
	Blocked Kind = "blocked"
	// Unreadable: a task file became something that is not a valid record
	// (task-doctor says more).
	Unreadable Kind = "unreadable"
)

// Kinds lists every kind, in the order the documentation gives them.
var Kinds = []Kind{Created, Updated, Claimed, LeaseExpired, Completed, Deleted, Reopened, Released, Outside, Ready, Blocked, Unreadable}

// Event is one line of the feed.
type Event struct {
	// Cursor names the position right after this event: giving it to
	// --since resumes after it.
	Cursor string `json:"cursor" jsonschema:"The position right after this event: --since CURSOR resumes after it. A decimal number (the task history's cursor; larger is later), or live-START-N for a feed of a store without history (not resumable)."`
	Kind   Kind   `json:"kind"`
	ID     string `json:"id" jsonschema:"The task (T-…)."`
	// Subject, Status and Owner are the task's after the change (before
	// it, for a removed file).
	Subject string      `json:"subject,omitempty" jsonschema:"The task's subject after the change (before it, for a removed file)."`
	Status  task.Status `json:"status,omitempty"`
	Owner   string      `json:"owner,omitempty" jsonschema:"The task's owner after the change."`
	// Was is the status before the change, when it changed.
	Was task.Status `json:"was,omitempty" jsonschema:"The status before the change, when it changed."`
	// Fields are the fields that changed, as their JSON names
	// ("subject", "blockedBy", "metadata.labels", ...).
	Fields []string `json:"fields,omitempty" jsonschema:"The fields that changed, as their JSON names (subject, blockedBy, metadata.labels, …)."`
	// BlockedBy lists the blockers that are not completed (blocked).
	BlockedBy []string `json:"blockedBy,omitempty" jsonschema:"blocked: the blockers that are not completed."`
	// Removed says the task's file went away.
	Removed bool `json:"removed,omitzero" jsonschema:"The task's file went away (kind deleted)."`
	// Outside says the change was not made by the toolkit.
	Outside bool `json:"outside,omitzero" jsonschema:"The change was made by something other than the toolkit."`
	// Synced says task-sync wrote it: a version merged with another
	// machine's.
	Synced bool `json:"synced,omitzero" jsonschema:"task-sync wrote it: a version merged with another machine's."`
	// By, Command and Event come from the task history: who made the
	// change (owner, session, host, user), with which command, and the
	// history event's id. Absent for what the history does not record
	// (ready, blocked, changes outside the toolkit seen as they happen).
	By      *history.Actor `json:"by,omitempty" jsonschema:"Who made the change, from the task history."`
	Command string         `json:"command,omitempty" jsonschema:"The command that made the change (task-claim, matrixx, …), from the task history."`
	Event   string         `json:"event,omitempty" jsonschema:"The task history event's id."`
	// At is when the change was seen (UTC, RFC 3339 with milliseconds).
	At string `json:"at" jsonschema:"When the change was made or seen: UTC, RFC 3339 with milliseconds."`
	// Problem is why the file is unreadable (unreadable).
	Problem string `json:"problem,omitempty" jsonschema:"unreadable: why the file is not a valid record."`
}

// ParseKinds parses a comma-separated list of kinds ("completed,blocked").
func ParseKinds(s string) ([]Kind, error) {
	var out []Kind
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		k := Kind(strings.ReplaceAll(p, "-", "_"))
		if !slices.Contains(Kinds, k) {
			names := make([]string, len(Kinds))
			for i, k := range Kinds {
				names[i] = string(k)
			}
			return nil, errcode.New(errcode.InvalidArguments, "%q is not an event kind (one of %s)", p, strings.Join(names, ", "))
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, errcode.New(errcode.InvalidArguments, "no event kind given")
	}
	return out, nil
}

// Matches reports whether ev is of one of kinds; "outside" matches every
// event of a change made outside the toolkit.
func Matches(ev *Event, kinds []Kind) bool {
	if len(kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		if k == ev.Kind || (k == Outside && ev.Outside) {
			return true
		}
	}
	return false
}

// changeEvent is the event one file change amounts to (no cursor or time
// yet). ok is false for a change nobody needs to hear about (only a lease
// renewal of the same holder).
func changeEvent(c Change) (Event, bool) {
	switch {
	case c.New == nil && c.Problem != "":
		return Event{Kind: Unreadable, ID: c.Old.ID, Subject: c.Old.Subject, Problem: c.Problem, Outside: c.Outside}, true
	case c.New == nil:
		t := c.Old
		return Event{Kind: Deleted, ID: t.ID, Subject: t.Subject, Status: t.Status, Owner: t.Owner, Removed: true, Outside: c.Outside}, true
	case c.Old == nil:
		t := c.New
		return Event{Kind: Created, ID: t.ID, Subject: t.Subject, Status: t.Status, Owner: t.Owner, Outside: c.Outside}, true
	}
	o, n := c.Old, c.New
	fields := Fields(o, n)
	ev := Event{ID: n.ID, Subject: n.Subject, Status: n.Status, Owner: n.Owner, Fields: fields, Outside: c.Outside}
	if o.Status != n.Status {
		ev.Was = o.Status
	}
	if k := statusKind(o.Status, n.Status, o.Owner != n.Owner); k != "" {
		ev.Kind = k
	} else if c.Outside {
		ev.Kind = Outside
	} else {
		if len(fields) == 1 && fields[0] == "metadata."+claim.Key && n.Status == task.InProgress {
			return ev, false // a renewal of the holder's lease
		}
		ev.Kind = Updated
	}
	if len(fields) == 0 && ev.Kind == Updated {
		return ev, false
	}
	return ev, true
}

// statusKind is the kind a change of status (and owner) amounts to, ""
// when it is none of them.
func statusKind(was, now task.Status, newOwner bool) Kind {
	switch {
	case was != now && now == task.Completed:
		return Completed
	case was != now && now == task.Deleted:
		return Deleted
	case now == task.InProgress && (was != task.InProgress || newOwner):
		if was == task.Completed || was == task.Deleted {
			return Reopened
		}
		return Claimed
	case was == task.InProgress && now == task.Pending:
		return Released
	case (was == task.Completed || was == task.Deleted) && now == task.Pending:
		return Reopened
	}
	return ""
}

// Fields names the fields that differ between two versions of a record,
// in the record's order; metadata is compared key by key
// ("metadata.labels").
func Fields(o, n *task.Task) []string {
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name)
		}
	}
	add("subject", o.Subject != n.Subject)
	add("description", o.Description != n.Description)
	add("status", o.Status != n.Status)
	add("activeForm", o.ActiveForm != n.ActiveForm)
	add("blocks", !slices.Equal(o.Blocks, n.Blocks))
	add("blockedBy", !slices.Equal(o.BlockedBy, n.BlockedBy))
	add("owner", o.Owner != n.Owner)
	add("priority", o.Priority != n.Priority)
	var keys []string
	for k, v := range n.Metadata {
		if ov, ok := o.Metadata[k]; !ok || string(ov) != string(v) {
			keys = append(keys, k)
		}
	}
	for k := range o.Metadata {
		if _, ok := n.Metadata[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, "metadata."+k)
	}
	add("repoURL", o.RepoURL != n.RepoURL)
	add("parentID", o.ParentID != n.ParentID)
	add("threadID", o.ThreadID != n.ThreadID)
	add("projectRoot", o.ProjectRoot != n.ProjectRoot)
	return out
}

// Line is ev for people: one line, without the cursor.
func Line(ev *Event, handle func(id string) string) string {
	var b strings.Builder
	b.WriteString(ev.At)
	if len(ev.At) >= 19 {
		b.Reset()
		b.WriteString(ev.At[11:19])
	}
	fmt.Fprintf(&b, "  %-13s %s %q", ev.Kind, handle(ev.ID), ev.Subject)
	switch ev.Kind {
	case Claimed:
		fmt.Fprintf(&b, " by %s", ev.Owner)
	case LeaseExpired:
		if ev.Owner != "" {
			fmt.Fprintf(&b, " (held by %s)", ev.Owner)
		}
	case Updated, Outside:
		fmt.Fprintf(&b, " (%s)", strings.Join(ev.Fields, ", "))
	case Blocked:
		hs := make([]string, len(ev.BlockedBy))
		for i, id := range ev.BlockedBy {
			hs[i] = handle(id)
		}
		fmt.Fprintf(&b, " waits for %s", strings.Join(hs, ", "))
	case Unreadable:
		fmt.Fprintf(&b, ": %s", ev.Problem)
	case Deleted:
		if ev.Removed {
			b.WriteString(" (file removed)")
		}
	}
	if ev.Outside && ev.Kind != Outside {
		b.WriteString(" [outside the toolkit]")
	}
	return b.String()
}
