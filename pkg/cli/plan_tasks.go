package cli

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

type planTasksCmd struct {
	Name string `arg:"" help:"Plan name."`
}

func (c *planTasksCmd) Help() string {
	return `Prints the plan's open numbered items that have no task yet as a task-create batch:

  {"items":[{"subject":"Login form","metadata":{"planName":"auth","planItem":1}}]}

so "plan tasks auth | task-create" files one task per item. planItem is the item's number as
written ("3. [ ] …" is item 3). An item counts as filed while any task of this project with the same
planName and planItem exists and is not deleted, so running the pipeline again adds nothing;
deleting an item's task files it again. Checked items are never filed. Every task in the project's
own store (.matrixx/tasks) is this project's, also after the project was moved or reached through
a symbolic link; in a shared store (tasks.scope global) tasks of other projects do not count.
Invalid UTF-8 in the plan file shows as U+FFFD in subjects; an item whose text holds NUL gives a
subject task-create refuses (validation_error for that item).

With nothing left to file the answer is {"items":[]} (exit 0), which task-create answers as a no-op
({"tasks":[],"errors":[]}, exit 0), so the pipeline is safe in "set -e" scripts. task-create
deduplicates by subject only among tasks of the same plan item: items that share their text, with
each other or with other tasks, each get their own task.

A completed task keeps its item filed; task-cleanup keeps it (keptPlanItems) until plan sync has
ticked the item, so cleaning up never makes plan tasks file finished work again.

Errors: invalid_file_path, file_not_found, validation_error (two items share a number).`
}

func (c *planTasksCmd) run(a *app, p *planCmd) error {
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	e, s, err := p.plans(a)
	if err != nil {
		return err
	}
	pl, err := s.Read(c.Name)
	if err != nil {
		return err
	}
	links, err := planLinks(a, e, c.Name)
	if err != nil {
		return err
	}
	m, notes, err := plan.ManifestOf(pl, links)
	if err != nil {
		return err
	}
	for _, n := range notes {
		a.warnf("%s", n)
	}
	for i := range m.Items {
		m.Items[i].Subject = validUTF8(m.Items[i].Subject)
	}
	a.emit(m)
	return nil
}

// planLinks reads the task store (without the lock, like task-list) and
// returns the tasks of plan name by item.
func planLinks(a *app, e *env, name string) (plan.Links, error) {
	snap, err := e.store.Scan(store.ScanOptions{})
	if err != nil {
		return nil, err
	}
	for _, pr := range snap.Problems {
		a.warnf("skipped task file %s: %s", pr.File, pr.Error)
	}
	tasks := make([]*task.Task, len(snap.Entries))
	for i, en := range snap.Entries {
		tasks[i] = en.Task
	}
	return plan.LinksOf(tasks, name, e.store.Matcher().Same), nil
}

type planCheckCmd struct {
	Name    string `arg:"" help:"Plan name."`
	Item    int    `arg:"" name:"N" help:"Number of the item as written (\"3. [ ] …\" is 3)."`
	Uncheck bool   `help:"Clear the checkbox instead."`
}

func (c *planCheckCmd) Help() string {
	return `Sets "N. [ ]" to "N. [x]" (or back with --uncheck) under the plan lock; no anchor needed.
Checking an item that already is checked changes nothing ("changed":false). To tick the item of a
completed task: plan check "$(task-get T-… | jq -r .task.metadata.planName)" N, or plan sync NAME.

Answer: {"name","size","progress","item","done","changed","lines":[{"line","id","text"}]}
Errors: invalid_edit (no item N), validation_error (two items numbered N), file_not_found,
invalid_file_path, task_lock_unavailable.`
}

func (c *planCheckCmd) run(a *app, p *planCmd) error {
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	_, s, err := p.plans(a)
	if err != nil {
		return err
	}
	res, err := s.Check(c.Name, c.Item, !c.Uncheck)
	if err != nil {
		return err
	}
	res.Lines = jsonLines(res.Lines)
	a.emit(res)
	return nil
}

type planSyncCmd struct {
	Name string `arg:"" help:"Plan name."`
}

func (c *planSyncCmd) Help() string {
	return `Ticks every open numbered item that has a completed task (metadata planName/planItem) and no
pending or in_progress one. Items are never unticked. Only the checkbox changes: other bytes of
the file (invalid UTF-8 written by other means included) stay as they are.

Answer: {"name","size","progress","checked":[N,…],"lines":[{"line","id","text"}]}
Errors: file_not_found, invalid_file_path, validation_error (two items share a number),
task_lock_unavailable.`
}

func (c *planSyncCmd) run(a *app, p *planCmd) error {
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	e, s, err := p.plans(a)
	if err != nil {
		return err
	}
	links, err := planLinks(a, e, c.Name)
	if err != nil {
		return err
	}
	res, err := s.Sync(c.Name, links.Finished)
	if err != nil {
		return err
	}
	res.Lines = jsonLines(res.Lines)
	a.emit(res)
	return nil
}
