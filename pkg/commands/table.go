// Package commands is the command table: every binary of the toolkit and
// every command it offers, described once. A binary's entry holds its
// --help text and its command line (a kong model: the flags and arguments,
// the subcommands with their own help, each field the request member it
// fills); a command's entry holds the operation it runs, the file stem of
// its JSON Schemas (docs/schemas) and, when matrixx-mcp offers it, the MCP
// tool (name, title, tier, annotations, description).
//
// Every front end derives what it knows of the binaries from here: the
// binaries' --help and parsing (pkg/cli, pkg/cli/hookcmd, pkg/mcpserver),
// shell completion (matrixx completion), the MCP tool list, the schemas'
// list (pkg/schema) and the guard's and the hook's knowledge of our own
// binaries and tools. The package imports nothing of the toolkit and only
// kong beside the standard library, so the smallest binary may import it.
// docs/design/operations.md says how to add a command.
package commands

import (
	"io"

	"github.com/alecthomas/kong"
)

// The binaries' names.
const (
	BinCreate  = "task-create"
	BinGet     = "task-get"
	BinList    = "task-list"
	BinUpdate  = "task-update"
	BinCleanup = "task-cleanup"
	BinClaim   = "task-claim"
	BinDoctor  = "task-doctor"
	BinSync    = "task-sync"
	BinFeed    = "task-feed"
	BinPlan    = "plan"
	BinHook    = "matrixx-hook"
	BinMCP     = "matrixx-mcp"
	// BinPorcelain is matrixx, the porcelain for people: its command line
	// is its own (pkg/porcelain), a person's words over the same
	// operations.
	BinPorcelain = "matrixx"
)

// Binary is one binary of the toolkit.
type Binary struct {
	// Name is the binary's name, as installed.
	Name string
	// Summary says in one line what it is for.
	Summary string
	// Help is the description --help prints above the flags.
	Help string
	// Grammar returns a fresh kong model of its command line; nil for
	// matrixx, whose model is the porcelain's own.
	Grammar func() any
}

// Binaries returns every binary, in a stable order: matrixx first, then
// the plumbing as the completion scripts list it.
func Binaries() []Binary {
	return []Binary{
		{Name: BinPorcelain, Summary: "The porcelain for people: add, ls, show, claim, done, plans, the board."},
		{Name: BinCreate, Summary: "Create tasks.", Help: taskCreateHelp, Grammar: func() any { return &TaskCreate{} }},
		{Name: BinGet, Summary: "Print one task.", Help: taskGetHelp, Grammar: func() any { return &TaskGet{} }},
		{Name: BinList, Summary: "List tasks with their unresolved blockers.", Help: taskListHelp, Grammar: func() any { return &TaskList{} }},
		{Name: BinUpdate, Summary: "Update one task.", Help: taskUpdateHelp, Grammar: func() any { return &TaskUpdate{} }},
		{Name: BinCleanup, Summary: "Delete finished tasks.", Help: taskCleanupHelp, Grammar: func() any { return &TaskCleanup{} }},
		{Name: BinClaim, Summary: "Claim one task for an owner, atomically.", Help: taskClaimHelp, Grammar: func() any { return &TaskClaim{} }},
		{Name: BinDoctor, Summary: "Check the task store.", Help: taskDoctorHelp, Grammar: func() any { return &TaskDoctor{} }},
		{Name: BinSync, Summary: "Share the task store between machines through git.", Help: taskSyncHelp, Grammar: func() any { return &TaskSync{} }},
		{Name: BinFeed, Summary: "Stream the task store's changes as JSON Lines.", Help: taskFeedHelp, Grammar: func() any { return &TaskFeed{} }},
		{Name: BinPlan, Summary: "Markdown plans with hash-anchored line edits.", Help: planHelp, Grammar: func() any { return &Plan{} }},
		{Name: BinHook, Summary: "The agent hosts' hooks: guard, notepads, continuation, session start.", Help: hookHelp, Grammar: func() any { return &Hook{} }},
		{Name: BinMCP, Summary: "The MCP server: the task and plan tools.", Help: mcpHelp, Grammar: func() any { return &MCP{} }},
	}
}

// Find returns the binary called name.
func Find(name string) (Binary, bool) {
	for _, b := range Binaries() {
		if b.Name == name {
			return b, true
		}
	}
	return Binary{}, false
}

// Help is the --help description of binary name ("" when there is none).
func Help(name string) string {
	b, _ := Find(name)
	return b.Help
}

// Names returns the binaries' names, in Binaries' order.
func Names() []string {
	bs := Binaries()
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}

// Own reports whether name is one of the toolkit's binaries.
func Own(name string) bool {
	_, ok := Find(name)
	return ok
}

// Grammar returns a kong parser holding binary name's command line (flags,
// subcommands, arguments, their help and enums), for shell completion and
// tests; nil for matrixx and for a name that is not ours. The parser is
// never run: it writes nowhere and exits nothing.
func Grammar(name string) *kong.Kong {
	b, ok := Find(name)
	if !ok || b.Grammar == nil {
		return nil
	}
	k, err := kong.New(b.Grammar(), kong.Name(name), kong.Description(b.Help), kong.Writers(io.Discard, io.Discard),
		kong.Exit(func(int) {}), kong.Vars{"version": name})
	if err != nil {
		return nil
	}
	return k
}

// Command is one command a binary runs: the binary itself, or one of its
// subcommands.
type Command struct {
	// Binary is the binary that runs it; Sub its subcommand ("" for the
	// binary's own command).
	Binary, Sub string
	// Op is the operation it runs: a method of *ops.Ops ("Create",
	// "PlanRead"); "" when it runs none (matrixx-hook's events, task-sync's
	// merge driver, --where).
	Op string
	// Schema is the file stem of its JSON Schemas in docs/schemas
	// ("task-create", "plan-update": <stem>.input.json, <stem>.output.json);
	// "" when it has none.
	Schema string
	// Title names it in the schemas: how it is run ("task-create",
	// "plan update", "plan read --json").
	Title string
	// Tool is its MCP tool; nil when matrixx-mcp does not offer it.
	Tool *Tool
}

// The MCP tiers, smallest first.
const (
	TierCore = "core"
	TierAll  = "all"
)

// Tool is how matrixx-mcp offers a command: its definition in tools/list.
type Tool struct {
	// Name is the tool's name (task_create, plan_read, …); Claude Code
	// calls it mcp__matrixx__<Name>.
	Name        string
	Title       string
	Description string
	// ReadOnly, Destructive and Idempotent are the tool's annotations.
	ReadOnly, Destructive, Idempotent bool
	// Write says the operation may take the lock (the command's
	// --lock-timeout applies).
	Write bool
	// Tier is the smallest tool set that offers the tool: TierCore for the
	// five a task loop needs (create, list, get, update, claim), TierAll
	// for the rest.
	Tier string
}

// Commands returns every command with an operation, a schema or a tool, in
// a stable order: the order of docs/schemas' list and of tools/list.
func Commands() []Command {
	return []Command{
		{Binary: BinCreate, Op: "Create", Schema: "task-create", Title: "task-create", Tool: &Tool{Name: "task_create", Title: "Create tasks", Write: true, Tier: TierCore,
			Description: `Create one task ({"subject",…}) or a batch ({"items":[…]}). Answer: {"tasks":[{"id","subject","deduplicated"?}],"errors":[…],"refs"?}; a same-subject active task from the last 10 minutes is returned (deduplicated).`}},
		{Binary: BinGet, Op: "Get", Schema: "task-get", Title: "task-get", Tool: &Tool{Name: "task_get", Title: "Get a task", ReadOnly: true, Idempotent: true, Tier: TierCore,
			Description: `Read one task: {"task":{…}}, or {"task":null} when there is none.`}},
		{Binary: BinList, Op: "Listing", Schema: "task-list", Title: "task-list", Tool: &Tool{Name: "task_list", Title: "List tasks", ReadOnly: true, Idempotent: true, Tier: TierCore,
			Description: `List tasks with their unresolved blockers. Answer: {"tasks":[{"id","subject","status","owner"?,"blockedBy","parentID"?}]}; full: whole records.`}},
		{Binary: BinUpdate, Op: "Update", Schema: "task-update", Title: "task-update", Tool: &Tool{Name: "task_update", Title: "Update a task", Write: true, Idempotent: true, Tier: TierCore,
			Description: `Update one task: scalars replace, addBlocks/addBlockedBy append, removeBlocks/removeBlockedBy remove (both ends), metadata merges. Start a task with task_claim; set "completed" when done. Answer: {"task":{…}}.`}},
		{Binary: BinCleanup, Op: "Cleanup", Schema: "task-cleanup", Title: "task-cleanup", Tool: &Tool{Name: "task_cleanup", Title: "Delete finished tasks", Write: true, Destructive: true, Tier: TierAll,
			Description: `Delete completed tasks ("olderThan":"7d" for only those idle longer; "includeDeleted", "stale"; "dryRun":true to only report). Tasks still needed are kept: keptBlockers (an active task waits for them) and keptPlanItems (their plan item is unticked). Answer: {"deleted","remaining","deletedIds",…}.`}},
		{Binary: BinClaim, Op: "Claim", Schema: "task-claim", Title: "task-claim", Tool: &Tool{Name: "task_claim", Title: "Claim a task", Write: true, Tier: TierCore,
			Description: `Claim a task for an owner (in_progress under a lease); no id: the next ready task. Answer: {"task":{…}} or {"task":null}; refused with claim_conflict, task_blocked, task_not_claimable.`}},
		{Binary: BinSync, Op: "Sync", Schema: "task-sync", Title: "task-sync"},
		{Binary: BinSync, Sub: "export", Schema: "task-sync-export", Title: "task-sync export"},
		{Binary: BinSync, Sub: "import", Schema: "task-sync-import", Title: "task-sync import"},
		{Binary: BinSync, Sub: "setup", Schema: "task-sync-setup", Title: "task-sync setup"},
		{Binary: BinSync, Sub: "merge-driver"},
		{Binary: BinFeed, Schema: "task-feed", Title: "task-feed"},
		{Binary: BinDoctor, Op: "Doctor", Schema: "task-doctor", Title: "task-doctor", Tool: &Tool{Name: "task_doctor", Title: "Check the task store", Write: true, Idempotent: true, Tier: TierAll,
			Description: `Check the task store: missing blockers and parents, cycles, corrupt files (errors), one-sided edges and expired claims (warnings); "repair":true applies the safe repairs. Answer: task-doctor's report.`}},
		{Op: "Where", Schema: "where", Title: "--where"},
		{Binary: BinHook, Schema: "matrixx-hook", Title: "matrixx-hook"},
		{Binary: BinPlan, Sub: "create", Op: "PlanCreate", Schema: "plan-create", Title: "plan create", Tool: &Tool{Name: "plan_create", Title: "Create a plan", Write: true, Tier: TierAll,
			Description: `Create .matrixx/plans/<name>.md from markdown ("content"; a template when absent). Numbered checkbox items ("1. [ ] …") are the work. Answer: {"name","size","progress":{"done","total"},"totalLines","replaced"?,"template"?}.`}},
		{Binary: BinPlan, Sub: "read", Op: "PlanRead", Schema: "plan-read", Title: "plan read --json", Tool: &Tool{Name: "plan_read", Title: "Read a plan", Write: true, ReadOnly: true, Idempotent: true, Tier: TierAll,
			Description: `Read a plan as plan read --json answers it: {"name","size","progress","totalLines","lines":[{"line","id","text"}]}. plan_update needs the anchors "<line>#<id>" of these lines.`}},
		{Binary: BinPlan, Sub: "update", Op: "PlanUpdate", Schema: "plan-update", Title: "plan update", Tool: &Tool{Name: "plan_update", Title: "Edit a plan", Write: true, Tier: TierAll,
			Description: `Apply anchored line edits to a plan, all or none: {"name","edits":[{"op":"replace|append|prepend","pos":"N#ID","end"?,"lines":[…]}],"dryRun"?}. When an anchor no longer matches nothing is written and the answer is anchor_mismatch with the current lines and fresh anchors. Answer: {"name","size","progress","totalLines","changed","lines"}.`}},
		{Binary: BinPlan, Sub: "list", Op: "PlanList", Schema: "plan-list", Title: "plan list", Tool: &Tool{Name: "plan_list", Title: "List plans", Write: true, ReadOnly: true, Idempotent: true, Tier: TierAll,
			Description: `List the plans with size and progress: {"plans":[{"name","size","progress":{"done","total"}}],"problems"?}.`}},
		{Binary: BinPlan, Sub: "delete", Op: "PlanDelete", Schema: "plan-delete", Title: "plan delete", Tool: &Tool{Name: "plan_delete", Title: "Delete a plan", Write: true, Destructive: true, Tier: TierAll,
			Description: `Delete a plan (its tasks are left alone): {"name","deleted":true}.`}},
		{Binary: BinPlan, Sub: "tasks", Op: "PlanTasks", Schema: "plan-tasks", Title: "plan tasks", Tool: &Tool{Name: "plan_tasks", Title: "Plan items to file", Write: true, ReadOnly: true, Idempotent: true, Tier: TierAll,
			Description: `The plan's open numbered items that have no task yet, as a task_create batch: {"items":[{"subject","metadata":{"planName","planItem"}}]}; pass it to task_create as it is. Never files an item twice.`}},
		{Binary: BinPlan, Sub: "check", Op: "PlanCheck", Schema: "plan-check", Title: "plan check", Tool: &Tool{Name: "plan_check", Title: "Tick a plan item", Write: true, Idempotent: true, Tier: TierAll,
			Description: `Tick numbered item N of a plan ("uncheck":true clears it); no anchor needed. Answer: {"name","size","progress","item","done","changed","lines"}.`}},
		{Binary: BinPlan, Sub: "sync", Op: "PlanSync", Schema: "plan-sync", Title: "plan sync", Tool: &Tool{Name: "plan_sync", Title: "Tick finished plan items", Write: true, Idempotent: true, Tier: TierAll,
			Description: `Tick every open item of the plan whose task is completed: {"name","size","progress","checked":[N,…],"lines"}.`}},
	}
}

// Tools returns the commands matrixx-mcp offers, in the order tools/list
// announces them.
func Tools() []Command {
	var out []Command
	for _, c := range Commands() {
		if c.Tool != nil {
			out = append(out, c)
		}
	}
	return out
}

// OwnTool reports whether name is one of matrixx-mcp's tools (task_create,
// plan_read, …).
func OwnTool(name string) bool {
	for _, c := range Commands() {
		if c.Tool != nil && c.Tool.Name == name {
			return true
		}
	}
	return false
}
