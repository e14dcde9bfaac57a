// Package errcode defines the stable error codes every binary reports and the
// one mapping from an error to a process exit status.
//
// A tool error travels as a value of type *Error and is printed as the flat
// envelope {"error":"<code>","message":"…"} on stdout. Codes are part of the
// public contract: scripts match on them, so they never change meaning.
package errcode

import (
	"errors"
	"fmt"
)

// Code is a stable, snake_case error identifier.
type Code string

// Codes of the original implementation, plus the ones this toolkit adds (documented in README).
const (
	// InvalidTaskID: an id does not match ^T-[A-Za-z0-9]+(-[A-Za-z0-9]+)*$.
	InvalidTaskID Code = "invalid_task_id"
	// TaskNotFound: task-update on an id with no file.
	TaskNotFound Code = "task_not_found"
	// TaskLockUnavailable: a .lock (task store or plans directory) stayed held past the retry budget.
	TaskLockUnavailable Code = "task_lock_unavailable"
	// ValidationError: the input document or a field in it is invalid.
	ValidationError Code = "validation_error"
	// InvalidArguments: the binary was called wrongly (flags, missing input); exit 2.
	InvalidArguments Code = "invalid_arguments"
	// InternalError: a filesystem or other unexpected failure.
	InternalError Code = "internal_error"
	// DependencyCycle: a self-edge or an edge that would close a cycle.
	DependencyCycle Code = "dependency_cycle"
	// TaskCorrupt: the task's file exists but is not a valid record; nothing was changed.
	TaskCorrupt Code = "task_corrupt"
	// InputTooLarge: the stdin document is larger than the documented cap.
	InputTooLarge Code = "input_too_large"
	// ConfigError: matrixx.jsonc is unreadable or holds a bad value.
	ConfigError Code = "config_error"
	// InvalidFilePath: a plan name is not kebab-case or tries a path trick.
	InvalidFilePath Code = "invalid_file_path"
	// FileNotFound: the named plan does not exist.
	FileNotFound Code = "file_not_found"
	// FileExists: plan create on a name that already exists.
	FileExists Code = "file_exists"
	// FileTooLarge: a plan would exceed its size cap.
	FileTooLarge Code = "file_too_large"
	// AnchorMismatch: a LINE#ID anchor no longer matches the file.
	AnchorMismatch Code = "anchor_mismatch"
	// InvalidEdit: a plan edit is malformed or overlaps another edit.
	InvalidEdit Code = "invalid_edit"
	// PlanLinkBroken: a task's plan item (metadata planItem) no longer carries
	// the item's text (planItemText), and the text is on no item or on several
	// (docs/plans.md).
	PlanLinkBroken Code = "plan_link_broken"
	// AmbiguousID: a short handle (a suffix of an id's digits) names more
	// than one task; the message lists the candidates (docs/porcelain.md).
	AmbiguousID Code = "ambiguous_id"
	// ClaimConflict: task-claim on a task someone else holds under a live
	// claim; the message names the holder and the expiry (docs/claims.md).
	ClaimConflict Code = "claim_conflict"
	// LeaseConflict: task-claim --paths asks for paths that overlap a live
	// path lease of another task; the message names the lease, its task,
	// holder and end (docs/leases.md).
	LeaseConflict Code = "lease_conflict"
	// TaskBlocked: task-claim on a pending task with unresolved blockers;
	// the message lists them.
	TaskBlocked Code = "task_blocked"
	// TaskNotClaimable: task-claim on a completed or deleted task.
	TaskNotClaimable Code = "task_not_claimable"
	// PreconditionFailed: task-update's expect no longer matches the task;
	// the message gives the current values.
	PreconditionFailed Code = "precondition_failed"
	// NothingToUndo: matrixx undo found no change of yours to revert (or
	// the event named cannot be reverted); nothing was written
	// (docs/history.md).
	NothingToUndo Code = "nothing_to_undo"
	// ChildrenActive: completing a task whose subtasks are still pending or
	// in_progress; the message names them (--force completes it anyway).
	ChildrenActive Code = "children_active"
	// EditorFailed: matrixx edit's editor ($VISUAL, $EDITOR) exited with a
	// failure or could not be run; nothing was changed and the text is
	// kept in a file the message names (docs/porcelain.md).
	EditorFailed Code = "editor_failed"
)

// Error is a tool error with a stable code. Field names the offending input
// field when there is one (JSON pointer style without the leading slash).
type Error struct {
	Code    Code
	Message string
	Field   string
	Err     error
}

// Error implements error as "<code>: <message>".
func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Field returns an *Error about one input field; the message is prefixed with
// the field name so every report names it.
func Field(code Code, field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Code: code, Message: msg, Field: field}
}

// Wrap returns an *Error carrying cause; the message is "<context>: <cause>".
func Wrap(code Code, cause error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &Error{Code: code, Message: msg, Err: cause}
}

// Of returns the code of err: the code of the first *Error in its chain, or
// InternalError for any other non-nil error, or "" for nil.
func Of(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return InternalError
}

// As returns err as an *Error, converting foreign errors to InternalError.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: InternalError, Message: err.Error(), Err: err}
}

// Exit statuses of the task and plan binaries.
const (
	ExitOK      = 0 // success
	ExitTool    = 1 // tool error: the flat envelope on stdout
	ExitUsage   = 2 // usage error: bad flags, missing required input
	ExitPartial = 3 // a batch where some items failed and some succeeded
)

// ExitStatus maps an error to the process exit status. It is the only
// place where codes become exit statuses.
func ExitStatus(err error) int {
	switch Of(err) {
	case "":
		return ExitOK
	case InvalidArguments:
		return ExitUsage
	default:
		return ExitTool
	}
}
