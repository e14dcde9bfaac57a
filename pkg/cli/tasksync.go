package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/tasksync"
)

// syncCmd is task-sync's command line (commands.TaskSync) and kong's
// context, which names the chosen subcommand.
type syncCmd struct {
	commands.TaskSync
	ctx *kong.Context `kong:"-"`
}

// syncDriverCmd runs task-sync merge-driver (commands.SyncMergeDriver).
type syncDriverCmd commands.SyncMergeDriver

// TaskSync is the task-sync binary.
func TaskSync(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &syncCmd{}
	return app.Run("task-sync", commands.Help("task-sync"), c, c.run, args, stdin, stdout, stderr)
}

// AfterApply keeps kong's context so run can find the chosen subcommand.
func (c *syncCmd) AfterApply(ctx *kong.Context) error {
	c.ctx = ctx
	return nil
}

func (c *syncCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	cmd := ""
	if c.ctx != nil && c.ctx.Selected() != nil {
		cmd = c.ctx.Selected().Name
	}
	if cmd == "merge-driver" {
		return (*syncDriverCmd)(&c.MergeDriver).run(a)
	}
	e, err := a.Open(&c.Globals, &c.WriteFlags)
	if err != nil {
		return err
	}
	o := a.Ops(&c.Globals, &c.WriteFlags).SyncOptions(e)
	switch cmd {
	case "setup":
		if err := tasksync.Setup(e.Root); err != nil {
			return err
		}
		a.Emit(map[string]any{"mergeDriver": "matrixx-task", "attributes": "T-*.json merge=matrixx-task"})
		return nil
	case "export":
		var buf bytes.Buffer
		n, problems, err := tasksync.Export(o.TasksDir, o.PlansDir, &buf)
		if err != nil {
			return err
		}
		_, _ = a.Stdout.Write(buf.Bytes())
		for _, p := range problems {
			a.Warnf("not exported: %s", p)
		}
		if len(problems) > 0 {
			a.Warnf("exported %d lines; %d files could not be read (see above; task-doctor)", n, len(problems))
			a.Exit = errcode.ExitPartial
		}
		return nil
	case "import":
		if f, ok := a.Stdin.(*os.File); ok && isTerminal(f) {
			return a.NeedInput("the JSON Lines of task-sync export")
		}
		res, err := tasksync.Import(o, a.Stdin, c.Import.OnConflict)
		if err != nil {
			return err
		}
		a.Emit(res)
		return nil
	}
	res, err := a.Ops(&c.Globals, &c.WriteFlags).Sync(c.Run.Remote, c.Run.Attempts)
	if ans := ops.SyncConflictAnswer(res, err); ans != nil {
		// The rounds that ran merged and decided: say what, or the
		// decisions would never be reported (the next sync finds them
		// already committed).
		a.Warnf("%s", errcode.As(err).Error())
		a.Emit(ans)
		a.Exit = errcode.ExitTool
		return nil
	}
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// run of merge-driver: git's contract. Exit 0 with the merged record in
// %A; exit 1 leaving %A as ours when a version is not a valid record (git
// then reports the path as conflicted; task-doctor reports the file).
// The decisions the rules took are printed on stderr, one per line.
func (d *syncDriverCmd) run(a *app.App) error {
	// git hands the driver temp files (.merge_file_*); a store file as
	// %A would be a write past the store's lock.
	for _, part := range strings.Split(filepath.ToSlash(filepath.Clean(d.Ours)), "/") {
		if part == ".matrixx" {
			return errcode.New(errcode.InvalidArguments, "merge-driver writes its result to %%A, which git makes a temp file; %s is inside a .matrixx store (use task-sync or task-update to change the store)", d.Ours)
		}
	}
	read := func(p string) ([]byte, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, errcode.Wrap(errcode.InvalidArguments, err, "reading %s", p)
		}
		if len(b) > 16<<20 {
			return nil, errcode.New(errcode.InputTooLarge, "%s is over the 16 MiB record cap", p)
		}
		return b, nil
	}
	base, err := read(d.Base)
	if err != nil {
		return err
	}
	ours, err := read(d.Ours)
	if err != nil {
		return err
	}
	theirs, err := read(d.Theirs)
	if err != nil {
		return err
	}
	merged, cs, err := tasksync.MergeTask(base, ours, theirs)
	if err != nil {
		a.Warnf("%s: not merged, left as a conflict: %s", d.Path, errcode.As(err).Message)
		a.Exit = 1
		return nil
	}
	for _, c := range cs {
		a.Warnf("%s %s: kept %s, lost %s (%s)", c.ID, c.Field, c.Kept, c.Lost, c.Rule)
	}
	if err := os.WriteFile(d.Ours, merged, 0o644); err != nil {
		return errcode.Wrap(errcode.InternalError, err, "writing %s", d.Ours)
	}
	return nil
}
