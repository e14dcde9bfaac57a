package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const getHelp = `Example: task-get 7f3a

Print one task (see README.md; decisions in docs/design.md).

  task-get T-…
  echo '{"id":"T-…"}' | task-get

` + stdinRequired + `

Answer: {"task":{…full record…}}, or {"task":null} when no such task exists (exit 0).
With --history ({"id":…,"history":true}) the answer adds the task's history: "events" (oldest
first: {"id","task","at","kind","by":{owner,session,host,user},"command","changes":[{"field","old",
"new"}],"hash"}) and "timeInStatus" ({"pending":ms,…}); a removed task's history is answered too
(docs/history.md).
Errors: invalid_task_id (exit 1), task_corrupt when the file exists but is not a valid record.

JSON Schemas of the stdin document and the answer: docs/schemas/task-get.input.json and
docs/schemas/task-get.output.json.`

type getCmd struct {
	globals
	ID      string `arg:"" optional:"" help:"Task id or short handle (a suffix of the id's digits, at least 4 long) (instead of stdin)."`
	History bool   `help:"Add the task's history: its events and the time it spent in each status (docs/history.md)."`
}

// TaskGet is the task-get binary.
func TaskGet(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run("task-get", getHelp, &getCmd{}, args, stdin, stdout, stderr)
}

func (c *getCmd) run(a *app) error {
	if c.Where {
		return a.where(&c.globals)
	}
	a.pretty = c.Pretty
	id := c.ID
	hist := c.History
	if id != "" {
		if _, _, err := a.readInput("the id argument", docRequired); err != nil {
			return err
		}
	} else {
		data, empty, err := a.readInput("", docRequired)
		if err != nil {
			return err
		}
		if empty {
			return a.needInput(`'{"id":"T-…"}'`)
		}
		var req task.IDRequest
		if err := input.Decode(data, &req); err != nil {
			return err
		}
		id = req.ID
		hist = hist || req.History
	}
	if c.ID != "" {
		// A handle that names no task answers {"task":null} like a
		// missing id.
		err := a.resolveHandles(&c.globals, nil, []*string{&id}, nil)
		if errcode.Of(err) == errcode.TaskNotFound {
			a.emit(struct {
				Task *task.Task `json:"task"`
			}{nil})
			return nil
		}
		if err != nil {
			return err
		}
	}
	if err := task.CheckID(errcode.InvalidTaskID, "id", id); err != nil {
		return err
	}
	e, err := a.open(&c.globals, nil)
	if err != nil {
		return err
	}
	t, err := e.store.Get(id)
	if err != nil {
		return err
	}
	if hist {
		h, err := e.store.HistoryOf(id)
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "reading the history of %s", id)
		}
		a.emit(struct {
			Task *task.Task `json:"task"`
			*store.HistoryAnswer
		}{t, h})
		return nil
	}
	a.emit(struct {
		Task *task.Task `json:"task"`
	}{t})
	return nil
}
