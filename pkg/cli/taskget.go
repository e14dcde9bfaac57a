package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// getCmd is task-get's command line (commands.TaskGet) and what it runs.
type getCmd struct{ commands.TaskGet }

// TaskGet is the task-get binary.
func TaskGet(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &getCmd{}
	return app.Run("task-get", commands.Help("task-get"), c, c.run, args, stdin, stdout, stderr)
}

func (c *getCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	id := c.ID
	hist := c.History
	if id != "" {
		if _, _, err := a.ReadInput("the id argument", app.DocRequired); err != nil {
			return err
		}
	} else {
		data, empty, err := a.ReadInput("", app.DocRequired)
		if err != nil {
			return err
		}
		if empty {
			return a.NeedInput(`'{"id":"T-…"}'`)
		}
		var req task.IDRequest
		if err := input.Decode(data, &req); err != nil {
			return err
		}
		id = req.ID
		hist = hist || req.History
	}
	o := a.Ops(&c.Globals, nil)
	var ans *contract.TaskAnswer
	var err error
	if c.ID != "" {
		ans, err = o.GetHandle(id, hist)
	} else {
		ans, err = o.Get(id, hist)
	}
	if err != nil {
		return err
	}
	a.Emit(ans)
	return nil
}
