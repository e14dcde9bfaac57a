package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
)

type planReadCmd struct {
	Name   string `arg:"" help:"Plan name (kebab-case, no .md)."`
	Offset int    `default:"1" placeholder:"N" help:"First line to print (1-based); anchors stay absolute."`
	Limit  int    `default:"0" placeholder:"N" help:"Print at most N lines (0: all)."`
	Format string `enum:",hashline,content,json" default:"" placeholder:"FORMAT" help:"hashline (N#ID|content, the default), content (the plain text) or json."`
	JSON   bool   `name:"json" help:"Same as --format json (not with another --format)."`
}

func (c *planReadCmd) Help() string {
	return `Example: plan read auth --offset 40 --limit 20

Prints the plan's lines as N#ID|content: N is the 1-based line number and ID a 4-symbol hash of
the line. plan update needs these N#ID anchors; copy them as they are.

  plan read auth                      every line
  plan read auth --offset 40 --limit 20
  plan read auth --format content     the plain markdown
  plan read auth --json               {"name","size","totalLines","progress":{"done","total"},
                                        "lines":[{"line","id","text"}]}

A file written by other means that is not UTF-8 or holds NUL is read as it is (only the text
given to create and update is checked): invalid bytes are shown raw, and as U+FFFD with --json.

Errors (JSON on stdout, exit 1): invalid_file_path, file_not_found, file_too_large.`
}

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

type planListCmd struct{}

func (c *planListCmd) Help() string {
	return `Example: plan list

Answer: {"plans":[{"name","size","progress":{"done","total"}}],"problems"?:[{"file","error"}]}
sorted by name; size is in bytes; progress counts numbered checkbox items. *.md files that are not
readable plans (bad name, symbolic link, …) are listed in "problems" and on stderr.`
}

func (c *planListCmd) run(a *app.App, p *planCmd) error {
	a.Pretty = p.Pretty
	res, err := a.Ops(&p.Globals, &p.WriteFlags).PlanList()
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
