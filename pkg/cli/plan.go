package cli

import (
	"io"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

const planHelp = `Example: plan read auth

Markdown plans in .matrixx/plans/<name>.md with hash-anchored line edits (docs/plans.md).

  plan create auth < auth.md              raw markdown on stdin (a template when stdin is empty)
  plan read auth                          lines as N#ID|content; --json, --format content
  echo '{"edits":[{"op":"replace","pos":"5#VRRM","lines":["1. [x] Login form"]}]}' | plan update auth
  plan check auth 1                       tick numbered item 1 (--uncheck to clear it)
  plan check auth --task T-…              tick the item a task was filed for, found by its text
  plan tasks auth | task-create           one task per open numbered item, never twice
  plan sync auth                          tick the items whose task is completed
  plan list / plan delete auth

Names are kebab-case (auth, release-2-0). Numbered checkbox items ("1. [ ] …") are the work and
count toward progress; "- [ ]" bullets are meta items. Every answer is one JSON document (plan read
prints text unless --json); errors are {"error","message"} on stdout with exit 1, usage errors exit 2.
Only create and update read stdin (whatever their flags); the other subcommands never do. The
project root is resolved through symbolic links, so a project reached through a link is the same
project. See README "Plans" and docs/plans.md.

JSON Schemas of the answers (and of plan update's stdin): docs/schemas/plan-<subcommand>.*.json.`

// planCmd is the plan binary: global flags and the subcommands.
type planCmd struct {
	app.Globals
	app.WriteFlags
	Create planCreateCmd `cmd:"" help:"Create a plan from markdown on stdin, or from a template when stdin is empty."`
	List   planListCmd   `cmd:"" help:"List the plans with size and progress."`
	Read   planReadCmd   `cmd:"" help:"Print a plan as N#ID|content lines (--json for structure)."`
	Update planUpdateCmd `cmd:"" help:"Apply anchored line edits read as JSON on stdin."`
	Delete planDeleteCmd `cmd:"" help:"Delete a plan."`
	Tasks  planTasksCmd  `cmd:"" help:"Print the open numbered items without a task as a task-create batch."`
	Check  planCheckCmd  `cmd:"" help:"Tick (or with --uncheck clear) the numbered item N, or the item of task --task ID."`
	Sync   planSyncCmd   `cmd:"" help:"Tick every open item whose task is completed."`

	ctx *kong.Context `kong:"-"`
}

// planSub is one subcommand.
type planSub interface {
	run(a *app.App, p *planCmd) error
}

// Plan is the plan binary.
func Plan(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &planCmd{}
	return app.Run("plan", planHelp, c, c.run, args, stdin, stdout, stderr)
}

// AfterApply keeps kong's context so run can find the chosen subcommand.
func (p *planCmd) AfterApply(ctx *kong.Context) error {
	p.ctx = ctx
	return nil
}

func (p *planCmd) run(a *app.App) error {
	a.Pretty = p.Pretty
	var sub planSub
	if p.ctx != nil && p.ctx.Selected() != nil {
		sub, _ = p.ctx.Selected().Target.Addr().Interface().(planSub)
	}
	if sub == nil {
		return errcode.New(errcode.InvalidArguments, "missing subcommand (see plan --help)")
	}
	return sub.run(a, p)
}
