package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
)

// planReadCmd runs plan read (commands.PlanRead).
type planReadCmd commands.PlanRead

func (c *planReadCmd) run(a *app.App, p *planCmd) error {
	if c.Offset < 1 {
		return errcode.New(errcode.InvalidArguments, "--offset %d: lines are numbered from 1", c.Offset)
	}
	if c.Limit < 0 {
		return errcode.New(errcode.InvalidArguments, "--limit %d: must be 0 (all) or more", c.Limit)
	}
	if c.JSON && c.Format != "" && c.Format != "json" {
		return errcode.New(errcode.InvalidArguments, "--json cannot be combined with --format %s: --json means --format json; give one or the other", c.Format)
	}
	a.Pretty = p.Pretty
	pg, err := a.Ops(&p.Globals, &p.WriteFlags).PlanRead(c.Name, c.Offset, c.Limit)
	if err != nil {
		return err
	}
	pl, lines := pg.Plan, pg.Lines
	switch {
	case c.JSON || c.Format == "json":
		a.Emit(pg.Answer())
	case c.Format == "content":
		writeContent(a.Stdout, pl.Text, lines)
	default:
		_, _ = io.WriteString(a.Stdout, hashline.Format(lines))
	}
	return nil
}

// writeContent prints lines as the file holds them: with the file's line
// terminator, and without one after the last line when the file has none.
func writeContent(w io.Writer, t hashline.Text, lines []hashline.Line) {
	whole := hashline.Text{CRLF: t.CRLF, NoFinalNewline: t.NoFinalNewline}
	for _, l := range lines {
		whole.Lines = append(whole.Lines, l.Text)
	}
	if len(lines) > 0 && lines[len(lines)-1].Number < len(t.Lines) {
		whole.NoFinalNewline = false
	}
	_, _ = w.Write(whole.Bytes())
}

// planListCmd runs plan list (commands.PlanList).
type planListCmd commands.PlanList

func (c *planListCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanList()
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
