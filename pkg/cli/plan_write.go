package cli

import (
	"os"

	"golang.org/x/term"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
)

type planCreateCmd struct {
	Name  string `arg:"" help:"Plan name (kebab-case, no .md)."`
	Force bool   `help:"Replace the plan if it exists (default: refuse with file_exists)."`
}

func (c *planCreateCmd) Help() string {
	return `Example: plan create auth < auth.md

Writes .matrixx/plans/NAME.md with the markdown read on stdin, byte for byte. When stdin is a
terminal or empty, writes a template to fill in with plan update. A pipe or file is read until
it closes; a socket stdin (an agent host's) that sends nothing within 3 s is "no input" (exit 2),
and one that sends text and then goes silent for 3 s without closing is refused (exit 2, nothing
written): plain text has no end marker, so it could be cut short.

  plan create auth < auth.md
  printf '# Auth\n\n1. [ ] Login form\n2. [ ] Session tokens\n' | plan create auth

Answer: {"name","size","progress":{"done","total"},"totalLines","replaced"?,"template"?}
Errors: invalid_file_path (name), file_exists (use --force to replace), file_too_large (over
102400 bytes), validation_error (the markdown given is not UTF-8 or holds NUL),
task_lock_unavailable.`
}

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

type planUpdateCmd struct {
	Name   string `arg:"" help:"Plan name."`
	DryRun bool   `name:"dry-run" help:"Check and apply the edits, answer as usual, write nothing."`
}

func (c *planUpdateCmd) Help() string {
	return `Example: echo '{"edits":[…]}' | plan update auth

Reads {"edits":[…]} on stdin and applies every edit or none. Each edit:

  {"op":"replace","pos":"N#ID","end":"N#ID","lines":["…"]}  replace lines pos..end (end optional);
                                                          "lines":[] or null deletes them
  {"op":"append","pos":"N#ID","lines":["…"]}              insert after pos (end of file without pos)
  {"op":"prepend","pos":"N#ID","lines":["…"]}             insert before pos (start of file without pos)

"lines" is an array of lines or one string of text split at newlines. Anchors come from plan read
and all refer to the plan as read: line numbers do not shift between the edits of one update.
Anchors may keep decorations (">>> 5#VRRM|text", "5 # VRRM"); the legacy 2-symbol
ID is accepted. Overlapping edits are refused.

When an anchor no longer matches (the plan changed since it was read) nothing is written and the
answer is {"error":"anchor_mismatch","message":…,"totalLines":N,"mismatches":[{"ref","field","line",
"current"?,"didYouMean"?,"context":["N#ID|text",…]}]}: the message and "context" show the current
lines with fresh anchors, so the edit can be retried without another read.

Answer: {"name","size","progress","totalLines","changed","dryRun"?,"lines":[{"line","id","text"}]}
where "lines" are the lines written, with their new anchors.
Errors: validation_error (malformed document), invalid_edit, anchor_mismatch, file_not_found,
invalid_file_path, file_too_large (result over 102400 bytes), task_lock_unavailable.`
}

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

type planDeleteCmd struct {
	Name string `arg:"" help:"Plan name."`
}

func (c *planDeleteCmd) Help() string {
	return `Example: plan delete auth

Answer: {"name","deleted":true}. Tasks filed from the plan are left alone.
Errors: invalid_file_path, file_not_found, task_lock_unavailable.`
}

func (c *planDeleteCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanDelete(c.Name)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
