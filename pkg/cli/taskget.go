package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const getHelp = `Example: task-get 7f3a

Print one task (see README.md; decisions in docs/design.md).

  task-get T-…
  echo '{"id":"T-…"}' | task-get

` + app.StdinRequired + `

Answer: {"task":{…full record…}}, or {"task":null} when no such task exists (exit 0).
With --history ({"id":…,"history":true}) the answer adds the task's history: "events" (oldest
first: {"id","task","at","kind","by":{owner,session,host,user},"command","changes":[{"field","old",
"new"}],"hash"}) and "timeInStatus" ({"pending":ms,…}); a removed task's history is answered too
(docs/history.md).
Errors: invalid_task_id (exit 1), task_corrupt when the file exists but is not a valid record.

JSON Schemas of the stdin document and the answer: docs/schemas/task-get.input.json and
docs/schemas/task-get.output.json.`

type getCmd struct {
	app.Globals
	ID      string `arg:"" optional:"" help:"Task id or short handle (a suffix of the id's digits, at least 4 long) (instead of stdin)."`
	History bool   `help:"Add the task's history: its events and the time it spent in each status (docs/history.md)."`
}

// TaskGet is the task-get binary.
func TaskGet(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &getCmd{}
	return app.Run("task-get", getHelp, c, c.run, args, stdin, stdout, stderr)
}

func (c *getCmd) run(a *app.App) error {
	a.Pretty = c.Pretty
	id := c.ID
	hist := c.History
	if id != "" {
		if _, _, err := a.ReadInput("the id argument", app.DocRequired); err != nil {
			return err
		}
	} else {
		data, empty, err := a.ReadInput("", app.DocRequired)
		if err != nil {
			return err
		}
		if empty {
			return a.NeedInput(`'{"id":"T-…"}'`)
		}
		var req task.IDRequest
		if err := input.Decode(data, &req); err != nil {
			return err
		}
		id = req.ID
		hist = hist || req.History
	}
	o := a.Ops(&c.Globals, nil)
	var ans *contract.TaskAnswer
	var err error
	if c.ID != "" {
		ans, err = o.GetHandle(id, hist)
	} else {
		ans, err = o.Get(id, hist)
	}
	if err != nil {
		return err
	}
	a.Emit(ans)
	return nil
}
