package cli

import (
	"io"
	"runtime/debug"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// listMemoryLimit is task-list's soft memory limit (runtime/debug) for a
// list index of indexSize bytes: 48 MiB, or 3.7 times the index when that
// is more. 48 MiB keeps task-list at 50,000 tasks under 64 MiB resident;
// at 100,000 tasks (an index of about 24 MB, rows holding blocks) the live
// heap alone is about 60 MB, and a 48 MiB limit would make the collector
// run dozens of times a listing (twice the CPU), so the limit grows with
// the store: about 87 MiB there, with the listing under 96 MiB resident
// (docs/benchmarks.md).
func listMemoryLimit(indexSize int64) int64 {
	return max(48<<20, indexSize*37/10)
}

// listCmd is task-list's command line (commands.TaskList) and what it runs.
type listCmd struct{ commands.TaskList }

// TaskList is the task-list binary.
func TaskList(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &listCmd{}
	return app.Run("task-list", commands.Help("task-list"), c, c.run, args, stdin, stdout, stderr)
}

func (c *listCmd) run(a *app.App) error {
	// A listing allocates once per record and exits: collect garbage
	// rarely (about 10% less CPU at 10,000 tasks, docs/benchmarks.md).
	// A soft limit (listMemoryLimit) caps what that costs in memory:
	// near it the collector runs as often as needed and returns freed
	// pages. GOMEMLIMIT, when set, is left to decide.
	debug.SetGCPercent(400)
	a.Pretty = c.Pretty
	req := &task.ListRequest{Status: task.Status(c.Status), ParentID: c.Parent, Ready: c.Ready, All: c.All, Waves: c.Waves,
		Labels: c.Label, Priority: task.Priority(c.Priority), Text: c.Text, Full: c.Full}
	given := ""
	if c.Status != "" || c.Parent != "" || c.Ready || c.All || c.Waves || len(c.Label) > 0 || c.Priority != "" || c.Text != "" || c.Full {
		given = "flags"
	}
	data, _, err := a.ReadInput(given, app.DocOptional)
	if err != nil {
		return err
	}
	o := a.Ops(&c.Globals, nil)
	if a.Env.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(listMemoryLimit(o.ListIndexSize()))
	}
	var res any
	switch {
	case given != "":
		res, err = o.ListFlags(req)
	default:
		if req, err = task.ParseList(data); err != nil {
			return err
		}
		res, err = o.Listing(req)
	}
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
