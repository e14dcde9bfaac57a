package commands

const taskGetHelp = `Example: task-get 7f3a

Print one task (see README.md; decisions in docs/design/decisions.md).

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

// TaskGet is task-get's command line.
type TaskGet struct {
	Globals
	ID      string `arg:"" optional:"" help:"Task id or short handle (a suffix of the id's digits, at least 4 long) (instead of stdin)."`
	History bool   `help:"Add the task's history: its events and the time it spent in each status (docs/history.md)."`
}
