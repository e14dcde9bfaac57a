package cli

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
)

// planTasksCmd runs plan tasks (commands.PlanTasks).
type planTasksCmd commands.PlanTasks

func (c *planTasksCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	m, err := a.Ops(&p.Globals, &p.WriteFlags).PlanTasks(c.Name)
	if err != nil {
		return err
	}
	a.Emit(m)
	return nil
}

// planCheckCmd runs plan check (commands.PlanCheck).
type planCheckCmd commands.PlanCheck

func (c *planCheckCmd) run(a *app.App, p *planCmd) error {
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	switch {
	case c.Item == nil && c.Task == "":
		return errcode.New(errcode.InvalidArguments, "give the item's number N or --task ID (see plan check --help)")
	case c.Item != nil && c.Task != "":
		return errcode.New(errcode.InvalidArguments, "give the item's number N or --task ID, not both")
	}
	a.Pretty = p.Pretty
	o := a.Ops(&p.Globals, &p.WriteFlags)
	var res *plan.Checked
	var err error
	if c.Item != nil {
		res, err = o.PlanCheck(c.Name, *c.Item, c.Uncheck)
	} else {
		res, err = o.PlanCheckTask(c.Name, c.Task, c.Uncheck)
	}
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}

// planSyncCmd runs plan sync (commands.PlanSync).
type planSyncCmd commands.PlanSync

func (c *planSyncCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanSync(c.Name)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
