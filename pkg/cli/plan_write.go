package cli

import (
	"os"

	"golang.org/x/term"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
)

// planCreateCmd runs plan create (commands.PlanCreate).
type planCreateCmd commands.PlanCreate

func (c *planCreateCmd) run(a *app.App, p *planCmd) error {
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	content, template, err := c.content(a)
	if err != nil {
		return err
	}
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanCreate(c.Name, content, template, c.Force)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}

// content reads the markdown from stdin, or returns the template.
func (c *planCreateCmd) content(a *app.App) ([]byte, bool, error) {
	if f, ok := a.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return plan.Template(c.Name), true, nil
	}
	var data []byte
	var empty bool
	var err error
	if input.IsSocket(a.Stdin) {
		data, empty, err = a.ReadSocket(plan.MaxBytes, "the markdown")
	} else {
		data, empty, err = input.Read(a.Stdin, plan.MaxBytes)
	}
	if errcode.Of(err) == errcode.InputTooLarge {
		return nil, false, errcode.New(errcode.FileTooLarge, "the markdown on stdin is larger than %d bytes (100 KiB), the cap on a plan; nothing was written", plan.MaxBytes)
	}
	if err != nil {
		return nil, false, err
	}
	if empty {
		return plan.Template(c.Name), true, nil
	}
	return data, false, nil
}

// planUpdateCmd runs plan update (commands.PlanUpdate).
type planUpdateCmd commands.PlanUpdate

func (c *planUpdateCmd) run(a *app.App, p *planCmd) error {
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	data, empty, err := a.ReadInput("", app.DocRequired)
	if err != nil {
		return err
	}
	if empty {
		return a.NeedInput(`'{"edits":[{"op":"append","lines":["4. [ ] Write docs"]}]}'`)
	}
	edits, err := hashline.ParseEdits(data)
	if err != nil {
		return err
	}
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanUpdate(c.Name, edits, c.DryRun)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}

// planDeleteCmd runs plan delete (commands.PlanDelete).
type planDeleteCmd commands.PlanDelete

func (c *planDeleteCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanDelete(c.Name)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
