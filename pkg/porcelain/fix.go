package porcelain

import (
	"fmt"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The commands that fix mistakes: rm, edit, reopen, unclaim. Each is one
// task-update operation (a compare-and-swap on the status and owner it
// checked), so they validate, lock and record as the plumbing does.

// target resolves typed and reads its task for a fix command.
func (r *runner) target(typed string) (*ops.Project, *view, *task.Task, error) {
	p, err := r.project()
	if err != nil {
		return nil, nil, nil, err
	}
	id, err := r.resolve(p, typed)
	if err != nil {
		return nil, nil, nil, err
	}
	v, err := load(p.Store, false)
	if err != nil {
		return nil, nil, nil, err
	}
	t := v.get(id)
	if t == nil {
		return nil, nil, nil, errcode.New(errcode.TaskCorrupt, "%s.json is not a readable task", id)
	}
	return p, v, t, nil
}

// othersClaim refuses t when someone other than you holds a live claim on
// it (claim_conflict naming the holder, the expiry and what to type); nil
// when force, when there is no live claim, or when it is yours.
func (r *runner) othersClaim(p *ops.Project, v *view, t *task.Task, force bool, again string) error {
	cl := claim.Live(t, time.Now())
	if cl == nil || force {
		return nil
	}
	if me := r.whoami(p.Root); cl.Owner != "" && cl.Owner == me {
		return nil
	}
	h := v.h(t.ID)
	until := "with no lease"
	if exp, ok := cl.Expiry(); ok {
		until = "until " + exp.Local().Format("15:04") + " (in " + short(time.Until(exp)) + ")"
	}
	return errcode.New(errcode.ClaimConflict, "%s is claimed by %s %s; matrixx %s %s --force does it anyway, matrixx show %s shows the claim",
		h, clean(claim.Holder(t, cl)), until, again, h, h)
}

// update runs task-update's operation on t with req's changes, guarded by
// t's current status and owner, and prints line (with the handle, subject
// and id) on success.
func (r *runner) update(p *ops.Project, t *task.Task, line string, req task.UpdateRequest) error {
	status, owner := t.Status, t.Owner
	req.ID, req.Expect = t.ID, &task.Expect{Status: &status, Owner: &owner}
	_, a := r.updateOp(&req)
	a.stderr = nil
	if err := r.check(a); err != nil {
		return r.refused(p, err)
	}
	v, err := load(p.Store, false)
	if err != nil {
		return err
	}
	subject := t.Subject
	if x := v.get(t.ID); x != nil {
		subject = x.Subject
	}
	fmt.Fprintf(r.stdout, "%s %s %q (%s)\n", line, v.h(t.ID), clean(subject), t.ID)
	return nil
}

// ---- rm ----

type rmCmd struct {
	ID    string `arg:"" placeholder:"ID" help:"Handle or id of the task."`
	Force bool   `help:"Delete it even when someone else holds a live claim on it."`
}

func (c *rmCmd) Help() string {
	return `Example: matrixx rm 7f3a

Sets the task's status to deleted through task-update (the file stays; task-cleanup removes
deleted tasks' files later; matrixx reopen brings it back). Refuses a task someone else holds
under a live claim unless --force. --json prints task-update's document.`
}

func (c *rmCmd) run(r *runner) error {
	if r.g.JSON {
		_, a := r.updateOp(&task.UpdateRequest{ID: c.ID, Status: ptr(task.Deleted)})
		return r.passJSON(a)
	}
	p, v, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	if t.Status == task.Deleted {
		fmt.Fprintf(r.stdout, "already deleted %s %q (%s)\n", v.h(t.ID), clean(t.Subject), t.ID)
		return nil
	}
	if err := r.othersClaim(p, v, t, c.Force, "rm"); err != nil {
		return err
	}
	return r.update(p, t, "deleted", task.UpdateRequest{Status: ptr(task.Deleted)})
}

// ---- reopen ----

type reopenCmd struct {
	ID string `arg:"" placeholder:"ID" tasks:"finished" help:"Handle or id of a completed or deleted task."`
}

func (c *reopenCmd) Help() string {
	return `Example: matrixx reopen 7f3a

Sets a completed or deleted task back to pending through task-update. A pending task is said so
(exit 0); an in_progress one is refused (matrixx unclaim gives it back). --json prints
task-update's document.`
}

func (c *reopenCmd) run(r *runner) error {
	if r.g.JSON {
		_, a := r.updateOp(&task.UpdateRequest{ID: c.ID, Status: ptr(task.Pending)})
		return r.passJSON(a)
	}
	p, v, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	h := v.h(t.ID)
	switch t.Status {
	case task.Pending:
		fmt.Fprintf(r.stdout, "already pending %s %q (%s)\n", h, clean(t.Subject), t.ID)
		return nil
	case task.InProgress:
		return errcode.New(errcode.ValidationError, "%s is in progress, not finished: matrixx unclaim %s gives it back to pending", h, h)
	}
	return r.update(p, t, "reopened", task.UpdateRequest{Status: ptr(task.Pending)})
}

// ---- unclaim ----

type unclaimCmd struct {
	ID    string `arg:"" placeholder:"ID" help:"Handle or id of the task."`
	Force bool   `help:"Give it back even when someone else holds a live claim on it."`
}

func (c *unclaimCmd) Help() string {
	return `Example: matrixx unclaim 7f3a

Gives an in_progress task back: status pending, owner cleared, the claim ended, through
task-update. Refuses someone else's live claim unless --force. --json prints task-update's
document.`
}

func (c *unclaimCmd) run(r *runner) error {
	if r.g.JSON {
		_, a := r.updateOp(&task.UpdateRequest{ID: c.ID, Status: ptr(task.Pending), Owner: ptr("")})
		return r.passJSON(a)
	}
	p, v, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	if t.Status != task.InProgress {
		h := v.h(t.ID)
		return errcode.New(errcode.ValidationError, "%s is %s, not in progress: nothing to give back (matrixx show %s)", h, t.Status, h)
	}
	if err := r.othersClaim(p, v, t, c.Force, "unclaim"); err != nil {
		return err
	}
	return r.update(p, t, "unclaimed", task.UpdateRequest{Status: ptr(task.Pending), Owner: ptr("")})
}

// ---- edit ----

type editCmd struct {
	ID          string   `arg:"" placeholder:"ID" help:"Handle or id of the task."`
	Subject     *string  `short:"s" placeholder:"TEXT" help:"New subject."`
	Priority    *string  `short:"p" enum:"low,medium,high,none" placeholder:"PRIORITY" help:"New priority: low, medium, high, or none (removes it)."`
	Description *string  `short:"d" placeholder:"TEXT" help:"New description (\"\" removes it; @FILE reads it from FILE, - from stdin)."`
	Owner       *string  `placeholder:"NAME" help:"New owner (\"\" removes it)."`
	After       []string `name:"after" sep:"," placeholder:"ID" help:"Add tasks this one waits for (handles or ids; repeat or comma-separate)."`
	NoAfter     []string `name:"no-after" sep:"," placeholder:"ID" help:"Remove tasks from what this one waits for (both ends of each edge)."`
	Blocks      []string `name:"blocks" sep:"," placeholder:"ID" help:"Add tasks that wait for this one."`
	NoBlocks    []string `name:"no-blocks" sep:"," placeholder:"ID" help:"Remove tasks from those that wait for this one."`
	Force       bool     `help:"In the editor: change the status even when someone else holds a live claim, or complete a parent whose subtasks are active."`
}

func (c *editCmd) Help() string {
	return `Example: matrixx edit 7f3a (opens $VISUAL, else $EDITOR); by flags: matrixx edit 7f3a -p high
-d @notes.md; dependencies: matrixx edit 7f3a --after 9c2e --no-after 1b3d

Without field flags, opens your editor ($VISUAL, else $EDITOR) on the task as text: subject,
status, priority, owner, activeForm, labels, blockedBy, blocks, metadata and the description.
Save and quit to apply; what you changed is written in one update (a compare-and-swap: if the
task changed while you edited, nothing is written, what changed is said, and your text is kept
in a file whose path is printed). Saving it unchanged, or emptying the file, changes nothing.

With flags, changes the task's subject, priority, description or owner, and adds (--after,
--blocks) or removes (--no-after, --no-blocks) dependencies, both ends of each edge, through one
task-update (same checks and lock; removing an edge that does not exist is an error and changes
nothing). -d @FILE reads the description from FILE, -d - from stdin. Status has its own
commands too: done, rm, reopen, claim, unclaim. --json prints task-update's document.`
}

func (c *editCmd) run(r *runner) error {
	deps := len(c.After) + len(c.NoAfter) + len(c.Blocks) + len(c.NoBlocks)
	if c.Subject == nil && c.Priority == nil && c.Description == nil && c.Owner == nil && deps == 0 {
		if r.g.JSON {
			return errcode.New(errcode.InvalidArguments, "nothing to change: with --json give --subject, -p, --description or --owner (the editor is for people)")
		}
		return r.editInEditor(c)
	}
	if c.Description != nil {
		d, err := r.textArg("--description", *c.Description)
		if err != nil {
			return err
		}
		c.Description = &d
	}
	req := task.UpdateRequest{Subject: c.Subject, Description: c.Description, Owner: c.Owner}
	if c.Priority != nil {
		pr := task.Priority(*c.Priority)
		if pr == "none" {
			pr = ""
		}
		req.Priority = &pr
	}
	if r.g.JSON && deps == 0 {
		req.ID = c.ID
		_, a := r.updateOp(&req)
		return r.passJSON(a)
	}
	p, _, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	for _, d := range []struct {
		typed []string
		to    *[]string
	}{{c.After, &req.AddBlockedBy}, {c.NoAfter, &req.RemoveBlockedBy}, {c.Blocks, &req.AddBlocks}, {c.NoBlocks, &req.RemoveBlocks}} {
		if *d.to, err = r.resolveAll(p, d.typed); err != nil {
			return err
		}
	}
	if r.g.JSON {
		req.ID = t.ID
		_, a := r.updateOp(&req)
		return r.passJSON(a)
	}
	return r.update(p, t, "edited", req)
}

// ptr returns a pointer to v (the optional fields of an update).
func ptr[T any](v T) *T { return &v }
