// Package schema holds the JSON Schemas (draft 2020-12) of the JSON
// documents the binaries read on stdin and print on stdout, generated from
// the Go types that decode and encode them (github.com/google/jsonschema-go
// inference, with the few types whose JSON form is not their Go shape
// described by hand in overrides). docs/schemas/ holds them as files;
// matrixx-mcp announces the input schemas as its tools' inputSchema.
//
// The schemas are descriptive, never the parser: the binaries keep their
// own strict decoding and error codes (pkg/input). An input schema accepts
// every document the binary accepts and refuses the shapes it refuses
// (unknown keys, wrong types, null outside metadata); rules that need the
// store or several fields at once (a blank subject, a dependency cycle,
// contradictory task-list filters) are the binary's alone. An output schema
// is anyOf the answer and the flat error envelope {"error","message"} (plus
// plan update's anchor_mismatch answer).
package schema

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Draft is the JSON Schema dialect of every schema here.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Doc is one command's documents.
type Doc struct {
	// Name is the file stem under docs/schemas: "task-create",
	// "plan-update" (the plan subcommand joined with a dash).
	Name string
	// Command is how it is run: "task-create", "plan update".
	Command string
	// Input is the stdin document's schema; nil when the command reads no
	// JSON document (plan create reads markdown; plan read, list, delete,
	// tasks, check and sync read nothing).
	Input *jsonschema.Schema
	// Output is the stdout document's schema (plan read: with --json).
	Output *jsonschema.Schema
}

// createBatch is task-create's batch form, {"items":[…]} (task.ParseCreate).
type createBatch struct {
	Items []task.CreateItem `json:"items" jsonschema:"A batch: at most 1000 tasks, created under one lock; each item fails alone."`
}

// getAnswer is task-get's answer; task is null when no such task exists.
type getAnswer struct {
	Task *task.Task `json:"task"`
	// With history: the task's events and time in each status.
	Events       []history.Event  `json:"events,omitempty"`
	TimeInStatus map[string]int64 `json:"timeInStatus,omitempty"`
}

// updateAnswer is task-update's answer.
type updateAnswer struct {
	Task task.Task `json:"task"`
}

// syncSetupAnswer is task-sync setup's answer.
type syncSetupAnswer struct {
	MergeDriver string `json:"mergeDriver" jsonschema:"The merge driver's name in .git/config."`
	Attributes  string `json:"attributes" jsonschema:"The line added to .git/info/attributes."`
}

// syncLine is one line of task-sync export's JSON Lines (and of import's
// input): a record or a plan with its modification time.
type syncLine struct {
	Task    *task.Task `json:"task,omitzero" jsonschema:"A full record (a task line)."`
	Plan    string     `json:"plan,omitzero" jsonschema:"The plan's name (a plan line)."`
	Text    *string    `json:"text,omitzero" jsonschema:"The plan's markdown (a plan line)."`
	MtimeMs int64      `json:"mtimeMs" jsonschema:"The file's modification time, ms since the epoch."`
}

// syncConflicts gives kept and lost (any JSON value) to the conflict
// entries of a task-sync answer schema.
func syncConflicts(s *jsonschema.Schema) *jsonschema.Schema {
	c := s.Properties["conflicts"].Items
	c.Properties["kept"] = &jsonschema.Schema{Description: "The value the rule kept (any JSON value; metadata values compact)."}
	c.Properties["lost"] = &jsonschema.Schema{Description: "The value the rule dropped (any JSON value)."}
	c.PropertyOrder = []string{"id", "field", "kept", "lost", "rule", "saved"}
	return s
}

// claimInput is task-claim's stdin document.
type claimInput struct {
	ID    string   `json:"id,omitzero" jsonschema:"Task to claim (T-…); absent: the next ready task."`
	Owner string   `json:"owner" jsonschema:"Who claims it (agent name)."`
	Lease string   `json:"lease,omitzero" jsonschema:"How long the claim lasts without renewal, Go duration syntax (90s, 15m, 2h)."`
	Paths []string `json:"paths,omitzero" jsonschema:"Paths to lease with the claim: globs relative to the checkout's top (src/api/**); other agents' writes there are refused while the claim is live."`
}

// doctorInput is task-doctor's stdin document.
type doctorInput struct {
	Strict bool `json:"strict,omitzero" jsonschema:"Warnings fail too (exit 1)."`
	Repair bool `json:"repair,omitzero" jsonschema:"Apply the safe repairs (missing mirror edges, edges to tasks that no longer exist)."`
}

// planUpdateInput is plan update's stdin document.
type planUpdateInput struct {
	Edits []Edit `json:"edits" jsonschema:"The edits, applied all or none; anchors refer to the plan as read."`
}

// Edit is one anchored line edit of plan update (hashline.ParseEdits):
// {"op","pos"?,"end"?,"lines"?}.
type Edit struct {
	Op    hashline.Op `json:"op" jsonschema:"replace (lines pos..end), append (after pos, or at the end without pos) or prepend (before pos, or at the start without pos)."`
	Pos   *string     `json:"pos,omitzero" jsonschema:"Anchor N#ID from plan read (null or absent: see op)."`
	End   *string     `json:"end,omitzero" jsonschema:"Last anchor of a replaced range (default: pos)."`
	Lines EditLines   `json:"lines,omitzero" jsonschema:"The new lines: an array of lines, or one string split at newlines; [] or null deletes (replace)."`
}

// EditLines is an edit's "lines": an array of strings, one string, or null.
// It keeps the JSON as given (plan update parses it).
type EditLines jsontext.Value

// MarshalJSON returns the JSON as given ("null" when empty).
func (l EditLines) MarshalJSON() ([]byte, error) {
	if len(l) == 0 {
		return []byte("null"), nil
	}
	return l, nil
}

// UnmarshalJSON keeps the JSON as given.
func (l *EditLines) UnmarshalJSON(b []byte) error {
	*l = append((*l)[:0], b...)
	return nil
}

// hookEvent is the part of a host's hook event matrixx-hook reads (hook.Event
// is filled by a streaming decoder, so this is its shape in JSON). Hosts
// add fields freely; a field of an unexpected type is ignored by the hook.
type hookEvent struct {
	HookEventName   string         `json:"hook_event_name,omitzero" jsonschema:"PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop or SessionStart; other events get no answer."`
	SessionID       string         `json:"session_id,omitzero"`
	TranscriptPath  string         `json:"transcript_path,omitzero"`
	Cwd             string         `json:"cwd,omitzero" jsonschema:"The host's working directory: the project is discovered from it."`
	ToolName        string         `json:"tool_name,omitzero"`
	ToolUseID       string         `json:"tool_use_id,omitzero"`
	ToolInput       map[string]any `json:"tool_input,omitzero" jsonschema:"The tool's arguments: command (Bash), path fields, an MCP tool's arguments."`
	ToolResponse    any            `json:"tool_response,omitzero" jsonschema:"PostToolUse: Bash's {stdout,…}, or an MCP tool's answer (a string or text blocks)."`
	Source          string         `json:"source,omitzero" jsonschema:"SessionStart: startup, resume, clear, compact or fork."`
	AgentID         string         `json:"agent_id,omitzero"`
	AgentType       string         `json:"agent_type,omitzero"`
	StopHookActive  bool           `json:"stop_hook_active,omitzero"`
	BackgroundTasks []any          `json:"background_tasks,omitzero" jsonschema:"Stop: the host's background tasks; those still running hold the stop."`
}

// refused marks the Go fields that exist only to refuse a key with a
// specific message (task.CreateItem.ID, …): they are left out of the
// schema, whose additionalProperties:false refuses them.
const refused = "matrixx:refused"

// For returns the schema of Go type t as the documents use it. input says
// whether it is read (null is refused everywhere but inside metadata, as
// pkg/input does) or written (json v2 writes empty slices as [], never
// null; a nil pointer is null).
func For(t reflect.Type, input bool) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: overrides()})
	if err != nil {
		return nil, err
	}
	fix(s, input)
	return s, nil
}

// overrides are the types whose JSON form is not what inference would say.
func overrides() map[reflect.Type]*jsonschema.Schema {
	str := func(desc string, enum ...any) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Description: desc, Enum: enum}
	}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[jsontext.Value](): {Comment: refused},
		reflect.TypeFor[task.Metadata]():  {Type: "object", Description: "Free-form metadata object; on update it merges shallowly and a null value deletes its key."},
		reflect.TypeFor[task.Status]():    str("", "pending", "in_progress", "completed", "deleted"),
		reflect.TypeFor[task.Priority]():  str("low, medium or high (\"\": none).", "low", "medium", "high", ""),
		reflect.TypeFor[errcode.Code]():   {Type: "string", Pattern: "^[a-z][a-z_]*$", Description: "Stable error code (docs/design/decisions.md); e.g. validation_error, task_not_found."},
		reflect.TypeFor[hashline.Op]():    str("", string(hashline.Replace), string(hashline.Append), string(hashline.Prepend)),
		reflect.TypeFor[EditLines]():      {Types: []string{"array", "string", "null"}, Items: &jsonschema.Schema{Type: "string"}},
		reflect.TypeFor[history.Change](): {
			Type: "object", Required: []string{"field"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			Description: "One field's change: field is a record key or metadata.<key>; old and new are JSON values, absent when unset.",
			Properties: map[string]*jsonschema.Schema{
				"field": {Type: "string"},
				"old":   {Description: "The value before (absent: not set)."},
				"new":   {Description: "The value after (absent: no longer set)."},
			},
			PropertyOrder: []string{"field", "old", "new"},
		},
	}
}

// fix drops refused properties and the nulls the documents never hold.
func fix(s *jsonschema.Schema, input bool) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if p != nil && p.Comment == refused {
			delete(s.Properties, name)
			s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(n string) bool { return n == name })
			s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == name })
		}
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && (input || s.Types[1] == "array") {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		if p.Type == "object" && p.AdditionalProperties == nil && p.Properties == nil {
			continue // metadata: anything goes, null included
		}
		fix(p, input)
	}
	fix(s.Items, input)
	if s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil {
		fix(s.AdditionalProperties, input)
	}
	for _, sub := range s.AnyOf {
		fix(sub, input)
	}
}

func mustFor[T any](input bool) *jsonschema.Schema {
	s, err := For(reflect.TypeFor[T](), input)
	if err != nil {
		panic(fmt.Sprintf("schema of %v: %v", reflect.TypeFor[T](), err))
	}
	return s
}

// answer is the output schema: anyOf the answers and the error envelope.
func answer(desc string, answers ...*jsonschema.Schema) *jsonschema.Schema {
	env := mustFor[contract.ErrorAnswer](false)
	env.Description = "The flat error envelope: nothing was done (exit 1 tool error, 2 usage error)."
	return &jsonschema.Schema{Description: desc, AnyOf: append(answers, env)}
}

// documents are the documents of every schema stem of the command table:
// the Go types the binaries decode and encode.
func documents() map[string]Doc {
	createIn := &jsonschema.Schema{
		Type:        "object",
		Description: "One task, or a batch {\"items\":[…]}.",
		AnyOf:       []*jsonschema.Schema{mustFor[task.CreateItem](true), mustFor[createBatch](true)},
	}
	createIn.AnyOf[0].Description = "One task."
	list := mustFor[task.ListRequest](true)
	list.Properties["status"].Enum = append(list.Properties["status"].Enum, "")
	list.Properties["status"].Description = "Only tasks with this status (\"\" or absent: pending and in_progress)."
	mismatch := mustFor[contract.MismatchAnswer](false)
	mismatch.Description = "anchor_mismatch: nothing was written; the mismatches carry the current lines with fresh anchors."
	links := func() *jsonschema.Schema {
		s := mustFor[contract.LinkAnswer](false)
		s.Description = "plan_link_broken: a task's link to its plan item cannot be followed by the item's text; nothing was changed, the links carry the candidate items."
		return s
	}
	docs := map[string]Doc{
		"task-create": {Input: createIn,
			Output: answer("task-create's answer (exit 0 all created, 3 some items failed, 1 all failed), or the error envelope.", mustFor[store.CreateResult](false))},
		"task-get": {Input: mustFor[task.IDRequest](true),
			Output: answer("task-get's answer (task null: no such task), or the error envelope.", mustFor[getAnswer](false))},
		"task-list": {Input: list,
			Output: answer("task-list's answer, or the error envelope.", mustFor[store.ListResult](false), mustFor[store.WavesResult](false), mustFor[store.FullListResult](false))},
		"task-update": {Input: mustFor[task.UpdateRequest](true),
			Output: answer("task-update's answer, or the error envelope.", mustFor[updateAnswer](false))},
		"task-cleanup": {Input: mustFor[task.CleanupRequest](true),
			Output: answer("task-cleanup's answer, or the error envelope.", mustFor[store.CleanupResult](false))},
		"task-claim": {Input: mustFor[claimInput](true),
			Output: answer("task-claim's answer (task null: nothing is ready), or the error envelope (claim_conflict, task_blocked, task_not_claimable, …).", mustFor[getAnswer](false))},
		"task-sync": {Output: answer("task-sync's answer (a sync reads no stdin), sync_conflict when the push budget ran out (exit 1, nothing lost, with the rounds' counts and decisions), or the error envelope (git_failed, task_lock_unavailable, …).",
			syncConflicts(mustFor[contract.SyncResult](false)), syncConflicts(mustFor[contract.SyncConflictAnswer](false)))},
		"task-sync-export": {Output: &jsonschema.Schema{Description: "One line of task-sync export's JSON Lines (records by id, then plans by name); a usage error prints the error envelope instead.", AnyOf: []*jsonschema.Schema{mustFor[syncLine](false)}}},
		"task-sync-import": {Input: mustFor[syncLine](true),
			Output: answer("task-sync import's answer (the input is JSON Lines, each line as in the input schema), or the error envelope (validation_error naming the line, import_conflict, …: nothing written).", mustFor[contract.SyncImportResult](false))},
		"task-sync-setup": {Output: answer("task-sync setup's answer, or the error envelope.", mustFor[syncSetupAnswer](false))},
		"task-feed":       {Output: feedLine()},
		"task-doctor": {Input: mustFor[doctorInput](true),
			Output: answer("task-doctor's report (exit 1 when it found errors, or warnings under strict), or the error envelope.", mustFor[store.DoctorReport](false))},
		"where": {Output: answer("--where's answer (every task binary, and plan --where SUBCOMMAND): what the command would use and why; nothing is read or written.", mustFor[contract.WhereAnswer](false))},
		"matrixx-hook": {Input: hookInput(),
			Output: answer("matrixx-hook's answer: a PreToolUse denial, a Stop/SubagentStop block, added context (SessionStart), or the error envelope of a usage error; no output at all means no opinion.",
				mustFor[contract.PreToolUseAnswer](false), mustFor[contract.StopAnswer](false), mustFor[contract.ContextAnswer](false), mustFor[contract.PostToolUseAnswer](false))},
		"plan-create": {Output: answer("plan create's answer, or the error envelope.", mustFor[plan.Created](false))},
		"plan-read":   {Output: answer("plan read --json's answer, or the error envelope.", mustFor[contract.PlanReadAnswer](false))},
		"plan-update": {Input: mustFor[planUpdateInput](true),
			Output: answer("plan update's answer, the anchor_mismatch answer, or the error envelope.", mustFor[plan.Updated](false), mismatch)},
		"plan-list":   {Output: answer("plan list's answer, or the error envelope.", mustFor[plan.Listing](false))},
		"plan-delete": {Output: answer("plan delete's answer, or the error envelope.", mustFor[plan.Deleted](false))},
		"plan-tasks":  {Output: answer("plan tasks' answer (a task-create batch), or the error envelope.", mustFor[plan.Manifest](false), links())},
		"plan-check":  {Output: answer("plan check's answer, or the error envelope.", mustFor[plan.Checked](false), links())},
		"plan-sync":   {Output: answer("plan sync's answer, or the error envelope.", mustFor[plan.Synced](false), links())},
	}
	return docs
}

// Docs returns every command's documents, in the command table's order
// (commands.Commands: each command with a schema stem). The schemas are
// fresh copies: callers may change them.
func Docs() []Doc {
	docs := documents()
	var out []Doc
	for _, c := range commands.Commands() {
		d, ok := docs[c.Schema]
		if c.Schema == "" || !ok {
			continue // TestEverySchemaListed fails for a stem without documents
		}
		d.Name, d.Command = c.Schema, c.Title
		out = append(out, d)
	}
	for _, d := range out {
		describe(d.Input)
		for _, s := range []*jsonschema.Schema{d.Input, d.Output} {
			if s != nil {
				s.Schema = Draft
				s.Title = d.Command
			}
		}
		if d.Input != nil {
			d.Input.Title = d.Command + " (stdin)"
		}
		if d.Output != nil {
			d.Output.Title = d.Command + " (stdout)"
		}
	}
	return out
}

// feedLine is one line of task-feed's JSON Lines: an event, or the error
// envelope of a failure (its last line).
func feedLine() *jsonschema.Schema {
	ev := mustFor[feed.Event](false)
	ev.Description = "One change (docs/board.md, \"task-feed: the change feed\")."
	ev.Properties["kind"].Enum = nil
	for _, k := range feed.Kinds {
		ev.Properties["kind"].Enum = append(ev.Properties["kind"].Enum, string(k))
	}
	ev.Properties["kind"].Description = "What happened: created, updated (fields names the fields), claimed, lease_expired, completed, deleted, reopened, released, outside, ready, blocked or unreadable."
	ev.Properties["status"].Description = "The task's status after the change."
	return answer("One line of task-feed's JSON Lines: an event (each line one JSON document), or the error envelope of a usage error or a failure.", ev)
}

// hookInput is the hook event's schema: hosts add fields, so any other key
// is allowed.
func hookInput() *jsonschema.Schema {
	s := mustFor[hookEvent](true)
	s.AdditionalProperties = nil
	s.Description = "One host hook event (Claude Code's hook input)."
	return s
}

// Find returns the documents of the file stem name ("task-list",
// "plan-update").
func Find(name string) (Doc, bool) {
	for _, d := range Docs() {
		if d.Name == name {
			return d, true
		}
	}
	return Doc{}, false
}

// inputHelp describes the input keys (the same key means the same thing in
// every document).
var inputHelp = map[string]string{
	"id":             "Task id, T-… .",
	"subject":        "Imperative title, e.g. \"Build backend\" (required on create, never blank).",
	"description":    "What to do and how to tell it is done.",
	"activeForm":     "Present-continuous form shown while in progress, e.g. \"Building backend\".",
	"blocks":         "Ids of tasks this task blocks.",
	"blockedBy":      "Ids of tasks this task waits for.",
	"owner":          "Owner (agent name); \"\" removes it on update.",
	"repoURL":        "Repository URL (create only).",
	"parentID":       "Parent task id: this is a subtask (create only; task-list: only subtasks of this parent).",
	"addBlocks":      "Ids this task also blocks (appended; no removal).",
	"addBlockedBy":   "Ids this task also waits for (appended; no removal).",
	"ready":          "Only pending tasks with no unresolved blocker: runnable now.",
	"all":            "task-list: every status, completed and deleted included. task-cleanup: every completed task (the default without olderThan).",
	"olderThan":      "Only tasks idle (file unchanged) for longer than this: <n>d, <n>h or <n>m.",
	"includeDeleted": "Also delete tasks with status deleted.",
	"stale":          "Also delete pending/in_progress tasks idle past olderThan (else tasks.stale_after_hours).",
	"dryRun":         "Report what would be done; change nothing.",
	"ref":            "task-create batch: names this item; later items of the batch may write \"@<ref>\" in blockedBy, blocks and parentID.",
	"labels":         "task-list: only tasks whose metadata.labels holds every one of these labels.",
	"text":           "task-list: only tasks whose subject or description holds every word (case-insensitive).",
	"full":           "task-list: each task's whole record instead of the short entry.",
}

// describe sets the descriptions of an input schema's keys that have none.
func describe(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if p.Description == "" {
			p.Description = inputHelp[name]
		}
	}
	for _, sub := range s.AnyOf {
		describe(sub)
	}
}
