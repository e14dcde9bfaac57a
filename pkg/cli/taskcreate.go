package cli

import (
	"io"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const createHelp = `Example: task-create --subject "Build backend"

Create tasks in the project's store (see README.md; decisions in docs/design.md).

Reads one task object or a batch {"items":[…]} on stdin, or builds one task from flags:

  echo '{"subject":"Build backend","blockedBy":["T-…"]}' | task-create
  task-create --subject "Build backend" --blocked-by T-…

` + stdinRequired + `

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
	globals
	writeFlags
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
}

func (c *createCmd) flagsGiven() bool {
	return c.Subject != nil || c.Description != "" || c.ActiveForm != "" || len(c.BlockedBy) > 0 ||
		len(c.Blocks) > 0 || c.Owner != "" || c.Priority != "" || c.Parent != "" || c.RepoURL != "" || c.Metadata != ""
}

// TaskCreate is the task-create binary.
func TaskCreate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run("task-create", createHelp, &createCmd{}, args, stdin, stdout, stderr)
}

func (c *createCmd) run(a *app) error {
	if c.Where {
		return a.where(&c.globals)
	}
	a.pretty = c.Pretty
	req, err := c.request(a)
	if err != nil {
		return err
	}
	e, err := a.open(&c.globals, &c.writeFlags)
	if err != nil {
		return err
	}
	res, err := e.store.Create(req)
	if err != nil {
		return err
	}
	for _, e := range res.Errors {
		a.warnf("item %d: %s: %s", e.Index, e.Error, e.Message)
	}
	for _, t := range res.Tasks {
		if t.Deduplicated && len(t.NotApplied) > 0 {
			a.warnf("warning: item %d: deduplicated against %s (an active task with the same subject written in the last 10 minutes); not applied: %s (change them with task-update %s)",
				t.Index, t.ID, strings.Join(t.NotApplied, ", "), t.ID)
		}
	}
	a.noteNewStore(e.before)
	a.emit(res)
	switch {
	case len(res.Errors) == 0:
		a.exit = errcode.ExitOK
	case len(res.Tasks) == 0:
		a.exit = errcode.ExitTool
	default:
		a.exit = errcode.ExitPartial
	}
	return nil
}

func (c *createCmd) request(a *app) (*task.CreateRequest, error) {
	if !c.flagsGiven() {
		data, empty, err := a.readInput("", docRequired)
		if err != nil {
			return nil, err
		}
		if empty {
			return nil, a.needInput(`'{"subject":"Build backend"}'`)
		}
		return task.ParseCreate(data)
	}
	if _, _, err := a.readInput("flags", docRequired); err != nil {
		return nil, err
	}
	parent := []*string{&c.Parent}
	if c.Parent == "" {
		parent = nil
	}
	if err := a.resolveHandles(&c.globals, &c.writeFlags, parent, []*[]string{&c.BlockedBy, &c.Blocks}); err != nil {
		return nil, err
	}
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
			return nil, err
		}
		it.Metadata = md
	}
	if err := it.Validate(); err != nil {
		return nil, flagError(err)
	}
	return &task.CreateRequest{Total: 1, Items: []task.CreateItem{it}, Index: []int{0}}, nil
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
