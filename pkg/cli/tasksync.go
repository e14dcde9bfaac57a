package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/tasksync"
)

const syncHelp = `Example: task-sync && task-list --ready

Share the task store between machines through git (docs/sync.md).

  task-sync                       fetch, merge, commit and push the store (remote "origin")
  task-sync --remote backup       the same with another git remote
  task-sync export > tasks.jsonl  every record and plan as JSON Lines
  task-sync import --on-conflict newer < tasks.jsonl
  task-sync setup                 register the record merge driver in this clone (the first sync does)
  task-sync merge-driver %O %A %B %P   (git calls this)

The store (.matrixx/tasks/T-*.json and .matrixx/plans/*.md) travels on the branch matrixx-tasks
and never on your own branches: task-sync writes it with git plumbing (never your index or work
tree), and .matrixx/ stays ignored. The first run in a fresh clone creates the branch (or fetches
it) and registers the record merge driver in .git/config and .git/info/attributes only.

Records merge field by field against their merge base: a field changed on one side takes that
change; blockers, blocks and metadata keys changed on both sides unite; a field changed differently
on both sides keeps the value already pushed (first push wins), except status, which keeps the
later of pending < in_progress < completed < deleted. An edge added here that would close a
dependency cycle with the pushed ones is dropped. Every such decision is listed in "conflicts".
Plans merge as text. A rejected push (someone pushed first) is fetched, merged and pushed again,
up to --attempts times. The store's lock is held while the store is read and written, so cron, a
hook and an agent can sync at once.

task-sync (sync) and merge-driver never read stdin; import reads its JSON Lines there.

Answer: {"pulled":n,"pushed":n,"merged":n,"conflicts":[{"id","field","kept"?,"lost"?,"rule"}…]} (exit 0).
Errors: sync_conflict when the push budget ran out (exit 1; nothing lost, the next sync pushes;
the envelope also carries pulled, pushed, merged and conflicts of the rounds that ran),
git_failed (no repository, no such remote), task_lock_unavailable, internal_error (exit 1); usage
errors exit 2.`

type syncCmd struct {
	app.Globals
	app.WriteFlags
	Run         syncRunCmd    `cmd:"" default:"withargs" hidden:"" help:"Fetch, merge, commit and push (the default)."`
	Export      syncExportCmd `cmd:"" help:"Write every record and plan of the store as JSON Lines on stdout."`
	Import      syncImportCmd `cmd:"" help:"Read JSON Lines (as export writes them) from stdin into the store."`
	MergeDriver syncDriverCmd `cmd:"" name:"merge-driver" help:"Merge three versions of a T-*.json record (git calls this: %O %A %B %P)."`
	Setup       syncSetupCmd  `cmd:"" help:"Register the record merge driver in this clone only (the first sync does it too)."`
	ctx         *kong.Context `kong:"-"`
}

type syncRunCmd struct {
	Remote   string `placeholder:"NAME" default:"origin" help:"The git remote to sync with."`
	Attempts int    `placeholder:"N" default:"8" help:"Fetch-merge-push rounds before giving up with sync_conflict (1-100)."`
}

type syncExportCmd struct{}

type syncSetupCmd struct{}

type syncImportCmd struct {
	OnConflict string `name:"on-conflict" required:"" enum:"newer,skip,fail" help:"When the store holds other content: newer (the later modification time wins; a tie keeps the store's), skip (keep the store's), fail (import nothing)."`
}

type syncDriverCmd struct {
	Base   string `arg:"" help:"%O: the merge base's version."`
	Ours   string `arg:"" help:"%A: ours; the result is written here."`
	Theirs string `arg:"" help:"%B: theirs."`
	Path   string `arg:"" optional:"" help:"%P: the path in the tree (for messages)."`
}

// TaskSync is the task-sync binary.
func TaskSync(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &syncCmd{}
	return app.Run("task-sync", syncHelp, c, c.run, args, stdin, stdout, stderr)
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
		return c.MergeDriver.run(a)
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

// Help of export (kong shows it under the subcommand's usage).
func (c *syncExportCmd) Help() string {
	return `Example: task-sync export > tasks.jsonl

One line per record ({"task":{…},"mtimeMs":n}, by id) then per plan ({"plan","text","mtimeMs"},
by name); mtimeMs is the file's modification time. Unreadable files are named on stderr and the
exit status is 3 (partial).`
}

// Help of import.
func (c *syncImportCmd) Help() string {
	return `Example: task-sync import --on-conflict newer < tasks.jsonl

Every line is validated before anything is written (a bad line: validation_error naming it). A
record or plan the store lacks is created; one with other content is decided by --on-conflict:
skip keeps the store's, fail imports nothing (import_conflict), newer takes the line when its
mtimeMs is later than the file's modification time (a tie keeps the store's).
Answer: {"created":n,"updated":n,"unchanged":n,"skipped":[ids and plan names]}.`
}

// Help of merge-driver.
func (c *syncDriverCmd) Help() string {
	return `Example: task-sync merge-driver %O %A %B %P   (in .git/config; git calls it)

Merges base, ours and theirs of one record with the record merge and writes the result to %A
(exit 0); the decisions are printed on stderr. A version that is not a valid record leaves %A as
ours and exits 1 (git reports the path as conflicted).`
}

// Help of setup.
func (c *syncSetupCmd) Help() string {
	return `Example: task-sync setup

Registers the record merge driver in this clone only (.git/config and .git/info/attributes;
nothing committed); the first task-sync does it too.
Answer: {"mergeDriver":"matrixx-task","attributes":"T-*.json merge=matrixx-task"}.`
}
