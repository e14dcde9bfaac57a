package cli

import (
	"io"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// planCmd is plan's command line (commands.Plan) and kong's context,
// which names the chosen subcommand.
type planCmd struct {
	commands.Plan
	ctx *kong.Context `kong:"-"`
}

// Plan is the plan binary.
func Plan(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &planCmd{}
	return app.Run("plan", commands.Help("plan"), c, c.run, args, stdin, stdout, stderr)
}

// AfterApply keeps kong's context so run can find the chosen subcommand.
func (p *planCmd) AfterApply(ctx *kong.Context) error {
	p.ctx = ctx
	return nil
}

func (p *planCmd) run(a *app.App) error {
	a.Pretty = p.Pretty
	var chosen any
	if p.ctx != nil && p.ctx.Selected() != nil {
		chosen = p.ctx.Selected().Target.Addr().Interface()
	}
	switch c := chosen.(type) {
	case *commands.PlanCreate:
		return (*planCreateCmd)(c).run(a, p)
	case *commands.PlanList:
		return (*planListCmd)(c).run(a, p)
	case *commands.PlanRead:
		return (*planReadCmd)(c).run(a, p)
	case *commands.PlanUpdate:
		return (*planUpdateCmd)(c).run(a, p)
	case *commands.PlanDelete:
		return (*planDeleteCmd)(c).run(a, p)
	case *commands.PlanTasks:
		return (*planTasksCmd)(c).run(a, p)
	case *commands.PlanCheck:
		return (*planCheckCmd)(c).run(a, p)
	case *commands.PlanSync:
		return (*planSyncCmd)(c).run(a, p)
	}
	return errcode.New(errcode.InvalidArguments, "missing subcommand (see plan --help)")
}
