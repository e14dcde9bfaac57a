package contract

import "github.com/go-json-experiment/json/jsontext"

// The answers of task-sync (pkg/tasksync builds them).

// SyncResult is task-sync's answer: {"pulled":n,"pushed":n,"merged":n,"conflicts":[…]}.
// pulled counts the store files (records and plans) the sync changed or
// removed locally, pushed the files the push changed on the remote ref,
// merged the files changed on both sides and merged three ways; conflicts
// lists every decision a rule took (SyncConflict).
type SyncResult struct {
	Pulled    int            `json:"pulled" jsonschema:"Store files (records and plans) this sync changed or removed here."`
	Pushed    int            `json:"pushed" jsonschema:"Files the push changed on the remote's branch."`
	Merged    int            `json:"merged" jsonschema:"Files changed on both sides and merged three ways."`
	Conflicts []SyncConflict `json:"conflicts" jsonschema:"Every decision a merge rule took (docs/sync.md)."`
	// Refused lists the remote's files that were not brought into the
	// store (remoteFiles); absent when there are none.
	Refused []SyncRefusal `json:"refused,omitempty" jsonschema:"The remote's files the sync refused to bring into the store, each with the reason."`
	// Tip is the commit the local ref ended on (not part of the answer).
	Tip string `json:"-"`
}

// SyncConflict reports one decision a merge took for the user, in the sync
// answer's "conflicts" list (docs/sync.md):
//
//	{"id":"T-…","field":"status","kept":"completed","lost":"in_progress","rule":"status_order"}
//
// field is the record field ("subject", "metadata.KEY", "blockedBy"), or
// "plan" with the plan's name in id for plan text. kept and lost are the
// values as JSON (strings for plain values). rule is one of:
//
//   - status_order: both sides changed status; the later one in
//     pending < in_progress < completed < deleted was kept;
//   - first_push: both sides changed the same field to different values;
//     the value already on the remote ref (pushed first) was kept;
//   - claim_ended: the merged status is not in_progress, so the claim in
//     metadata.claim was dropped (a claim lives only while in progress);
//   - cycle: an edge added on this machine would have closed a dependency
//     cycle with the remote's edges and was dropped (lost names the
//     blocker);
//   - removed_vs_changed: one side removed the file (cleanup) and the other
//     changed it: the changed record was kept;
//   - removed_while_active: the remote removed a record that is pending or
//     in_progress here, without a removed event in the task's history (not
//     task-cleanup's removal): the local record was kept and pushed back
//     (kept is its status);
//   - unmergeable: a side is not a valid record; the local file was kept
//     and the remote version saved under .matrixx/state/sync/ (task-doctor
//     reports the file).
type SyncConflict struct {
	ID    string         `json:"id" jsonschema:"The task (T-…), or the plan's name for field plan."`
	Field string         `json:"field" jsonschema:"status, blockedBy, metadata.KEY, plan, a field name, or record."`
	Kept  jsontext.Value `json:"kept,omitempty"`
	Lost  jsontext.Value `json:"lost,omitempty"`
	Rule  string         `json:"rule" jsonschema:"The rule that decided."`
	Saved string         `json:"saved,omitempty" jsonschema:"unmergeable: where the remote version was saved."`
}

// SyncRefusal is a file of the remote's branch that the sync refused to bring
// into the store: {"path":"tasks/T-….json","reason":"…"}.
type SyncRefusal struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// SyncImportResult is task-sync import's answer:
// {"created":n,"updated":n,"unchanged":n,"skipped":[ids and plan names…]}.
type SyncImportResult struct {
	Created   int      `json:"created"`
	Updated   int      `json:"updated"`
	Unchanged int      `json:"unchanged"`
	Skipped   []string `json:"skipped"`
}
