package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
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
	globals
	writeFlags
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
	run(a *app, p *planCmd) error
}

// Plan is the plan binary (spec §9, DESIGN D17–D18).
func Plan(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run("plan", planHelp, &planCmd{}, args, stdin, stdout, stderr)
}

// AfterApply keeps kong's context so run can find the chosen subcommand.
func (p *planCmd) AfterApply(ctx *kong.Context) error {
	p.ctx = ctx
	return nil
}

func (p *planCmd) run(a *app) error {
	a.pretty = p.Pretty
	if p.Where {
		return a.where(&p.globals)
	}
	var sub planSub
	if p.ctx != nil && p.ctx.Selected() != nil {
		sub, _ = p.ctx.Selected().Target.Addr().Interface().(planSub)
	}
	if sub == nil {
		return errcode.New(errcode.InvalidArguments, "missing subcommand (see plan --help)")
	}
	err := sub.run(a, p)
	var me *hashline.MismatchError
	if errors.As(err, &me) {
		a.exit = a.failMismatch(me)
		return nil
	}
	var le *plan.LinkError
	if errors.As(err, &le) {
		a.exit = a.failLinks(le)
		return nil
	}
	return err
}

// LinkAnswer is plan sync/check/tasks' plan_link_broken answer (see linkAnswer).
type LinkAnswer = linkAnswer

// linkAnswer is the plan_link_broken envelope: the flat envelope of D2 plus
// the broken links, each with its candidate items.
type linkAnswer struct {
	Error   errcode.Code `json:"error"`
	Message string       `json:"message"`
	Links   []brokenLink `json:"links"`
}

type brokenLink struct {
	Task         string          `json:"task"`
	Subject      string          `json:"subject"`
	PlanItem     int             `json:"planItem"`
	PlanItemText string          `json:"planItemText"`
	Reason       string          `json:"reason"`
	Candidates   []candidateItem `json:"candidates"`
}

type candidateItem struct {
	Item int    `json:"item"`
	Line int    `json:"line"`
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// failLinks prints a plan_link_broken answer and returns its exit status.
func (a *app) failLinks(le *plan.LinkError) int {
	e := errcode.As(le)
	fmt.Fprintf(a.stderr, "%s: %s\n", a.name, validUTF8(e.Error()))
	ans := linkAnswer{Error: e.Code, Message: validUTF8(e.Message), Links: []brokenLink{}}
	for _, br := range le.Broken {
		bl := brokenLink{Task: br.ID, Subject: validUTF8(br.Subject), PlanItem: br.Item, PlanItemText: validUTF8(br.Text), Reason: br.Reason, Candidates: []candidateItem{}}
		for _, c := range br.Candidates {
			bl.Candidates = append(bl.Candidates, candidateItem{Item: c.Number, Line: c.Line, Text: validUTF8(c.Text), Done: c.Done})
		}
		ans.Links = append(ans.Links, bl)
	}
	a.emit(ans)
	return errcode.ExitStatus(e)
}

// MismatchAnswer is plan update's anchor_mismatch answer (see mismatchAnswer).
type MismatchAnswer = mismatchAnswer

// mismatchAnswer is the anchor_mismatch envelope: the flat envelope of D2
// plus the structured mismatches, so an agent can retry without reading
// again.
type mismatchAnswer struct {
	Error      errcode.Code        `json:"error"`
	Message    string              `json:"message"`
	TotalLines int                 `json:"totalLines"`
	Mismatches []hashline.Mismatch `json:"mismatches"`
}

// failMismatch prints an anchor_mismatch answer and returns its exit status.
func (a *app) failMismatch(me *hashline.MismatchError) int {
	e := errcode.As(me)
	fmt.Fprintf(a.stderr, "%s: %s\n", a.name, e.Error())
	ms := make([]hashline.Mismatch, len(me.Mismatches))
	for i, m := range me.Mismatches {
		m.Current = validUTF8(m.Current)
		ctx := make([]string, len(m.Context))
		for k, c := range m.Context {
			ctx[k] = validUTF8(c)
		}
		m.Context = ctx
		ms[i] = m
	}
	a.emit(mismatchAnswer{Error: e.Code, Message: validUTF8(e.Message), TotalLines: me.TotalLines, Mismatches: ms})
	return errcode.ExitStatus(e)
}

// plans resolves the project (root, config, task store) and its plans
// directory.
func (p *planCmd) plans(a *app) (*env, *plan.Store, error) {
	e, err := a.open(&p.globals, &p.writeFlags)
	if err != nil {
		return nil, nil, err
	}
	s := &plan.Store{
		Dir:  plan.DirOf(e.root),
		Root: e.root,
		Lock: lock.Options{Timeout: e.store.Lock.Timeout, NoKernel: e.store.Lock.NoKernel},
	}
	if e.integrity != nil {
		s.Record = e.integrity.Plans().Recorder()
	}
	return e, s, nil
}

// validUTF8 replaces invalid UTF-8 (a plan written by other means) so the
// JSON answer can always be encoded.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// jsonLines makes lines safe for a JSON answer.
func jsonLines(lines []hashline.Line) []hashline.Line {
	out := make([]hashline.Line, len(lines))
	for i, l := range lines {
		l.Text = validUTF8(l.Text)
		out[i] = l
	}
	return out
}
