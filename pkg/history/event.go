// Package history is the change history of a task store: every change the
// toolkit makes to a task, recorded under the store's lock by the write
// that makes it, as one event (what changed, field by field with the old
// and the new value; who; when; by which command). It lives beside the
// records, in <store>/.history/ (docs/history.md):
//
//	T-<id>.jsonl           the events of one task, one JSON object a line,
//	                       oldest first (append-only; travels with
//	                       task-sync, merged as a union by event id)
//	feed-<20 digits>       the local change feed: one "<task id> <event id>"
//	                       line per event in the order this store recorded
//	                       it; the digits are the feed offset of the
//	                       segment's first byte
//
// A reader that wants "everything since I last looked" keeps the cursor
// of the last event it read (Log.Since); cursors are feed offsets and
// never repeat, survive restarts and compaction.
package history

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	osuser "os/user"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Kind says what an event is.
type Kind string

// The kinds of event. A change made through the toolkit is one of created,
// updated, claimed, completed, deleted, reopened, released, lease_renewed,
// removed, undone or synced; lease_expired is recorded when a write finds
// a task whose claim had expired (the takeover that follows is a claimed
// event); external and adopted are written by the toolkit about changes it
// did not make (see Log.Append); compacted stands for older events folded
// into one (Compact).
const (
	Created      Kind = "created"       // a new task
	Updated      Kind = "updated"       // fields changed (subject, description, dependencies, metadata…)
	Claimed      Kind = "claimed"       // status in_progress, or a new owner of an in_progress task
	Completed    Kind = "completed"     // status completed
	Deleted      Kind = "deleted"       // status deleted (the record stays)
	Reopened     Kind = "reopened"      // back to pending or in_progress from completed or deleted
	Released     Kind = "released"      // back to pending from in_progress
	LeaseRenewed Kind = "lease_renewed" // only the claim's lease moved
	LeaseExpired Kind = "lease_expired" // the claim's lease had ended when a write looked
	Removed      Kind = "removed"       // the record's file was removed (task-cleanup)
	Undone       Kind = "undone"        // an earlier event reverted (Event.Undoes)
	Synced       Kind = "synced"        // task-sync wrote a version merged with another machine's
	External     Kind = "external"      // the file changed outside the toolkit (found by the next write)
	Adopted      Kind = "adopted"       // first event of a task that existed before its history
	Compacted    Kind = "compacted"     // older events folded into one (Compact)
)

// Actor is who made a change: the owner the command acted as (a claim's
// owner, an update's new owner; empty when none was given), the agent
// session (the threadID stamped on records), the host and the operating
// system's user running the command.
type Actor struct {
	Owner   string `json:"owner,omitempty"`
	Session string `json:"session,omitempty"`
	Host    string `json:"host,omitempty"`
	User    string `json:"user,omitempty"`
}

// Change is one field's change. Field is the record's JSON key (subject,
// description, status, activeForm, blocks, blockedBy, owner, priority,
// repoURL, parentID, threadID, projectRoot) or "metadata.<key>" for one
// metadata key. Old and New are JSON values; absent (omitted) means the
// field was not set before (Old) or is no longer set (New).
type Change struct {
	Field string         `json:"field"`
	Old   jsontext.Value `json:"old,omitzero"`
	New   jsontext.Value `json:"new,omitzero"`
}

// Event is one line of a task's history. Its JSON form is the contract of
// `task-get --history` and of the change feed (docs/history.md):
//
//	{"cursor":"1234","id":"0193…","task":"T-…","at":"2026-12-02T07:50:00.123456Z",
//	 "kind":"updated","by":{"owner":"…","session":"…","host":"…","user":"…"},
//	 "command":"task-update","changes":[{"field":"subject","old":"a","new":"b"}],
//	 "hash":"…"}
//
// Cursor is set only by Log.Since (it is where the event sits in this
// store's feed, not part of the event). ID is a UUIDv7, unique across
// machines. Hash is Sum of the record's bytes after the event ("" after
// removed). Undoes names the event an undone event reverted. Of, on the
// event of a dependency's other end (the mirror edge written with it),
// names the event of the task the command changed. Status,
// only on compacted events, holds the time spent in each status by the
// events it folded, in milliseconds.
type Event struct {
	Cursor  string           `json:"cursor,omitempty"`
	ID      string           `json:"id"`
	Task    string           `json:"task"`
	At      time.Time        `json:"at"`
	Kind    Kind             `json:"kind"`
	By      Actor            `json:"by,omitzero"`
	Command string           `json:"command,omitempty"`
	Changes []Change         `json:"changes,omitempty"`
	Hash    string           `json:"hash,omitempty"`
	Undoes  string           `json:"undoes,omitempty"`
	Of      string           `json:"of,omitempty"`
	Status  map[string]int64 `json:"status,omitempty"`
}

// Sum is the hash events carry: the first 16 bytes of the SHA-256 of a
// record file's bytes, in hex.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// Here is the actor of this process without a session or owner: the host
// name and the operating system's user ($USER, else $LOGNAME, else the
// name of the process's user id in the password database: containers and
// CI often set neither variable).
func Here(getenv func(string) string) Actor {
	host, _ := os.Hostname()
	user := getenv("USER")
	if user == "" {
		user = getenv("LOGNAME")
	}
	if user == "" {
		if u, err := osuser.Current(); err == nil {
			user = u.Username
		}
	}
	return Actor{Host: host, User: user}
}
