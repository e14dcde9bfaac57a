// Package contract holds the JSON documents the toolkit's binaries read
// and print that no domain package owns: the answers shared by several
// commands, the error envelope, the documents of commands whose request
// is not a task or plan type. The domain packages own the rest (task's
// requests, store's and plan's results); pkg/schema turns all of them into
// the JSON Schemas of docs/schemas (go generate ./pkg/schema), and a test
// keeps the files current. The error codes' home is pkg/errcode.
//
// The documents are a contract: a field's meaning never changes; new
// fields are added, old ones are not broken.
package contract

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// ErrorAnswer is the flat error envelope every binary prints on stdout when
// it fails: {"error":"<code>","message":"…"}, code one of pkg/errcode.
type ErrorAnswer struct {
	Error   errcode.Code `json:"error"`
	Message string       `json:"message"`
}

// TaskAnswer is the answer of task-get, task-update and task-claim:
// {"task":{…full record…}}; task is null when task-get finds no such task
// or task-claim finds nothing ready. task-get --history adds the task's
// events and time in each status.
type TaskAnswer struct {
	Task *task.Task `json:"task"`
	*store.HistoryAnswer
}

// PlanReadAnswer is plan read --json's answer:
// {"name","size","progress":{"done","total"},"totalLines","lines":[{"line","id","text"}]}.
type PlanReadAnswer struct {
	plan.Info
	TotalLines int             `json:"totalLines"`
	Lines      []hashline.Line `json:"lines"`
}

// SyncConflictAnswer is task-sync's sync_conflict answer (exit 1): the
// push budget ran out; nothing was lost, and the rounds that ran are
// reported with their counts and decisions.
type SyncConflictAnswer struct {
	Error   errcode.Code `json:"error"`
	Message string       `json:"message"`
	*SyncResult
}

// LinkAnswer is the plan_link_broken answer of plan sync, check and tasks:
// the flat envelope plus the broken links, each with its candidate items.
type LinkAnswer struct {
	Error   errcode.Code `json:"error"`
	Message string       `json:"message"`
	Links   []BrokenLink `json:"links"`
}

// BrokenLink is a task whose link to its plan item cannot be followed by
// the item's text.
type BrokenLink struct {
	Task         string          `json:"task"`
	Subject      string          `json:"subject"`
	PlanItem     int             `json:"planItem"`
	PlanItemText string          `json:"planItemText"`
	Reason       string          `json:"reason"`
	Candidates   []CandidateItem `json:"candidates"`
}

// CandidateItem is an item a broken link may mean.
type CandidateItem struct {
	Item int    `json:"item"`
	Line int    `json:"line"`
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// MismatchAnswer is plan update's anchor_mismatch answer: the flat
// envelope plus the structured mismatches, so an agent can retry without
// reading again.
type MismatchAnswer struct {
	Error      errcode.Code        `json:"error"`
	Message    string              `json:"message"`
	TotalLines int                 `json:"totalLines"`
	Mismatches []hashline.Mismatch `json:"mismatches"`
}
