package porcelain

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// idRe finds task ids in the plumbing's messages.
var idRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`T-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*`) })

// barWidth is the length of a progress bar in cells.
const barWidth = 20

type plansCmd struct{}

func (c *plansCmd) Help() string {
	return `Example: matrixx plans

Every plan in .matrixx/plans with a progress bar of its numbered checkbox items ("1. [x] ...").
--json prints plan list's document.`
}

func (c *plansCmd) run(r *runner) error {
	if r.g.JSON {
		o := r.op("plan", true)
		res, err := o.PlanList()
		return r.passJSON(o.result(res, errcode.ExitOK, err))
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	res, err := p.Plans().List()
	if err != nil {
		return err
	}
	for _, pr := range res.Problems {
		fmt.Fprintf(r.stderr, "%s: skipped %s: %s\n", Name, clean(pr.File), clean(pr.Error))
	}
	if len(res.Plans) == 0 {
		fmt.Fprintln(r.stdout, "no plans (plan create NAME < plan.md makes one)")
		return nil
	}
	tb := &table{head: []string{"PLAN", "PROGRESS", "DONE"}, flex: -1}
	for _, pl := range res.Plans {
		tb.rows = append(tb.rows, []cell{
			{text: pl.Name},
			{text: r.st.bar(pl.Progress.Done, pl.Progress.Total, barWidth)},
			{text: fmt.Sprintf("%d/%d", pl.Progress.Done, pl.Progress.Total)},
		})
	}
	tb.write(r.stdout, r.st)
	return nil
}

type planCmd struct {
	Name string `arg:"" placeholder:"NAME" help:"Plan name (kebab-case, as matrixx plans lists them)."`
}

func (c *planCmd) Help() string {
	return `Example: matrixx plan auth

The plan's numbered items with their checkboxes and the task filed for each (plan tasks), and a
progress bar. --json prints plan read NAME --json's document.`
}

func (c *planCmd) run(r *runner) error {
	if r.g.JSON {
		o := r.op("plan", true)
		pg, err := o.PlanRead(c.Name, 1, 0)
		var ans *contract.PlanReadAnswer
		if err == nil {
			ans = pg.Answer()
		}
		return r.passJSON(o.result(ans, errcode.ExitOK, err))
	}
	if err := plan.CheckName(c.Name); err != nil {
		return err
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	pl, err := p.Plans().Read(c.Name)
	if err != nil {
		return err
	}
	v, err := load(p.Store, false)
	if err != nil {
		return err
	}
	m := p.Store.Matcher()
	links := plan.LinksOf(v.tasks, c.Name, m.Same)
	items := pl.Items()
	res := plan.Resolve(items, links)
	byItem := map[int][]plan.Link{}
	for _, l := range links {
		if n := res.Item(l.ID); n > 0 {
			byItem[n] = append(byItem[n], l)
		}
	}
	prog := plan.ProgressOf(items)
	fmt.Fprintf(r.stdout, "%s  %s %d/%d\n", r.st.bold(c.Name), r.st.bar(prog.Done, prog.Total, barWidth), prog.Done, prog.Total)
	if len(items) == 0 {
		fmt.Fprintln(r.stdout, "  no numbered items (\"1. [ ] ...\") yet")
		return nil
	}
	tb := &table{head: []string{"#", "", "ITEM", "TASK"}, flex: 2}
	for _, it := range items {
		box := r.st.pick("☐", "[ ]")
		if it.Done {
			box = r.st.pick("☑", "[x]")
		}
		var tasks []string
		st := task.Status("")
		for _, l := range byItem[it.Number] {
			tasks = append(tasks, r.st.glyph(l.Status)+" "+v.h(l.ID))
			st = l.Status
		}
		tb.rows = append(tb.rows, []cell{
			{text: fmt.Sprintf("%d", it.Number)},
			{text: box},
			{text: it.Text},
			{text: strings.Join(tasks, ", "), status: st},
		})
	}
	tb.write(r.stdout, r.st)
	return nil
}

type doctorCmd struct {
	Strict bool `help:"Fail (exit 1) on warnings too."`
	Repair bool `help:"Apply the safe repairs (mirror edges, edges to tasks that no longer exist)."`
}

func (c *doctorCmd) Help() string {
	return `Example: matrixx doctor --repair

Checks the store through task-doctor: blockers and parents that are missing, cycles, corrupt
files (errors, exit 1), one-sided edges and expired claims (warnings). Each finding comes with
the repair. --json prints task-doctor's document.`
}

func (c *doctorCmd) run(r *runner) error {
	o := r.op("task-doctor", true)
	rep, err := o.Doctor(c.Repair)
	exit := errcode.ExitOK
	if err == nil {
		exit = ops.DoctorExit(rep, c.Strict)
	}
	a := o.result(rep, exit, err)
	if r.g.JSON {
		return r.passJSON(a)
	}
	if err != nil {
		return err
	}
	// Ids in the findings read as handles, as everywhere for people.
	names := func(s string) string { return clean(s) }
	if p, err := r.project(); err == nil {
		if v, err := load(p.Store, false); err == nil {
			names = func(s string) string {
				return handlesIn(clean(s), v)
			}
		}
	}
	for _, f := range rep.Findings {
		mark, st := r.st.pick("✗", "x"), task.Deleted
		switch {
		case f.Repaired:
			mark, st = r.st.pick("✓", "+"), task.Completed
		case f.Severity == "warning":
			mark, st = "!", task.InProgress
		}
		fmt.Fprintf(r.stdout, "%s %s %s: %s\n", r.st.paint(st, mark), r.st.paint(st, f.Severity), f.Kind, names(f.Message))
		if f.Repair != "" && !f.Repaired {
			fmt.Fprintf(r.stdout, "    repair: %s\n", names(f.Repair))
		}
	}
	fmt.Fprintf(r.stdout, "%d tasks checked: %d error(s), %d warning(s), %d repaired\n", rep.Tasks, rep.Errors, rep.Warnings, rep.Repaired)
	r.exit = a.exit
	return nil
}

type syncCmd struct{}

func (c *syncCmd) Help() string {
	return `Example: matrixx sync

Shares the store with other machines through git (task-sync): fetches the tasks ref, merges it
into the local store field by field, commits and pushes, retrying a rejected push. --json prints
task-sync's document.`
}

func (c *syncCmd) run(r *runner) error {
	o := r.op("task-sync", true)
	res, err := o.Sync("origin", 8)
	var a answer
	if ans := ops.SyncConflictAnswer(res, err); ans != nil {
		// As task-sync prints it: the decisions of the rounds that ran.
		fmt.Fprintf(&o.diag, "%s: %s\n", o.name, errcode.As(err).Error())
		a = answer{stdout: app.Marshal(ans, false), stderr: o.diag.Bytes(), exit: errcode.ExitTool, err: err}
	} else {
		a = o.result(res, errcode.ExitOK, err)
	}
	if r.g.JSON {
		return r.passJSON(a)
	}
	if err := r.check(a); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "synced: %d pulled, %d pushed, %d merged\n", res.Pulled, res.Pushed, res.Merged)
	if len(res.Conflicts) == 0 {
		return nil
	}
	h := func(id string) string { return id }
	if p, err := r.project(); err == nil {
		if v, err := load(p.Store, false); err == nil {
			h = v.h
		}
	}
	val := func(x jsontext.Value) string {
		if len(x) == 0 {
			return "(none)"
		}
		return clean(string(x))
	}
	for _, c := range res.Conflicts {
		line := fmt.Sprintf("  both changed %s %s: kept %s, not %s (%s)", h(c.ID), clean(c.Field), val(c.Kept), val(c.Lost), clean(c.Rule))
		if c.Saved != "" {
			line += ", the other side saved in " + clean(c.Saved)
		}
		fmt.Fprintln(r.stdout, line)
	}
	return nil
}

// handlesIn replaces the task ids in a plumbing message with their
// handles. A file name (an id followed by ".json") is kept whole: it names
// a file to look at, not a task.
func handlesIn(s string, v *view) string {
	var b strings.Builder
	last := 0
	for _, m := range idRe().FindAllStringIndex(s, -1) {
		if strings.HasPrefix(s[m[1]:], ".json") {
			continue
		}
		if h, ok := v.handleOf(s[m[0]:m[1]]); ok {
			b.WriteString(s[last:m[0]])
			b.WriteString(h)
			last = m[1]
		}
	}
	b.WriteString(s[last:])
	return b.String()
}
