// Package task holds the task record of the original's specification (TaskObject plus the
// top-level priority of), its strict on-disk encoding, the tool
// input documents of the original's specification, and the dependency rules of the original's specification
package task

import (
	"github.com/go-json-experiment/json/jsontext"
)

// Status is a task's lifecycle state.
type Status string

// The four statuses of the original's specification
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Deleted    Status = "deleted"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case Pending, InProgress, Completed, Deleted:
		return true
	}
	return false
}

// Active reports whether s is pending or in_progress.
func (s Status) Active() bool { return s == Pending || s == InProgress }

// Priority is the inert low|medium|high field.
type Priority string

// Valid reports whether p is low, medium or high.
func (p Priority) Valid() bool { return p == "low" || p == "medium" || p == "high" }

// Metadata is the free-form metadata object; values are kept as raw JSON so
// they round-trip exactly.
type Metadata map[string]jsontext.Value

// Task is one T-*.json record: the original's specification TaskObject plus priority.
// Field order is the on-disk key order. Empty optional strings are
// omitted; blocks and blockedBy are always written as arrays. ThreadID is
// empty only for older records, which get one on their next write.
type Task struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	Status      Status   `json:"status"`
	ActiveForm  string   `json:"activeForm,omitempty"`
	Blocks      []string `json:"blocks"`
	BlockedBy   []string `json:"blockedBy"`
	Owner       string   `json:"owner,omitempty"`
	Priority    Priority `json:"priority,omitempty"`
	Metadata    Metadata `json:"metadata,omitempty"`
	RepoURL     string   `json:"repoURL,omitempty"`
	ParentID    string   `json:"parentID,omitempty"`
	ThreadID    string   `json:"threadID,omitempty"`
	ProjectRoot string   `json:"projectRoot,omitempty"`
}

// Summary is one entry of task-list's answer: blockedBy holds
// only unresolved blockers.
type Summary struct {
	ID        string   `json:"id"`
	Subject   string   `json:"subject"`
	Status    Status   `json:"status"`
	Owner     string   `json:"owner,omitempty"`
	BlockedBy []string `json:"blockedBy"`
	ParentID  string   `json:"parentID,omitempty"`
	// ClaimExpired marks an in_progress task whose claim's lease has
	// ended: task-claim may take it over (docs/claims.md).
	ClaimExpired bool `json:"claimExpired,omitzero"`
	// Paths, Worktree and Branch describe an in_progress task's claim:
	// its path leases (docs/leases.md) and the git checkout it was made
	// in. Absent otherwise.
	Paths    []string `json:"paths,omitempty"`
	Worktree string   `json:"worktree,omitempty"`
	Branch   string   `json:"branch,omitempty"`
}

// MetadataString returns metadata[key] when it is a JSON string.
func (t *Task) MetadataString(key string) (string, bool) {
	raw, ok := t.Metadata[key]
	if !ok || raw.Kind() != '"' {
		return "", false
	}
	var s string
	if err := unmarshalValue(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
