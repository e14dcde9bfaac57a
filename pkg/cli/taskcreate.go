package cli

import (
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const createHelp = `Example: task-create --subject "Build backend"

Create tasks in the project's store (see README.md; decisions in docs/design.md).

Reads one task object or a batch {"items":[…]} on stdin, or builds one task from flags:

  echo '{"subject":"Build backend","blockedBy":["T-…"]}' | task-create
  task-create --subject "Build backend" --blocked-by T-…

` + app.StdinRequired + `

Fields: subject (required), description, activeForm, blocks, blockedBy, owner, priority
(low|medium|high), metadata (object), repoURL, parentID. New tasks are pending and carry
threadID (--session) and projectRoot. A batch holds at most 1000 items (validation_error
otherwise: split it); an empty batch is a no-op ({"tasks":[],"errors":[]}, exit 0).

An active task of this project with the same trimmed subject written in the last 10 minutes is
returned with "deduplicated":true instead of a new one, unless the two name different plan items:
metadata planName and planItem must be equal too (both absent counts as equal), so two plan
items with the same text each get their task.

Answer: {"tasks":[{"id","subject"[,"deduplicated":true]}],"errors":[{"index","error","message"}]}
Exit: 0 all created, 3 some items failed, 1 all failed or a tool error, 2 usage error.

JSON Schemas of the stdin document and the answer: docs/schemas/task-create.input.json and
docs/schemas/task-create.output.json.`

type createCmd struct {
	app.Globals
	app.WriteFlags
	Subject     *string  `short:"s" help:"Subject of one task (instead of stdin)."`
	Description string   `short:"d" help:"Description."`
	ActiveForm  string   `name:"active-form" help:"Present-continuous form, e.g. \"Building backend\"."`
	BlockedBy   []string `name:"blocked-by" sep:"," placeholder:"ID" help:"Ids this task waits for (repeat or comma-separate)."`
	Blocks      []string `name:"blocks" sep:"," placeholder:"ID" help:"Ids this task blocks."`
	Owner       string   `help:"Owner (agent name)."`
	Priority    string   `enum:",low,medium,high" default:"" help:"low, medium or high."`
	Parent      string   `name:"parent" placeholder:"ID" help:"Parent task id (makes this a subtask)."`
	RepoURL     string   `name:"repo-url" help:"Repository URL."`
	Metadata    string   `placeholder:"JSON" help:"Metadata object as JSON."`
	Paths       []string `placeholder:"GLOB" help:"Paths the task will touch (globs relative to the checkout's top: src/api/**), kept in metadata.paths; task-claim leases them (docs/leases.md)."`
}

func (c *createCmd) flagsGiven() bool {
	return c.Subject != nil || c.Description != "" || c.ActiveForm != "" || len(c.BlockedBy) > 0 ||
		len(c.Blocks) > 0 || c.Owner != "" || c.Priority != "" || c.Parent != "" || c.RepoURL != "" || c.Metadata != "" || len(c.Paths) > 0
}

// TaskCreate is the task-create binary.
func TaskCreate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &createCmd{}
	return app.Run("task-create", createHelp, c, c.run, args, stdin, stdout, stderr)
}

func (c *createCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	o := a.Ops(&c.Globals, &c.WriteFlags)
	var res *store.CreateResult
	if !c.flagsGiven() {
		data, empty, err := a.ReadInput("", app.DocRequired)
		if err != nil {
			return err
		}
		if empty {
			return a.NeedInput(`'{"subject":"Build backend"}'`)
		}
		req, err := task.ParseCreate(data)
		if err != nil {
			return err
		}
		if res, err = o.Create(req); err != nil {
			return err
		}
	} else {
		if _, _, err := a.ReadInput("flags", app.DocRequired); err != nil {
			return err
		}
		it, err := c.item()
		if err != nil {
			return err
		}
		if len(c.Paths) > 0 {
			if err := o.DeclarePaths(&it, c.Paths); err != nil {
				return err
			}
		}
		if res, err = o.CreateFlags(it); err != nil {
			return err
		}
	}
	a.Emit(res)
	a.Exit = ops.CreateExit(res)
	return nil
}

// item is the one task the flags describe.
func (c *createCmd) item() (task.CreateItem, error) {
	subject := ""
	if c.Subject != nil {
		subject = *c.Subject
	}
	it := task.CreateItem{
		Subject: subject, Description: c.Description, ActiveForm: c.ActiveForm,
		BlockedBy: c.BlockedBy, Blocks: c.Blocks, Owner: c.Owner, Priority: task.Priority(c.Priority),
		ParentID: c.Parent, RepoURL: c.RepoURL,
	}
	if c.Metadata != "" {
		md, err := parseMetadata(c.Metadata)
		if err != nil {
			return it, err
		}
		it.Metadata = md
	}
	return it, nil
}

// parseMetadata decodes a --metadata flag: a JSON object (valid UTF-8, no
// duplicate keys) whose null values mean "delete this key" on update.
func parseMetadata(s string) (task.Metadata, error) {
	var md task.Metadata
	if jsontext.Value(s).Kind() != '{' {
		return nil, errcode.Field(errcode.InvalidArguments, "--metadata", "must be a JSON object, e.g. '{\"area\":\"api\"}'")
	}
	if err := json.Unmarshal([]byte(s), &md, jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)); err != nil {
		return nil, errcode.Field(errcode.InvalidArguments, "--metadata", "%s", errcode.As(input.Explain(err)).Message)
	}
	return md, nil
}
