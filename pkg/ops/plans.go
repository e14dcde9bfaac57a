package ops

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The plan operations that need more than the plans store: the ones that
// read or relink the tasks filed for a plan's items, and the answers made
// safe for JSON (a plan written by other means may hold invalid UTF-8).

// PlanList lists the plans with size and progress (plan list). Files that
// cannot be read as plans are in the answer's problems and on Stderr.
func (o *Ops) PlanList() (*plan.Listing, error) {
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	res, err := p.Plans().List()
	if err != nil {
		return nil, err
	}
	for _, pr := range res.Problems {
		o.Warnf("skipped %s: %s", pr.File, pr.Error)
	}
	for i := range res.Problems {
		res.Problems[i].File = ValidUTF8(res.Problems[i].File)
		res.Problems[i].Error = ValidUTF8(res.Problems[i].Error)
	}
	return res, nil
}

// PlanPage is the part of a plan plan read asked for.
type PlanPage struct {
	Plan  *plan.Plan
	Lines []hashline.Line
	Total int
}

// Answer is the page as plan read --json prints it.
func (pg *PlanPage) Answer() *contract.PlanReadAnswer {
	return &contract.PlanReadAnswer{Info: pg.Plan.Info(), TotalLines: pg.Total, Lines: JSONLines(pg.Lines)}
}

// PlanRead reads plan name's lines from offset (1-based), at most limit
// of them (0: all) (plan read). An offset past the end is said on Stderr.
func (o *Ops) PlanRead(name string, offset, limit int) (*PlanPage, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	pl, err := p.Plans().Read(name)
	if err != nil {
		return nil, err
	}
	pg := &PlanPage{Plan: pl, Lines: pl.Text.Range(offset, limit), Total: len(pl.Text.Lines)}
	if offset > pg.Total && pg.Total > 0 {
		o.Warnf("--offset %d is past the end of plan %s (%d lines)", offset, name, pg.Total)
	}
	return pg, nil
}

// PlanSync ticks every open item of plan name whose task is completed,
// relinking tasks whose item moved (plan sync). Its notes go to Stderr.
func (o *Ops) PlanSync(name string) (*plan.Synced, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	links, err := o.PlanLinks(p, name)
	if err != nil {
		return nil, err
	}
	res, err := p.Plans().Sync(name, links, func(moves []plan.Move) error { return o.Relink(p, name, moves) })
	if err != nil {
		return nil, err
	}
	for _, n := range res.Notes {
		o.Warnf("%s", ValidUTF8(n))
	}
	res.Lines = JSONLines(res.Lines)
	return res, nil
}

// Relink moves the tasks of plan name's items to their items' new numbers
// and texts, each only if its link is still the one read (a task changed
// meanwhile is left alone, one that is gone is skipped).
func (o *Ops) Relink(p *Project, name string, moves []plan.Move) error {
	for _, m := range moves {
		meta := task.Metadata{task.KeyPlanItem: jsontext.Value(strconv.Itoa(m.Item))}
		text, err := json.Marshal(ValidUTF8(m.Text))
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "encoding the item text")
		}
		meta[task.KeyPlanItemText] = text
		was := m.Link
		req := &task.UpdateRequest{ID: was.ID, Metadata: meta, If: func(t *task.Task) bool {
			now, ok := plan.LinkOf(t, name)
			return ok && now.Item == was.Item && now.HasText == was.HasText && (!was.HasText || now.Text == was.Text)
		}}
		_, changed, err := p.Store.Update(req)
		switch {
		case errcode.Of(err) == errcode.TaskNotFound:
			continue
		case err != nil:
			return err
		}
		if changed && m.Item != was.Item {
			o.Warnf("task %s follows its item %q of plan %s from number %d to %d", was.ID, ValidUTF8(m.Text), name, was.Item, m.Item)
		}
	}
	return nil
}

// PlanLinks reads the links of the project's tasks to plan name's items.
// Unreadable task files are said on Stderr.
func (o *Ops) PlanLinks(p *Project, name string) (plan.Links, error) {
	snap, err := p.Store.Scan(store.ScanOptions{})
	if err != nil {
		return nil, err
	}
	for _, pr := range snap.Problems {
		o.Warnf("skipped task file %s: %s", pr.File, pr.Error)
	}
	tasks := make([]*task.Task, len(snap.Entries))
	for i, en := range snap.Entries {
		tasks[i] = en.Task
	}
	return plan.LinksOf(tasks, name, p.Store.Matcher().Same), nil
}

// ValidUTF8 replaces invalid UTF-8 (a plan written by other means) so the
// JSON answer can always be encoded.
func ValidUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// JSONLines makes lines safe for a JSON answer.
func JSONLines(lines []hashline.Line) []hashline.Line {
	out := make([]hashline.Line, len(lines))
	for i, l := range lines {
		l.Text = ValidUTF8(l.Text)
		out[i] = l
	}
	return out
}

// PlanCreate writes plan name from content, or from the template when
// template is set (plan create); force replaces an existing plan. A new
// plans directory where there was no project marker is said on Stderr.
func (o *Ops) PlanCreate(name string, content []byte, template, force bool) (*plan.Created, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	s := p.Plans()
	before := NewStoreState("plans directory", p.Root, s.Dir)
	res, err := s.Create(name, content, force)
	if err != nil {
		return nil, err
	}
	o.NoteNewStore(before)
	res.Template = template
	return res, nil
}

// PlanUpdate applies anchored line edits to plan name, all or none (plan
// update); dryRun writes nothing. A stale anchor is a
// *hashline.MismatchError (Failure makes its answer).
func (o *Ops) PlanUpdate(name string, edits []hashline.Edit, dryRun bool) (*plan.Updated, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	res, err := p.Plans().Update(name, edits, dryRun)
	if err != nil {
		return nil, err
	}
	res.Lines = JSONLines(res.Lines)
	return res, nil
}

// PlanDelete deletes plan name (plan delete); its tasks are left alone.
func (o *Ops) PlanDelete(name string) (*plan.Deleted, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	return p.Plans().Delete(name)
}

// PlanTasks is plan name's open numbered items without a task, as a
// task-create batch (plan tasks), after relinking tasks whose item moved.
func (o *Ops) PlanTasks(name string) (*plan.Manifest, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	pl, err := p.Plans().Read(name)
	if err != nil {
		return nil, err
	}
	links, err := o.PlanLinks(p, name)
	if err != nil {
		return nil, err
	}
	r, err := pl.Resolve(links)
	if err != nil {
		return nil, err
	}
	if err := o.Relink(p, name, r.Moves); err != nil {
		return nil, err
	}
	m, notes := plan.ManifestOf(pl, r)
	for _, n := range append(r.Notes(name), notes...) {
		o.Warnf("%s", n)
	}
	for i := range m.Items {
		m.Items[i].Subject = ValidUTF8(m.Items[i].Subject)
		m.Items[i].Metadata.PlanItemText = ValidUTF8(m.Items[i].Metadata.PlanItemText)
	}
	return m, nil
}

// PlanCheck ticks (or with uncheck clears) numbered item item of plan
// name (plan check N).
func (o *Ops) PlanCheck(name string, item int, uncheck bool) (*plan.Checked, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	res, err := p.Plans().Check(name, item, !uncheck)
	if err != nil {
		return nil, err
	}
	res.Lines = JSONLines(res.Lines)
	return res, nil
}

// PlanCheckTask ticks (or clears) the item of plan name that task id was
// filed for, found by its text (plan check --task).
func (o *Ops) PlanCheckTask(name, id string, uncheck bool) (*plan.Checked, error) {
	if err := plan.CheckName(name); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	if err := task.CheckID(errcode.InvalidTaskID, "--task", id); err != nil {
		return nil, err
	}
	t, err := p.Store.Get(id)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errcode.New(errcode.TaskNotFound, "no task %s in %s", id, p.Store.Dir)
	}
	if t.Status == task.Deleted {
		return nil, errcode.New(errcode.ValidationError, "task %s is deleted; a deleted task stands for no plan item", id)
	}
	if !p.Store.Matcher().Same(t.ProjectRoot) {
		return nil, errcode.New(errcode.ValidationError, "task %s belongs to another project (%s), not to this project's plan %s", id, t.ProjectRoot, name)
	}
	if _, ok := plan.LinkOf(t, name); !ok {
		return nil, errcode.New(errcode.ValidationError, "task %s is not linked to plan %s (its metadata has no planName %q with a planItem number)", id, name, name)
	}
	links, err := o.PlanLinks(p, name)
	if err != nil {
		return nil, err
	}
	res, err := p.Plans().CheckTask(name, id, links, !uncheck, func(moves []plan.Move) error { return o.Relink(p, name, moves) })
	if err != nil {
		return nil, err
	}
	res.Lines = JSONLines(res.Lines)
	return res, nil
}
