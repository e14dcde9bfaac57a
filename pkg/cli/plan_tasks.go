package cli

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
)

type planTasksCmd struct {
	Name string `arg:"" help:"Plan name."`
}

func (c *planTasksCmd) Help() string {
	return `Example: plan tasks auth | task-create

Prints the plan's open numbered items that have no task yet as a task-create batch:

  {"items":[{"subject":"Login form","metadata":{"planName":"auth","planItem":1,"planItemText":"Login form"}}]}

so "plan tasks auth | task-create" files one task per item. planItem is the item's number as
written ("3. [ ] …" is item 3), planItemText its text. An item counts as filed while a task of this
project stands for it and is not deleted, so running the pipeline again adds nothing; deleting an
item's task files it again. Checked items are never filed. Every task in the project's own store
(.matrixx/tasks) is this project's, also after the project was moved or reached through a symbolic
link; in a shared store (tasks.scope global) tasks of other projects do not count.
Invalid UTF-8 in the plan file shows as U+FFFD in subjects; an item whose text holds NUL gives a
subject task-create refuses (validation_error for that item).

A task stands for the item numbered planItem while that item's text is planItemText. When items
were inserted, deleted, reordered or renumbered, the task follows its text to the item's new number
and its metadata is updated (named on stderr). When the text is on several items, or gone while an
open item could still be the task's, nothing is printed but plan_link_broken, naming each task and
its candidate items with the task-update command that re-links it: an item is never filed or
skipped by its number alone. A task whose item is gone from the plan is ignored (named on stderr).
Tasks filed without planItemText use their subject as the text. See docs/plans.md.

With nothing left to file the answer is {"items":[]} (exit 0), which task-create answers as a no-op
({"tasks":[],"errors":[]}, exit 0), so the pipeline is safe in "set -e" scripts. task-create
deduplicates by subject only among tasks of the same plan item: items that share their text, with
each other or with other tasks, each get their own task.

A completed task keeps its item filed; task-cleanup keeps it (keptPlanItems) until plan sync has
ticked the item, so cleaning up never makes plan tasks file finished work again.

Errors: invalid_file_path, file_not_found, validation_error (two items share a number),
plan_link_broken, task_lock_unavailable (writing a followed link).`
}

func (c *planTasksCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	m, err := a.Ops(&p.Globals, &p.WriteFlags).PlanTasks(c.Name)
	if err != nil {
		return err
	}
	a.Emit(m)
	return nil
}

type planCheckCmd struct {
	Name    string `arg:"" help:"Plan name."`
	Item    *int   `arg:"" optional:"" name:"N" help:"Number of the item as the plan shows it now (\"3. [ ] …\" is 3); not with --task."`
	Task    string `name:"task" placeholder:"ID" help:"Tick the item task ID was filed for (metadata planName, planItem, planItemText), followed by its text when its number changed; instead of N."`
	Uncheck bool   `help:"Clear the checkbox instead."`
}

func (c *planCheckCmd) Help() string {
	return `Example: plan check auth 3

Sets "N. [ ]" to "N. [x]" (or back with --uncheck) under the plan lock; no anchor needed.
Checking an item that already is checked changes nothing ("changed":false). N is the number the
plan shows now. To tick the item of a task, use --task ID (or plan sync NAME): the task's
metadata records the item's number and text when it was filed, and when the number no longer
carries that text the item is found by its text (the task's link is updated), or the command
refuses with plan_link_broken, naming the task and the candidate items; see docs/plans.md.

  plan check auth 3
  plan check auth --task T-…

Answer: {"name","size","progress","item","done","changed","lines":[{"line","id","text"}]}
Errors: invalid_edit (no item N), validation_error (two items numbered N; the task is not linked
to this plan), plan_link_broken, task_not_found, file_not_found, invalid_file_path,
task_lock_unavailable.`
}

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

type planSyncCmd struct {
	Name string `arg:"" help:"Plan name."`
}

func (c *planSyncCmd) Help() string {
	return `Example: plan sync auth

Ticks every open numbered item that has a completed task (metadata planName/planItem) and no
pending or in_progress one. Items are never unticked. Only the checkbox changes: other bytes of
the file (invalid UTF-8 written by other means included) stay as they are.

A task records its item's number and text (planItemText) when it is filed. When the number no
longer carries that text (items inserted, deleted, reordered, renumbered), the item is found by
its text and the task's link is updated; when the text is on several items, or gone while an
open item could still be it, nothing is changed and the answer is plan_link_broken, naming each
task and its candidate items, with the task-update command that re-links it. A task whose item
is gone from the plan is ignored (named on stderr). See docs/plans.md.

Answer: {"name","size","progress","checked":[N,…],"lines":[{"line","id","text"}]}
Errors: file_not_found, invalid_file_path, validation_error (two items share a number),
plan_link_broken ({"error","message","links":[{"task","subject","planItem","planItemText",
"reason","candidates":[{"item","line","text","done"}]}]}), task_lock_unavailable.`
}

func (c *planSyncCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanSync(c.Name)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
