package mcpserver

import (
	"bytes"
	"reflect"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/schema"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Tool is one MCP tool: the command table's definition of it
// (commands.Tool: name, title, description, annotations, tier) and what a
// call runs.
type Tool struct {
	*commands.Tool
	// Binary is the binary whose operation the tool runs (the command
	// table's): its name prefixes the diagnostics.
	Binary string
	// Input is the inputSchema announced in tools/list.
	Input *jsonschema.Schema
	// Run decodes the call's arguments (a JSON object: the binary's stdin
	// document for the task tools, the name and options for the plan
	// tools) into the operation's request, runs it, and returns its answer
	// and the binary's exit status for it.
	Run func(o *ops.Ops, args []byte) (answer any, exit int, err error)
}

// The tiers, smallest first: a client that asks for the core tier
// (matrixx-mcp --tools core) is announced only the core tools, in at most
// MaxCoreBytes.
const (
	TierCore = commands.TierCore
	TierAll  = commands.TierAll
)

// MaxToolsBytes and MaxCoreBytes cap what tools/list announces (the tools'
// JSON, as sent): 16 KiB for every tool, 5 KiB for the core tier; about
// 4,096 and 1,280 tokens at 4 bytes a token.
const (
	MaxToolsBytes = 16 << 10
	MaxCoreBytes  = 5 << 10
)

// InTier reports whether the tool is offered in tier (TierCore or TierAll).
func (t Tool) InTier(tier string) bool {
	return tier != TierCore || t.Tier == TierCore
}

// The arguments of the plan tools: the plan binary takes the name and
// options as command-line arguments, so its MCP tools take them as JSON
// (and the stdin document, where there is one, as a member).

// PlanNameArgs are plan_delete's, plan_tasks' and plan_sync's arguments.
type PlanNameArgs struct {
	Name string `json:"name" jsonschema:"Plan name: kebab-case, without .md (auth, release-2-0)."`
}

// PlanCreateArgs are plan_create's arguments.
type PlanCreateArgs struct {
	Name    string  `json:"name" jsonschema:"Plan name: kebab-case, without .md (auth, release-2-0)."`
	Content *string `json:"content,omitzero" jsonschema:"The plan's markdown, written byte for byte (at most 102400 bytes); absent or empty: a template to fill in with plan_update."`
	Force   bool    `json:"force,omitzero" jsonschema:"Replace the plan if it exists (default: refuse with file_exists)."`
}

// PlanReadArgs are plan_read's arguments; the answer is plan read --json's.
type PlanReadArgs struct {
	Name   string `json:"name" jsonschema:"Plan name: kebab-case, without .md."`
	Offset *int   `json:"offset,omitzero" jsonschema:"First line to return (1-based, default 1); anchors stay absolute."`
	Limit  *int   `json:"limit,omitzero" jsonschema:"Return at most this many lines (0 or absent: all)."`
}

// PlanUpdateArgs are plan_update's arguments: plan update's stdin document
// with the name and --dry-run beside it.
type PlanUpdateArgs struct {
	Name   string        `json:"name" jsonschema:"Plan name: kebab-case, without .md."`
	Edits  []schema.Edit `json:"edits" jsonschema:"Anchored line edits, applied all or none; anchors (N#ID) come from plan_read and all refer to the plan as read."`
	DryRun bool          `json:"dryRun,omitzero" jsonschema:"Check and apply the edits, answer as usual, write nothing."`
}

// PlanCheckArgs are plan_check's arguments.
type PlanCheckArgs struct {
	Name    string `json:"name" jsonschema:"Plan name: kebab-case, without .md."`
	Item    int    `json:"item" jsonschema:"Number of the item as written (\"3. [ ] …\" is 3)."`
	Uncheck bool   `json:"uncheck,omitzero" jsonschema:"Clear the checkbox instead of ticking it."`
}

// PlanListArgs are plan_list's arguments: none.
type PlanListArgs struct{}

// ClaimArgs are task_claim's arguments, task-claim's stdin document
// {"id"?,"owner","lease"?,"paths"?}.
type ClaimArgs struct {
	ID    string   `json:"id,omitzero" jsonschema:"Task to claim (T-…); absent: the next ready task."`
	Owner string   `json:"owner" jsonschema:"Who claims it (agent name)."`
	Lease string   `json:"lease,omitzero" jsonschema:"How long the claim lasts without renewal (90s, 15m, 2h)."`
	Paths []string `json:"paths,omitzero" jsonschema:"Globs to lease with the claim (src/api/**): others' writes there are refused while it is live."`
}

// DoctorArgs are task_doctor's arguments, its flags --strict and --repair.
type DoctorArgs struct {
	Strict bool `json:"strict,omitzero" jsonschema:"Warnings fail too."`
	Repair bool `json:"repair,omitzero" jsonschema:"Apply the safe repairs (missing mirror edges, edges to tasks that no longer exist)."`
}

// decodeArgs decodes a plan tool's arguments strictly (unknown keys, wrong
// types and duplicate keys are validation_error, as on the binaries' stdin);
// null is accepted where the binary's stdin accepts it.
func decodeArgs(data []byte, v any) error {
	err := json.Unmarshal(data, v,
		json.RejectUnknownMembers(true), json.MatchCaseInsensitiveNames(false),
		jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
	if err != nil {
		return input.Explain(err)
	}
	return nil
}

// planArgs decodes a plan tool's arguments into T and runs run with them.
func planArgs[T any](run func(o *ops.Ops, a *T) (any, error)) func(*ops.Ops, []byte) (any, int, error) {
	return func(o *ops.Ops, data []byte) (any, int, error) {
		var a T
		if err := decodeArgs(data, &a); err != nil {
			return nil, 0, err
		}
		v, err := run(o, &a)
		return v, errcode.ExitOK, err
	}
}

// document reads a task tool's arguments as the binary reads its stdin
// document (input.Read: the size cap, a byte-order mark, blank as "{}").
func document(args []byte) ([]byte, error) {
	data, _, err := input.Read(bytes.NewReader(args), input.MaxBytes)
	return data, err
}

// taskTool runs a task tool: its arguments are the binary's stdin
// document, parsed by parse.
func taskTool[R any](parse func([]byte) (R, error), run func(o *ops.Ops, req R) (any, int, error)) func(*ops.Ops, []byte) (any, int, error) {
	return func(o *ops.Ops, args []byte) (any, int, error) {
		data, err := document(args)
		if err != nil {
			return nil, 0, err
		}
		req, err := parse(data)
		if err != nil {
			return nil, 0, err
		}
		return run(o, req)
	}
}

// ok is an operation's answer with exit status 0.
func ok[T any](v T, err error) (any, int, error) { return v, errcode.ExitOK, err }

func inputOf[T any]() *jsonschema.Schema {
	s, err := schema.For(reflect.TypeFor[T](), true)
	if err != nil {
		panic(err)
	}
	return s
}

func docInput(name string) *jsonschema.Schema {
	d, ok := schema.Find(name)
	if !ok || d.Input == nil {
		panic("no input schema for " + name)
	}
	s := d.Input
	s.Schema, s.Title = "", ""
	for prop, p := range s.Properties {
		if short, ok := shortDescriptions[prop]; ok && p != nil && p.Description != "" {
			c := *p
			c.Description = short
			s.Properties[prop] = &c
		}
	}
	for _, sub := range s.AnyOf {
		for prop, p := range sub.Properties {
			if short, ok := shortDescriptions[prop]; ok && p != nil && p.Description != "" {
				c := *p
				c.Description = short
				sub.Properties[prop] = &c
			}
		}
	}
	return s
}

// shortDescriptions replace the documents' descriptions of these members
// in the tools' input schemas: the documents' own (docs/schemas) speak to
// several binaries at once and to people; a tool's schema is read by a
// model on every turn, so it says only what that call needs (the bounds
// are MaxToolsBytes and MaxCoreBytes); "" drops the description.
var shortDescriptions = map[string]string{
	"subject":      "Imperative title (\"Build backend\").",
	"activeForm":   "Shown while in progress.",
	"metadata":     "Free-form object; null deletes a key.",
	"parentID":     "Parent task id (a subtask).",
	"repoURL":      "", // the name says it
	"status":       "Only this status (default: pending and in_progress).",
	"ready":        "Only runnable tasks (pending, unblocked).",
	"owner":        "Agent name; \"\" removes it.",
	"all":          "Every status.",
	"addBlocks":    "", // as blocks and blockedBy, appended
	"addBlockedBy": "",
	"priority":     "", // its enum says it all
	"blocks":       "", // blockedBy says the direction
	"blockedBy":    "Ids it waits for.",
	"labels":       "", // the names say it (task-list's filters)
	"text":         "",
	"full":         "",
}

// flat merges an anyOf of object schemas into one object schema (the union
// of their properties, none required): the Anthropic API refuses anyOf at
// the top of a tool's input schema. The binary still decides which form the
// document is in.
func flat(s *jsonschema.Schema) *jsonschema.Schema {
	out := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, sub := range s.AnyOf {
		for _, name := range sub.PropertyOrder {
			if _, ok := out.Properties[name]; !ok {
				out.Properties[name] = sub.Properties[name]
				out.PropertyOrder = append(out.PropertyOrder, name)
			}
		}
	}
	// A batch item has the members of one task, listed just above: said in
	// words rather than a second copy of their schemas (the binary checks
	// each item strictly).
	// A ref only means something in a batch: said there.
	if items, ok := out.Properties["items"]; ok && items.Items != nil {
		c := *items
		c.Items = &jsonschema.Schema{Type: "object"}
		c.Description = `At most 1000 tasks, each with the members above and "ref"; later items use "@ref" as an id.`
		out.Properties["items"] = &c
		delete(out.Properties, "ref")
		out.PropertyOrder = slices.DeleteFunc(out.PropertyOrder, func(n string) bool { return n == "ref" })
	}
	return out
}

// binding is what the server adds to a tool of the command table: its
// input schema and the call.
type binding struct {
	input func() *jsonschema.Schema
	run   func(o *ops.Ops, args []byte) (any, int, error)
}

// bindings are the tools' bindings by tool name.
func bindings() map[string]binding {
	return map[string]binding{
		"task_create": {input: func() *jsonschema.Schema { return flat(docInput("task-create")) },
			run: taskTool(task.ParseCreate, func(o *ops.Ops, req *task.CreateRequest) (any, int, error) {
				res, err := o.Create(req)
				if err != nil {
					return nil, 0, err
				}
				return res, ops.CreateExit(res), nil
			})},
		"task_get": {input: func() *jsonschema.Schema { return docInput("task-get") },
			run: taskTool(func(data []byte) (*task.IDRequest, error) {
				var req task.IDRequest
				return &req, input.Decode(data, &req)
			}, func(o *ops.Ops, req *task.IDRequest) (any, int, error) { return ok(o.Get(req.ID, req.History)) })},
		"task_list": {input: func() *jsonschema.Schema { return docInput("task-list") },
			run: taskTool(task.ParseList, func(o *ops.Ops, req *task.ListRequest) (any, int, error) {
				return ok(o.Listing(req))
			})},
		"task_update": {input: func() *jsonschema.Schema { return docInput("task-update") },
			run: taskTool(task.ParseUpdate, func(o *ops.Ops, req *task.UpdateRequest) (any, int, error) { return ok(o.Update(req)) })},
		"task_cleanup": {input: func() *jsonschema.Schema { return docInput("task-cleanup") },
			run: taskTool(task.ParseCleanup, func(o *ops.Ops, req *task.CleanupRequest) (any, int, error) { return ok(o.Cleanup(req)) })},
		"task_claim": {input: func() *jsonschema.Schema { return inputOf[ClaimArgs]() },
			run: taskTool(func(data []byte) (store.ClaimRequest, error) {
				doc, lease, err := task.ParseClaim(data)
				if err != nil {
					return store.ClaimRequest{}, err
				}
				return store.ClaimRequest{ID: doc.ID, Owner: doc.Owner, Lease: lease, Paths: doc.Paths}, nil
			}, func(o *ops.Ops, req store.ClaimRequest) (any, int, error) { return ok(o.Claim(req, "")) })},
		"task_doctor": {input: func() *jsonschema.Schema { return inputOf[DoctorArgs]() },
			run: func(o *ops.Ops, data []byte) (any, int, error) {
				var a DoctorArgs
				if err := decodeArgs(data, &a); err != nil {
					return nil, 0, err
				}
				rep, err := o.Doctor(a.Repair)
				if err != nil {
					return nil, 0, err
				}
				return rep, ops.DoctorExit(rep, a.Strict), nil
			}},
		"plan_create": {input: func() *jsonschema.Schema { return inputOf[PlanCreateArgs]() },
			run: planArgs(func(o *ops.Ops, a *PlanCreateArgs) (any, error) {
				if err := plan.CheckName(a.Name); err != nil {
					return nil, err
				}
				var content []byte
				if a.Content != nil {
					content = []byte(*a.Content)
				}
				// As plan create reads its stdin: the cap, and the
				// template for no content.
				data, empty, err := input.Read(bytes.NewReader(content), plan.MaxBytes)
				if errcode.Of(err) == errcode.InputTooLarge {
					return nil, errcode.New(errcode.FileTooLarge, "the markdown on stdin is larger than %d bytes (100 KiB), the cap on a plan; nothing was written", plan.MaxBytes)
				}
				if err != nil {
					return nil, err
				}
				if empty {
					data = plan.Template(a.Name)
				}
				return o.PlanCreate(a.Name, data, empty, a.Force)
			})},
		"plan_read": {input: func() *jsonschema.Schema { return inputOf[PlanReadArgs]() },
			run: planArgs(func(o *ops.Ops, a *PlanReadArgs) (any, error) {
				offset, limit := 1, 0
				if a.Offset != nil {
					offset = *a.Offset
				}
				if a.Limit != nil {
					limit = *a.Limit
				}
				if offset < 1 {
					return nil, errcode.New(errcode.InvalidArguments, "--offset %d: lines are numbered from 1", offset)
				}
				if limit < 0 {
					return nil, errcode.New(errcode.InvalidArguments, "--limit %d: must be 0 (all) or more", limit)
				}
				pg, err := o.PlanRead(a.Name, offset, limit)
				if err != nil {
					return nil, err
				}
				return pg.Answer(), nil
			})},
		"plan_update": {input: func() *jsonschema.Schema { return inputOf[PlanUpdateArgs]() },
			run: func(o *ops.Ops, data []byte) (any, int, error) {
				// name and dryRun are ours; the edits are judged as plan
				// update's stdin document, as given.
				var a struct {
					Name   string         `json:"name"`
					Edits  jsontext.Value `json:"edits,omitzero"`
					DryRun bool           `json:"dryRun,omitzero"`
				}
				if err := decodeArgs(data, &a); err != nil {
					return nil, 0, err
				}
				if err := plan.CheckName(a.Name); err != nil {
					return nil, 0, err
				}
				doc := []byte("{}")
				if a.Edits != nil {
					doc = append(append([]byte(`{"edits":`), a.Edits...), '}')
				}
				edits, err := hashline.ParseEdits(doc)
				if err != nil {
					return nil, 0, err
				}
				return ok(o.PlanUpdate(a.Name, edits, a.DryRun))
			}},
		"plan_list": {input: func() *jsonschema.Schema { return inputOf[PlanListArgs]() },
			run: planArgs(func(o *ops.Ops, _ *PlanListArgs) (any, error) { return o.PlanList() })},
		"plan_delete": {input: func() *jsonschema.Schema { return inputOf[PlanNameArgs]() },
			run: planArgs(func(o *ops.Ops, a *PlanNameArgs) (any, error) { return o.PlanDelete(a.Name) })},
		"plan_tasks": {input: func() *jsonschema.Schema { return inputOf[PlanNameArgs]() },
			run: planArgs(func(o *ops.Ops, a *PlanNameArgs) (any, error) { return o.PlanTasks(a.Name) })},
		"plan_check": {input: func() *jsonschema.Schema { return inputOf[PlanCheckArgs]() },
			run: planArgs(func(o *ops.Ops, a *PlanCheckArgs) (any, error) { return o.PlanCheck(a.Name, a.Item, a.Uncheck) })},
		"plan_sync": {input: func() *jsonschema.Schema { return inputOf[PlanNameArgs]() },
			run: planArgs(func(o *ops.Ops, a *PlanNameArgs) (any, error) { return o.PlanSync(a.Name) })},
	}
}

// Tools returns matrixx-mcp's tools in the order tools/list announces them:
// the command table's tools (commands.Tools), each with its binding.
func Tools() []Tool {
	bs := bindings()
	var out []Tool
	for _, c := range commands.Tools() {
		b, ok := bs[c.Tool.Name]
		if !ok {
			continue // TestEveryToolBound fails
		}
		out = append(out, Tool{Tool: c.Tool, Binary: c.Binary, Input: b.input(), Run: b.run})
	}
	return out
}
