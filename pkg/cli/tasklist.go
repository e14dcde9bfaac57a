package cli

import (
	"io"
	"runtime/debug"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const listHelp = `Example: task-list --ready

List tasks with their unresolved blockers (spec §6.3).

  task-list                      active tasks (pending, in_progress)
  task-list --ready              pending tasks with no unresolved blocker: runnable now
  task-list --status completed   exactly that status
  task-list --all                every status, completed and deleted included
  echo '{"parentID":"T-…"}' | task-list

Without flags, reads an optional document on stdin: {"status"?,"parentID"?,"ready"?,"all"?}.
Contradictory filters are refused (usage error for flags, validation_error on stdin): --all with
--ready or --status, and --ready with a status other than pending.

` + stdinOptional + `

Answer: {"tasks":[{"id","subject","status","owner"?,"blockedBy":[…unresolved…],"parentID"?}],
"reminder":"…","problems"?:[{"file","error"}]}, sorted by id (creation order).
blockedBy keeps only blockers that are not completed (missing and deleted ones stay).
Files that cannot be read as tasks are listed in "problems" and on stderr; the listing goes on.`

type listCmd struct {
	globals
	Status string `enum:",pending,in_progress,completed,deleted" default:"" help:"Only tasks with this status (pending, in_progress, completed, deleted)."`
	Parent string `name:"parent" placeholder:"ID" help:"Only subtasks of this parent."`
	Ready  bool   `help:"Only pending tasks with no unresolved blocker."`
	All    bool   `help:"Every status, completed and deleted included."`
}

// listFlag names task-list's filters by their flags in messages.
func listFlag(key string) string {
	if key == "parentID" {
		return "--parent"
	}
	return "--" + key
}

// TaskList is the task-list binary.
func TaskList(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run("task-list", listHelp, &listCmd{}, args, stdin, stdout, stderr)
}

func (c *listCmd) run(a *app) error {
	// A listing allocates once per record and exits: collect garbage
	// rarely (about 10% less CPU at 10,000 tasks, docs/benchmarks.md).
	debug.SetGCPercent(400)
	a.pretty = c.Pretty
	req := &task.ListRequest{Status: task.Status(c.Status), ParentID: c.Parent, Ready: c.Ready, All: c.All}
	given := ""
	if c.Status != "" || c.Parent != "" || c.Ready || c.All {
		given = "flags"
	}
	data, _, err := a.readInput(given, docOptional)
	if err != nil {
		return err
	}
	if given == "" {
		if req, err = task.ParseList(data); err != nil {
			return err
		}
	} else if err := a.resolveHandles(&c.globals, nil, []*string{&req.ParentID}, nil); err != nil {
		if errcode.Of(err) != errcode.TaskNotFound {
			return err
		}
		// A parent handle that names no task: no subtasks, as for a
		// missing parent id.
		a.emit(&store.ListResult{Tasks: []task.Summary{}, Reminder: store.Reminder})
		return nil
	} else if err := req.ValidateAs(listFlag); err != nil {
		return flagError(err)
	}
	e, err := a.open(&c.globals, nil)
	if err != nil {
		return err
	}
	res, err := e.store.List(req)
	if err != nil {
		return err
	}
	for _, p := range res.Problems {
		a.warnf("skipped %s: %s", p.File, p.Error)
	}
	a.emit(res)
	return nil
}
