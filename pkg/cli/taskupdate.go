package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// updateCmd is task-update's command line (commands.TaskUpdate) and what it runs.
type updateCmd struct{ commands.TaskUpdate }

// TaskUpdate is the task-update binary.
func TaskUpdate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &updateCmd{}
	return app.Run("task-update", commands.Help("task-update"), c, c.run, args, stdin, stdout, stderr)
}

func (c *updateCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	req, err := c.request(a)
	if err != nil {
		return err
	}
	ans, err := a.Ops(&c.Globals, &c.WriteFlags).Update(req)
	if err != nil {
		return err
	}
	a.Emit(ans)
	return nil
}

func (c *updateCmd) flagsGiven() bool {
	return c.Subject != nil || c.Description != nil || c.Status != nil || c.ActiveForm != nil || c.Owner != nil ||
		c.Priority != nil || len(c.AddBlocks) > 0 || len(c.AddBlockedBy) > 0 || len(c.RemoveBlocks) > 0 || len(c.RemoveBlockedBy) > 0 || c.Metadata != "" ||
		c.ExpectStatus != nil || c.ExpectOwner != nil || c.Lease != "" || c.Force
}

func (c *updateCmd) request(a *app.App) (*task.UpdateRequest, error) {
	if c.ID == "" && c.flagsGiven() {
		return nil, errcode.New(errcode.InvalidArguments, "flags need the task id as the first argument: task-update T-… --status completed")
	}
	if c.ID == "" {
		data, empty, err := a.ReadInput("", app.DocRequired)
		if err != nil {
			return nil, err
		}
		if empty {
			return nil, a.NeedInput(`'{"id":"T-…","status":"completed"}'`)
		}
		return task.ParseUpdate(data)
	}
	if _, _, err := a.ReadInput("the id argument", app.DocRequired); err != nil {
		return nil, err
	}
	if err := a.Ops(&c.Globals, &c.WriteFlags).ResolveHandles([]*string{&c.ID}, []*[]string{&c.AddBlocks, &c.AddBlockedBy, &c.RemoveBlocks, &c.RemoveBlockedBy}); err != nil {
		return nil, err
	}
	req := &task.UpdateRequest{
		ID: c.ID, Subject: c.Subject, Description: c.Description, ActiveForm: c.ActiveForm,
		Owner: c.Owner, AddBlocks: c.AddBlocks, AddBlockedBy: c.AddBlockedBy, Lease: c.Lease,
		RemoveBlocks: c.RemoveBlocks, RemoveBlockedBy: c.RemoveBlockedBy, Force: c.Force,
	}
	if c.ExpectStatus != nil || c.ExpectOwner != nil {
		req.Expect = &task.Expect{Owner: c.ExpectOwner}
		if c.ExpectStatus != nil {
			st := task.Status(*c.ExpectStatus)
			req.Expect.Status = &st
		}
	}
	if c.Status != nil {
		s := task.Status(*c.Status)
		req.Status = &s
	}
	if c.Priority != nil {
		p := task.Priority(*c.Priority)
		req.Priority = &p
	}
	if c.Metadata != "" {
		md, err := parseMetadata(c.Metadata)
		if err != nil {
			return nil, err
		}
		req.Metadata = md
	}
	return req, ops.FlagError(req.Validate())
}
