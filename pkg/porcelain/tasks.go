package porcelain

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/notepad"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// resolve turns a handle or id into an existing task's id for people:
// task_not_found when there is no such task, ambiguous_id listing the
// candidates with their subjects.
func (r *runner) resolve(p *ops.Project, typed string) (string, error) {
	if strings.HasPrefix(typed, "t-") && task.ValidID("T-"+typed[2:]) {
		return "", errcode.New(errcode.InvalidTaskID, "%q is not a task id: ids are case-sensitive, type T-%s", typed, typed[2:])
	}
	id, err := p.Store.ResolveID(typed)
	var amb *store.AmbiguousError
	if errors.As(err, &amb) {
		v, lerr := load(p.Store, false)
		if lerr != nil {
			return "", err
		}
		var c []string
		for i, id := range amb.Candidates {
			if i == 10 {
				c = append(c, fmt.Sprintf("and %d more", len(amb.Candidates)-10))
				break
			}
			subject := ""
			if t := v.get(id); t != nil {
				subject = " " + r.st.truncate(clean(t.Subject), 40)
			}
			c = append(c, v.h(id)+subject)
		}
		return "", errcode.New(errcode.AmbiguousID, "%s names %d tasks (%s); type more digits, e.g. %s %s",
			typed, len(amb.Candidates), strings.Join(c, ", "), Name+" "+r.cmd, v.h(amb.Candidates[0]))
	}
	if err != nil {
		return "", err
	}
	if err := task.CheckID(errcode.InvalidTaskID, "", id); err != nil {
		return "", errcode.New(errcode.InvalidTaskID, "%q is not a task id or handle", typed)
	}
	t, err := p.Store.Get(id)
	if err != nil {
		return "", err
	}
	if t == nil {
		return "", errcode.New(errcode.TaskNotFound, "no task %s", typed)
	}
	return id, nil
}

// resolveAll resolves every id of a repeated flag.
func (r *runner) resolveAll(p *ops.Project, typed []string) ([]string, error) {
	out := make([]string, 0, len(typed))
	for _, s := range typed {
		id, err := r.resolve(p, s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) { // --after A --after A is one edge
			out = append(out, id)
		}
	}
	return out, nil
}

// ---- ls ----

type lsCmd struct {
	Text     []string `arg:"" optional:"" placeholder:"TEXT" help:"Only tasks whose subject or description holds every word (case-insensitive)."`
	Status   string   `short:"s" enum:",pending,in_progress,completed,deleted" default:"" help:"Only this status: pending, in_progress, completed, deleted."`
	Owner    string   `short:"o" placeholder:"NAME" help:"Only tasks of this owner."`
	Parent   string   `placeholder:"ID" help:"Only subtasks of this task (handle or id)."`
	All      bool     `short:"a" help:"Every status, completed and deleted included."`
	Label    []string `short:"l" name:"label" sep:"none" placeholder:"LABEL" help:"Only tasks with this label (repeatable: all must match)."`
	Priority string   `short:"p" enum:",low,medium,high" default:"" placeholder:"PRIORITY" help:"Only this priority: low, medium, high."`
	Full     bool     `help:"With --json: each task's whole record (task-list --full)."`
}

func (c *lsCmd) Help() string {
	return `Example: matrixx ls --owner morpheus login

Columns: ID (shortest unique handle), status, priority, owner, subject, the blockers it still
waits for (WAITS FOR) and when its file last changed (records carry no timestamps: the time is
the file's modification time, which every write moves). Sorted by creation. Columns nobody uses
are left out; the subject is cut to fit the terminal.

Labels are metadata.labels (matrixx add -l LABEL sets them); a LABELS column shows them when
any listed task has one. TEXT searches subjects and descriptions.

--json prints task-list's document (with --status, --parent, --all, --label, --priority, TEXT as
--text, --full), narrowed by --owner when given.`
}

// request is the task-list request of ls's filters (all but --owner).
func (c *lsCmd) request(parent string) *task.ListRequest {
	return &task.ListRequest{Status: task.Status(c.Status), ParentID: parent, All: c.All,
		Labels: c.Label, Priority: task.Priority(c.Priority), Text: strings.Join(c.Text, " "), Full: c.Full}
}

func (c *lsCmd) matches(req *task.ListRequest, t *task.Task) bool {
	if c.Owner != "" && t.Owner != c.Owner {
		return false
	}
	return req.Selects(t) && req.MatchesRecord(t)
}

func (c *lsCmd) run(r *runner) error {
	if c.All && c.Status != "" {
		return errcode.New(errcode.InvalidArguments, "--all and --status contradict each other: give one")
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	parent := ""
	if c.Parent != "" {
		if parent, err = r.resolve(p, c.Parent); err != nil {
			return err
		}
	}
	req := c.request(parent)
	if r.g.JSON {
		o := r.op("task-list", false)
		ans, err := o.ListFlags(req)
		if err == nil && c.Owner != "" {
			narrowList(ans, c.Owner)
		}
		return r.passJSON(o.result(ans, errcode.ExitOK, err))
	}
	if c.Full {
		return errcode.New(errcode.InvalidArguments, "--full goes with --json (the whole records as JSON); matrixx show ID prints one task in full")
	}
	if err := req.ValidateAs(ops.ListFlag); err != nil {
		return ops.FlagError(err)
	}
	if r.noStore(p) {
		return nil
	}
	v, err := load(p.Store, true)
	if err != nil {
		return err
	}
	r.problems(v)
	var rows []*task.Task
	for _, t := range v.tasks {
		if parent != "" && t.ID == parent {
			continue // a task that names itself as parent is no subtask of itself
		}
		if c.matches(req, t) {
			rows = append(rows, t)
		}
	}
	if len(rows) == 0 {
		what := "no active tasks"
		if c.All || c.Status != "" || c.Owner != "" || parent != "" || len(c.Text) > 0 || len(c.Label) > 0 || c.Priority != "" {
			what = "no task matches"
		}
		fmt.Fprintf(r.stdout, "%s (matrixx add \"subject\" adds one)\n", what)
		return nil
	}
	r.taskTable(v, rows, true)
	return nil
}

// narrowList keeps the entries of a task-list answer (short or full) of
// owner (the plumbing's own shape, fewer entries).
func narrowList(ans any, owner string) {
	switch res := ans.(type) {
	case *store.ListResult:
		kept := res.Tasks[:0]
		for _, s := range res.Tasks {
			if s.Owner == owner {
				kept = append(kept, s)
			}
		}
		res.Tasks = kept
	case *store.FullListResult:
		kept := res.Tasks[:0]
		for _, t := range res.Tasks {
			if t.Owner == owner {
				kept = append(kept, t)
			}
		}
		res.Tasks = kept
	}
}

// problems notes unreadable files on stderr, once per listing.
func (r *runner) problems(v *view) {
	if len(v.problems) > 0 {
		fmt.Fprintf(r.stderr, "%s: %d file(s) in the store are not readable tasks (%s, ...); matrixx doctor says more\n",
			Name, len(v.problems), v.problems[0].File)
	}
}

// taskTable prints tasks as the ls table; blockers adds WAITS FOR.
func (r *runner) taskTable(v *view, rows []*task.Task, blockers bool) {
	cols := []string{"ID", "STATUS", "PRI", "OWNER", "SUBJECT", "LABELS", "WAITS FOR", "CHANGED"}
	used := make([]bool, len(cols))
	used[0], used[1], used[4], used[7] = true, true, true, true
	for _, t := range rows {
		used[2] = used[2] || t.Priority != ""
		used[3] = used[3] || t.Owner != ""
		used[5] = used[5] || len(t.Labels()) > 0
		used[6] = used[6] || (blockers && len(v.unresolved(t)) > 0)
	}
	// Narrow: the status shrinks to its glyph (ST) and is the last to go.
	tb := &table{drop: []string{"CHANGED", "LABELS", "OWNER", "PRI", "WAITS FOR", "STATUS"},
		short: map[string][]string{"STATUS": {"ST"}}}
	for i, c := range cols {
		if used[i] {
			tb.head = append(tb.head, c)
			if c == "SUBJECT" {
				tb.flex = len(tb.head) - 1
			}
		}
	}
	for _, t := range rows {
		status, glyph := r.st.glyph(t.Status)+" "+string(t.Status), r.st.glyph(t.Status)
		if claimExpired(t) {
			status, glyph = status+" (claim expired)", glyph+"!"
		}
		all := []cell{
			{text: v.h(t.ID), status: t.Status},
			{text: status, status: t.Status},
			{text: string(t.Priority)},
			{text: t.Owner},
			{text: t.Subject},
			{text: strings.Join(t.Labels(), ",")},
			{text: v.handles(v.unresolved(t)), dim: true},
			{text: r.st.ago(v.modTime(t.ID)), dim: true},
		}
		tb.short["STATUS"] = append(tb.short["STATUS"], glyph)
		var row []cell
		for i, c := range all {
			if used[i] {
				row = append(row, c)
			}
		}
		tb.rows = append(tb.rows, row)
	}
	tb.write(r.stdout, r.st)
}

// ---- ready ----

type readyCmd struct{}

func (c *readyCmd) Help() string {
	return `Example: matrixx ready

Pending tasks whose blockers are all completed: the ones that can start now, high priority first
(high, medium, none, low), then in creation order. --json prints task-list --ready's document.`
}

func (c *readyCmd) run(r *runner) error {
	if r.g.JSON {
		_, a := r.listOp(&task.ListRequest{Ready: true})
		return r.passJSON(a)
	}
	v, err := r.listing(true)
	if err != nil {
		return err
	}
	if v == nil {
		return nil // no store here: said
	}
	var rows []*task.Task
	waiting := 0
	for _, t := range v.tasks {
		if v.ready(t) {
			rows = append(rows, t)
		} else if t.Status == task.Pending {
			waiting++
		}
	}
	slices.SortStableFunc(rows, func(a, b *task.Task) int { return priorityRank(a.Priority) - priorityRank(b.Priority) })
	if len(rows) == 0 {
		if waiting > 0 {
			fmt.Fprintf(r.stdout, "nothing is ready: %d pending task(s) wait for blockers (matrixx graph shows them)\n", waiting)
		} else {
			fmt.Fprintln(r.stdout, "nothing is ready: no pending tasks (matrixx add \"subject\" adds one)")
		}
		return nil
	}
	r.taskTable(v, rows, false)
	return nil
}

// ---- show ----

type showCmd struct {
	ID   string `arg:"" placeholder:"ID" help:"Handle or id of the task."`
	Full bool   `help:"The whole description (default: its first 30 lines, at most 4 KB)."`
}

// A shown description is cut at showLines lines or showBytes bytes,
// whichever comes first, unless show --full.
const (
	showLines = 30
	showBytes = 4 << 10
)

func (c *showCmd) Help() string {
	return `Example: matrixx show 7f3a

The whole task: status, priority, owner, claim, parent, the tasks it waits for and the tasks
waiting for it (with their states), its plan item, its notepad, description and metadata.
A long description is cut (the first 30 lines, at most 4 KB) and says how much is hidden;
--full prints all of it. --json prints task-get's document (always whole).`
}

func (c *showCmd) run(r *runner) error {
	if r.g.JSON { // task-get's operation resolves the handle: its own errors too
		o := r.op("task-get", false)
		ans, err := o.GetHandle(c.ID, false)
		return r.passJSON(o.result(ans, errcode.ExitOK, err))
	}
	p, v, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	id := t.ID
	w := r.stdout
	st := r.st
	fmt.Fprintf(w, "%s  %s\n", st.paint(t.Status, v.h(id)), st.bold(clean(t.Subject)))
	field := func(k, val string) {
		if val != "" {
			fmt.Fprintf(w, "  %-11s %s\n", k, val)
		}
	}
	field("id", id)
	field("status", st.paint(t.Status, st.glyph(t.Status)+" "+string(t.Status))+st.dim("  (changed "+st.ago(v.modTime(id))+")"))
	field("priority", string(t.Priority))
	field("owner", clean(t.Owner))
	owner, lease := claimOf(t)
	claimed := owner != ""
	if claimed {
		if lease != "" {
			owner += ", " + lease
		}
		field("claim", owner)
	}
	field("active form", clean(t.ActiveForm))
	if t.ParentID != "" {
		field("parent", r.ref(v, t.ParentID))
	}
	var kids []string
	for _, x := range v.tasks {
		if x.ParentID == id {
			kids = append(kids, x.ID)
		}
	}
	list := func(title string, ids []string) {
		if len(ids) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s\n", title)
		for _, x := range ids {
			fmt.Fprintf(w, "    %s\n", r.ref(v, x))
		}
	}
	list("waits for", v.blockers(id))
	list("blocks", v.dependents(id))
	list("subtasks", kids)
	if name, n, ok := t.Metadata.PlanItem(); ok {
		item := fmt.Sprintf("%s, item %d", name, n)
		if text, ok := t.Metadata.PlanItemText(); ok {
			item += ": " + clean(text)
		}
		field("plan", item+st.dim("  (matrixx plan "+name+")"))
	}
	planName, _ := t.MetadataString("planName")
	if np, err := notepad.Find(p.Root, planName, id); err == nil && np != "" {
		field("notepad", np)
	}
	field("thread", clean(t.ThreadID))
	if d := strings.TrimSpace(t.Description); d != "" {
		fmt.Fprintf(w, "  description\n")
		shown, hiddenLines, hiddenBytes, mid := d, 0, 0, false
		if !c.Full {
			shown, hiddenLines, hiddenBytes, mid = cutText(d, showLines, showBytes)
		}
		for _, l := range strings.Split(shown, "\n") {
			fmt.Fprintf(w, "    %s\n", clean(l))
		}
		if hiddenBytes > 0 {
			fmt.Fprintf(w, "    %s\n", st.dim(hiddenText(hiddenLines, hiddenBytes, mid)+": matrixx show "+v.h(id)+" --full prints all"))
		}
	}
	if len(t.Metadata) > 0 && !(claimed && len(t.Metadata) == 1) {
		keys := make([]string, 0, len(t.Metadata))
		for k := range t.Metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprintf(w, "  metadata\n")
		for _, k := range keys {
			if k == "claim" && claimed {
				continue // said above as the claim line
			}
			val := slices.Clone(t.Metadata[k])
			_ = val.Compact()
			fmt.Fprintf(w, "    %s: %s\n", clean(k), clean(string(val)))
		}
	}
	return nil
}

// ref is one line naming another task: glyph, handle, subject, status.
func (r *runner) ref(v *view, id string) string {
	t := v.get(id)
	if t == nil {
		return r.st.glyph("") + " " + id + r.st.dim("  (no such task)")
	}
	return r.st.paint(t.Status, r.st.glyph(t.Status)+" "+v.h(id)) + "  " + clean(t.Subject) + r.st.dim("  ("+string(t.Status)+")")
}

// claimOf describes metadata.claim: its owner and what is left of its
// lease ("lease ends in 12m", "lease expired 3h ago", or "no lease" for a
// claim that never expires; "" when the task carries no claim).
func claimOf(t *task.Task) (owner, lease string) {
	c := claim.Of(t)
	if c == nil {
		return "", ""
	}
	if exp, ok := c.Expiry(); ok {
		if d := time.Until(exp); d > 0 {
			lease = "lease ends in " + short(d)
		} else {
			lease = "lease expired " + short(-d) + " ago"
		}
	} else {
		lease = "no lease (it holds until done or unclaim)"
	}
	return clean(c.Owner), lease
}

// claimExpired reports an in_progress task whose claim's lease has ended:
// anyone may take it over (listings mark it).
func claimExpired(t *task.Task) bool {
	if t.Status != task.InProgress {
		return false
	}
	c := claim.Of(t)
	return c != nil && c.Expired(time.Now())
}

// short prints a duration for people, to the minute: "15m", "1h30m", "2d3h";
// under a minute "<1m".
func short(d time.Duration) string {
	d = d.Round(time.Minute)
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	}
	return fmt.Sprintf("%dd%dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// ---- add ----

type addCmd struct {
	Subject     []string `arg:"" placeholder:"SUBJECT" help:"What to do (several words are joined with spaces)."`
	After       []string `name:"after" sep:"," placeholder:"ID" help:"Tasks this one waits for (handles or ids; repeat or comma-separate)."`
	Blocks      []string `name:"blocks" sep:"," placeholder:"ID" help:"Tasks that wait for this one."`
	Parent      string   `placeholder:"ID" help:"Parent task (makes this a subtask)."`
	Priority    string   `short:"p" enum:",low,medium,high" default:"" placeholder:"PRIORITY" help:"low, medium or high."`
	Description string   `short:"d" placeholder:"TEXT" help:"Description (@FILE reads it from FILE, - from stdin)."`
	Owner       string   `placeholder:"NAME" help:"Owner."`
	Label       []string `short:"l" name:"label" sep:"none" placeholder:"LABEL" help:"A label (metadata.labels; repeatable)."`
	Quiet       bool     `short:"q" help:"Print only the task's full id, for scripts: id=$(matrixx add -q \"...\")."`
}

func (c *addCmd) Help() string {
	return `Example: matrixx add "Integration tests" --after 7f3a,9c2e -p high

Adds one pending task through task-create (same checks, lock and deduplication: an active task
with the same subject added in the last 10 minutes is shown instead of a second one). Prints the
new task's handle and full id. --json prints task-create's document.`
}

func (c *addCmd) run(r *runner) error {
	for i, w := range c.Subject {
		c.Subject[i] = strings.TrimPrefix(w, literal) // text that followed "--"
	}
	subject := strings.TrimSpace(strings.Join(c.Subject, " "))
	if subject == "" {
		return errcode.New(errcode.InvalidArguments, "the subject is empty: matrixx add \"what to do\"")
	}
	if c.Description != "" {
		d, err := r.textArg("--description", c.Description)
		if err != nil {
			return err
		}
		c.Description = d
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	after, err := r.resolveAll(p, c.After)
	if err != nil {
		return err
	}
	blocks, err := r.resolveAll(p, c.Blocks)
	if err != nil {
		return err
	}
	parent := ""
	if c.Parent != "" {
		if parent, err = r.resolve(p, c.Parent); err != nil {
			return err
		}
	}
	var md task.Metadata
	if len(c.Label) > 0 {
		raw, err := json.Marshal(c.Label)
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "encoding the labels")
		}
		md = task.Metadata{task.LabelsKey: raw}
	}
	o := r.op("task-create", true)
	res, err := o.CreateFlags(task.CreateItem{Subject: subject, BlockedBy: after, Blocks: blocks, ParentID: parent,
		Priority: task.Priority(c.Priority), Description: c.Description, Owner: c.Owner, Metadata: md})
	exit := errcode.ExitOK
	if err == nil {
		exit = ops.CreateExit(res)
	}
	if r.g.JSON {
		return r.passJSON(o.result(res, exit, err))
	}
	if err != nil {
		return err
	}
	if len(res.Errors) > 0 && len(res.Tasks) == 0 {
		return &errcode.Error{Code: res.Errors[0].Error, Message: res.Errors[0].Message}
	}
	if len(res.Tasks) != 1 {
		return errcode.New(errcode.InternalError, "task-create answered %d tasks for one", len(res.Tasks))
	}
	v, err := load(p.Store, false)
	if err != nil {
		return err
	}
	got := res.Tasks[0]
	if c.Quiet {
		fmt.Fprintln(r.stdout, got.ID)
		if got.Deduplicated {
			fmt.Fprintf(r.stderr, "%s: exists %s %q: the same subject was added less than 10 minutes ago\n", Name, v.h(got.ID), clean(got.Subject))
		}
		return nil
	}
	if got.Deduplicated {
		fmt.Fprintf(r.stdout, "exists %s %q (%s): the same subject was added less than 10 minutes ago\n", v.h(got.ID), clean(got.Subject), got.ID)
		if miss := c.notApplied(v, v.get(got.ID), after, blocks, parent); len(miss) > 0 {
			fmt.Fprintf(r.stderr, "%s: not applied to the existing task: %s (matrixx edit %s changes subject, priority, description, owner; matrixx show %s shows it)\n",
				Name, strings.Join(miss, ", "), v.h(got.ID), v.h(got.ID))
		}
		return nil
	}
	fmt.Fprintln(r.stdout, AddedLine(v.h(got.ID), got.Subject, got.ID))
	if len(after) > 0 {
		fmt.Fprintf(r.stdout, "  waits for %s\n", v.handles(after))
	}
	return nil
}

// notApplied lists the flags of a deduplicated add that the existing task
// t does not already match (task-create returned t unchanged).
func (c *addCmd) notApplied(v *view, t *task.Task, after, blocks []string, parent string) []string {
	if t == nil {
		return nil
	}
	var out []string
	if c.Priority != "" && string(t.Priority) != c.Priority {
		out = append(out, "-p "+c.Priority)
	}
	if c.Description != "" && t.Description != c.Description {
		out = append(out, "--description")
	}
	if c.Owner != "" && t.Owner != c.Owner {
		out = append(out, "--owner "+clean(c.Owner))
	}
	if parent != "" && t.ParentID != parent {
		out = append(out, "--parent "+v.h(parent))
	}
	var a []string
	for _, x := range after {
		if !slices.Contains(t.BlockedBy, x) {
			a = append(a, x)
		}
	}
	if len(a) > 0 {
		out = append(out, "--after "+v.handles(a))
	}
	var b []string
	for _, x := range blocks {
		if !slices.Contains(t.Blocks, x) {
			b = append(b, x)
		}
	}
	if len(b) > 0 {
		out = append(out, "--blocks "+v.handles(b))
	}
	return out
}

// AddedLine and DoneLine are the confirmations of matrixx add and done on
// stdout: "added <handle> "<subject>" (<id>)" and "done <handle>
// "<subject>" (<id>)". The PostToolUse notepad writer reads the full id
// from them (notepad.ParsePorcelain), so their shape is a contract.
func AddedLine(handle, subject, id string) string {
	return fmt.Sprintf("added %s %q (%s)", handle, clean(subject), id)
}

// DoneLine: see AddedLine.
func DoneLine(handle, subject, id string) string {
	return fmt.Sprintf("done %s %q (%s)", handle, clean(subject), id)
}

// ---- claim ----

type claimCmd struct {
	ID    *string  `arg:"" optional:"" placeholder:"ID" help:"Handle or id of the task (default: the next ready task)."`
	Owner string   `placeholder:"NAME" help:"Claim under this name (default: $MATRIXX_OWNER, else git config user.name, else $USER)."`
	Lease string   `placeholder:"DUR" help:"A lease, e.g. 2h: the claim expires unless renewed (default: none, your claim holds until you finish or unclaim)."`
	Paths []string `placeholder:"GLOB" help:"Lease these paths with the claim: other agents' writes there are refused (src/api/**; docs/leases.md)."`
}

func (c *claimCmd) Help() string {
	return `Example: matrixx claim 7f3a

Claims the task through task-claim: it becomes in_progress under your name, and nobody else can
claim it. A person's claim does not expire: it holds until you finish (done) or give it back
(unclaim). --lease 2h asks for a lease: then it expires 2h later unless renewed, and anyone may
take the task over after that. Agents' claims (task-claim, MCP) always carry a lease. Without an
id, claims the next ready task. --json prints task-claim's document.`
}

func (c *claimCmd) run(r *runner) error {
	// No id claims the next ready task; an id given empty is refused
	// (invalid_task_id), as task-claim refuses it.
	if c.ID != nil && *c.ID == "" {
		return errcode.New(errcode.InvalidTaskID, `"" is not a task id or handle (no id at all claims the next ready task)`)
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	owner := c.Owner
	if owner == "" {
		owner = r.whoami(p.Root)
	}
	if owner == "" {
		return errcode.New(errcode.InvalidArguments, "who claims? give --owner NAME (or set $MATRIXX_OWNER, git config user.name or $USER)")
	}
	id := ""
	if c.ID != nil {
		id = *c.ID
		if !r.g.JSON { // with --json, task-claim's operation resolves it: its own errors too
			if id, err = r.resolve(p, id); err != nil {
				return err
			}
		}
	}
	var lease time.Duration
	if c.Lease != "" {
		if lease, err = time.ParseDuration(c.Lease); err != nil || lease <= 0 {
			return errcode.New(errcode.InvalidArguments, "--lease %q: give a duration such as 15m or 2h", c.Lease)
		}
	}
	o := r.op("task-claim", true)
	res, err := o.ClaimFlags(id, owner, lease, c.Paths, "", true)
	a := o.result(res, errcode.ExitOK, err)
	if r.g.JSON {
		return r.passJSON(a)
	}
	if err := r.check(a); err != nil {
		return r.refused(p, err)
	}
	if res.Task == nil {
		fmt.Fprintln(r.stdout, "nothing to claim: no task is ready (matrixx ls shows what waits)")
		return nil
	}
	v, err := load(p.Store, false)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("claimed %s %q as %s", v.h(res.Task.ID), clean(res.Task.Subject), clean(res.Task.Owner))
	if c := claim.Of(res.Task); c != nil && c.ExpiresAt == "" {
		line += ", no lease: it holds until you finish (done) or give it back (unclaim)"
	} else if _, lease := claimOf(res.Task); lease != "" {
		line += ", " + lease
	}
	fmt.Fprintf(r.stdout, "%s (%s)\n", line, res.Task.ID)
	return nil
}

// refused turns the plumbing's refusal of a task write into one line for
// people: its ids as handles, and what to type instead.
func (r *runner) refused(p *ops.Project, err error) error {
	e := errcode.As(err)
	v, lerr := load(p.Store, false)
	if lerr != nil {
		return err
	}
	id := idRe().FindString(e.Message) // the refused task comes first
	h := v.h(id)
	msg := handlesIn(e.Message, v)
	switch e.Code {
	case errcode.TaskBlocked:
		msg += fmt.Sprintf("; matrixx show %s shows what it waits for, matrixx ready what can start now", h)
	case errcode.ClaimConflict:
		msg += fmt.Sprintf("; matrixx show %s shows the claim, matrixx ready what is free", h)
	case errcode.PreconditionFailed:
		msg += fmt.Sprintf("; it changed meanwhile: matrixx show %s, then try again", h)
	case errcode.ChildrenActive:
		if i := strings.Index(msg, "; complete them first"); i >= 0 {
			msg = msg[:i] // the plumbing's own hint names its flags; here is the porcelain's
		}
		msg += fmt.Sprintf("; nothing was written; matrixx tree shows them, matrixx done %s --force completes it anyway", h)
	case errcode.TaskNotClaimable:
		if v.status(id) == task.Completed || v.status(id) == task.Deleted {
			msg += fmt.Sprintf("; matrixx reopen %s makes it pending again, matrixx ready shows what can start now", h)
		} else {
			msg += "; matrixx ready shows what can start now"
		}
	}
	return &errcode.Error{Code: e.Code, Message: msg}
}

// ---- done ----

type doneCmd struct {
	ID    string `arg:"" placeholder:"ID" help:"Handle or id of the task."`
	Force bool   `help:"Complete it even when someone else holds a live claim on it, or its subtasks are still active."`
}

func (c *doneCmd) Help() string {
	return `Example: matrixx done 7f3a

Sets the task's status to completed through task-update, then lists the tasks that became ready
because of it; a task of a plan (metadata.planName) ticks its item (plan sync NAME). Refuses a
task someone else holds under a live claim and a parent whose subtasks are still active
(children_active, naming them; --force completes it anyway), and a deleted task (matrixx reopen first); a task already completed is said so (exit 0).
"You" are $MATRIXX_OWNER, else git config user.name, else $USER. --json prints task-update's
document (without these checks: the plumbing's own rules).`
}

func (c *doneCmd) run(r *runner) error {
	if r.g.JSON {
		_, a := r.updateOp(&task.UpdateRequest{ID: c.ID, Status: ptr(task.Completed)})
		return r.passJSON(a)
	}
	p, v, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	id := t.ID
	h := v.h(id)
	switch t.Status {
	case task.Completed:
		fmt.Fprintf(r.stdout, "already completed %s %q (%s)\n", h, clean(t.Subject), id)
		return nil
	case task.Deleted:
		return errcode.New(errcode.ValidationError, "%s is deleted: matrixx reopen %s makes it pending again, then matrixx done %s", h, h, h)
	}
	if err := r.othersClaim(p, v, t, c.Force, "done"); err != nil {
		return err
	}
	// Compare-and-swap: written only if nobody changed status or owner
	// since the checks above.
	status, owner := t.Status, t.Owner
	_, a := r.updateOp(&task.UpdateRequest{ID: id, Status: ptr(task.Completed), Expect: &task.Expect{Status: &status, Owner: &owner}, Force: c.Force})
	a.stderr = nil // "unchanged" notes: said below in words
	if err := r.check(a); err != nil {
		return r.refused(p, err)
	}
	if v, err = load(p.Store, false); err != nil {
		return err
	}
	if t = v.get(id); t == nil {
		return errcode.New(errcode.TaskNotFound, "no task %s", c.ID)
	}
	fmt.Fprintln(r.stdout, DoneLine(v.h(id), t.Subject, id))
	if name, ok := t.MetadataString("planName"); ok && name != "" {
		r.syncPlan(name)
	}
	var now []string
	for _, d := range v.dependents(id) {
		if x := v.get(d); x != nil && v.ready(x) {
			now = append(now, r.ref(v, d))
		}
	}
	if len(now) > 0 {
		fmt.Fprintln(r.stdout, "now ready:")
		for _, l := range now {
			fmt.Fprintf(r.stdout, "  %s\n", l)
		}
	}
	return nil
}

// syncPlan ticks the plan's items whose tasks are completed (plan sync
// NAME), after done completed one of its tasks, and says what it ticked. A
// failure leaves the task completed: it is said on stderr with the command
// that retries, and done still exits 0.
func (r *runner) syncPlan(name string) {
	o := r.op("plan", true)
	res, err := o.PlanSync(name)
	if err := r.check(o.result(res, errcode.ExitOK, err)); err != nil {
		e := errcode.As(err)
		fmt.Fprintf(r.stderr, "%s: the plan %s was not updated: %s; plan sync %s ticks its items (matrixx plan %s shows it)\n",
			Name, clean(name), clean(e.Message), clean(name), clean(name))
		return
	}
	if len(res.Checked) == 0 {
		return
	}
	items := make([]string, len(res.Checked))
	for i, n := range res.Checked {
		items[i] = itoa(n)
	}
	fmt.Fprintf(r.stdout, "plan %s: ticked item %s (%d/%d done)\n", clean(name), strings.Join(items, ", "), res.Progress.Done, res.Progress.Total)
}

// whoami is the name the porcelain acts under: $MATRIXX_OWNER, else the
// project's git config user.name, else $USER ("" when none is set).
func (r *runner) whoami(root string) string {
	if s := strings.TrimSpace(r.getenv("MATRIXX_OWNER")); s != "" {
		return s
	}
	cmd := exec.Command("git", "config", "user.name")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s
		}
	}
	return strings.TrimSpace(r.getenv("USER"))
}

// ---- tree ----

type treeCmd struct {
	All bool `short:"a" help:"Every status, completed and deleted included."`
}

func (c *treeCmd) Help() string {
	return `Example: matrixx tree --all

Tasks under their parents (parentID), each with the blockers it still waits for. Without --all,
completed and deleted tasks are left out (and so are their subtrees' finished parts).
--json prints task-list's document (--all with --all).`
}

func (c *treeCmd) run(r *runner) error {
	if r.g.JSON {
		_, a := r.listOp(&task.ListRequest{All: c.All})
		return r.passJSON(a)
	}
	v, err := r.listing(false)
	if err != nil {
		return err
	}
	if v == nil {
		return nil // no store here: said
	}
	shown := func(t *task.Task) bool { return c.All || t.Status.Active() }
	loops := parentLoops(v)
	children := map[string][]*task.Task{}
	for _, t := range v.tasks {
		if t.ParentID != "" && t.ParentID != t.ID {
			children[t.ParentID] = append(children[t.ParentID], t)
		}
	}
	kids := map[string][]*task.Task{}
	var roots []*task.Task
	for _, t := range v.tasks {
		if !shown(t) {
			continue
		}
		// A task in a parent loop is drawn at the top, marked: it has no
		// root to hang from, and must not vanish.
		if par := v.get(t.ParentID); t.ParentID != "" && par != nil && shown(par) && loops[t.ID] == nil {
			kids[t.ParentID] = append(kids[t.ParentID], t)
		} else {
			roots = append(roots, t)
		}
	}
	if len(roots) == 0 {
		fmt.Fprintln(r.stdout, "no active tasks (matrixx add \"subject\" adds one)")
		return nil
	}
	mid, last, bar := r.st.pick("├─ ", "|- "), r.st.pick("└─ ", "`- "), r.st.pick("│  ", "|  ")
	seen := map[string]bool{}
	var walk func(t *task.Task, prefix, branch string)
	walk = func(t *task.Task, prefix, branch string) {
		if seen[t.ID] {
			return
		}
		seen[t.ID] = true
		line := prefix + branch + r.st.paint(t.Status, r.st.glyph(t.Status)+" "+v.h(t.ID)) + "  " + clean(t.Subject)
		if done, total := v.progress(t.ID, children); total > 0 && loops[t.ID] == nil {
			line += r.st.dim(fmt.Sprintf("  (%d/%d done)", done, total))
		}
		if claimExpired(t) {
			line += r.st.dim("  (claim expired)")
		}
		if u := v.unresolved(t); len(u) > 0 {
			line += r.st.dim("  " + r.st.pick("⟵ ", "<- ") + v.handles(u))
		}
		if loop := loops[t.ID]; loop != nil {
			line += r.st.paint(task.Deleted, "  "+r.st.pick("↻", "@")+" parent loop "+v.handles(loop)+" (matrixx doctor)")
		}
		if r.st.width > 0 && !r.st.color {
			line = r.st.truncate(line, r.st.width)
		}
		fmt.Fprintln(r.stdout, line)
		next := prefix
		switch branch {
		case mid:
			next += bar
		case last:
			next += "   "
		}
		ks := kids[t.ID]
		for i, k := range ks {
			b := mid
			if i == len(ks)-1 {
				b = last
			}
			walk(k, next, b)
		}
	}
	for _, t := range roots {
		walk(t, "", "")
	}
	return nil
}

// parentLoops maps each task whose parentID chain comes back to itself to
// that loop's members, in chain order starting with the task (a task that
// is its own parent: just itself). Every chain is followed once (colours:
// on the current path, finished), so a store of any shape costs linear time.
func parentLoops(v *view) map[string][]string {
	loops := map[string][]string{}
	done := map[string]bool{}
	for _, t := range v.tasks {
		var path []string
		on := map[string]int{}
		for id := t.ID; id != "" && !done[id]; {
			if i, ok := on[id]; ok {
				loop := path[i:]
				for k, m := range loop {
					loops[m] = append(slices.Clone(loop[k:]), loop[:k]...)
				}
				break
			}
			on[id] = len(path)
			path = append(path, id)
			x := v.get(id)
			if x == nil {
				break
			}
			id = x.ParentID
		}
		for _, id := range path {
			done[id] = true
		}
	}
	return loops
}
