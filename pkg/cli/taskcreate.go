package cli

import (
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func (c *createCmd) flagsGiven() bool {
	return c.Subject != nil || c.Description != "" || c.ActiveForm != "" || len(c.BlockedBy) > 0 ||
		len(c.Blocks) > 0 || c.Owner != "" || c.Priority != "" || c.Parent != "" || c.RepoURL != "" || c.Metadata != "" || len(c.Paths) > 0
}

// createCmd is task-create's command line (commands.TaskCreate) and what it runs.
type createCmd struct{ commands.TaskCreate }

// TaskCreate is the task-create binary.
func TaskCreate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &createCmd{}
	return app.Run("task-create", commands.Help("task-create"), c, c.run, args, stdin, stdout, stderr)
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
	// The flag is the metadata object itself: one level less than in a
	// document ({"metadata":{…}}).
	if err := input.CheckDepth([]byte(s), input.MaxDepth-1); err != nil {
		return nil, errcode.Field(errcode.InvalidArguments, "--metadata", "nests arrays and objects more than %d levels deep (the cap on nesting)", input.MaxDepth-1)
	}
	if err := json.Unmarshal([]byte(s), &md, jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)); err != nil {
		return nil, errcode.Field(errcode.InvalidArguments, "--metadata", "%s", errcode.As(input.Explain(err)).Message)
	}
	return md, nil
}
