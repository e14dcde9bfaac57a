package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// cleanupCmd is task-cleanup's command line (commands.TaskCleanup) and what it runs.
type cleanupCmd struct{ commands.TaskCleanup }

// TaskCleanup is the task-cleanup binary.
func TaskCleanup(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cleanupCmd{}
	return app.Run("task-cleanup", commands.Help("task-cleanup"), c, c.run, args, stdin, stdout, stderr)
}

func (c *cleanupCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	req := &task.CleanupRequest{OlderThan: c.OlderThan, IncludeDeleted: c.IncludeDeleted, Stale: c.Stale, DryRun: c.DryRun}
	given := ""
	if c.OlderThan != "" || c.IncludeDeleted || c.Stale || c.DryRun {
		given = "flags"
	}
	data, _, err := a.ReadInput(given, app.DocDestructive)
	if err != nil {
		return err
	}
	if given == "" {
		if req, err = task.ParseCleanup(data); err != nil {
			return err
		}
	} else if err := req.Validate(); err != nil {
		return ops.FlagError(err)
	}
	a.Pretty = c.Pretty
	res, err := a.Ops(&c.Globals, &c.WriteFlags).Cleanup(req)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
