package commands

const taskCreateHelp = `Example: task-create --subject "Build backend"

Create tasks in the project's store (see README.md; decisions in docs/design/decisions.md).

Reads one task object or a batch {"items":[…]} on stdin, or builds one task from flags:

  echo '{"subject":"Build backend","blockedBy":["T-…"]}' | task-create
  task-create --subject "Build backend" --blocked-by T-…

` + stdinRequired + `

Fields: subject (required), description, activeForm, blocks, blockedBy, owner, priority
(low|medium|high), metadata (object), repoURL, parentID. New tasks are pending and carry
threadID (--session) and projectRoot. A batch holds at most 1000 items (validation_error
otherwise: split it); an empty batch is a no-op ({"tasks":[],"errors":[]}, exit 0).

Batch items may name themselves: "ref":"NAME" on an item, and "@NAME" in a later item's
blockedBy, blocks or parentID stands for that item's id; the answer adds "refs":{"NAME":"T-…"}.

  echo '{"items":[{"subject":"API","ref":"api"},{"subject":"UI","blockedBy":["@api"]}]}' | task-create

A ref given twice, an @NAME that no earlier item defines, a malformed ref (1 to 64 letters,
digits, '.', '_', '-') or any failing item of a batch that uses refs refuse the whole batch
(validation_error, nothing written); refs that wait for each other are dependency_cycle.

An active task of this project with the same trimmed subject written in the last 10 minutes is
returned with "deduplicated":true instead of a new one, unless the two name different plan items:
metadata planName and planItem must be equal too (both absent counts as equal), so two plan
items with the same text each get their task.

Answer: {"tasks":[{"id","subject"[,"deduplicated":true]}],"errors":[{"index","error","message"}],
"refs"?:{"NAME":"T-…"}}
Exit: 0 all created, 3 some items failed, 1 all failed or a tool error, 2 usage error.

JSON Schemas of the stdin document and the answer: docs/schemas/task-create.input.json and
docs/schemas/task-create.output.json.`

// TaskCreate is task-create's command line.
type TaskCreate struct {
	Globals
	WriteFlags
	Subject     *string  `short:"s" help:"Subject of one task (instead of stdin)."`
	Description string   `short:"d" help:"Description."`
	ActiveForm  string   `name:"active-form" help:"Present-continuous form, e.g. \"Building backend\"."`
	BlockedBy   []string `name:"blocked-by" sep:"," placeholder:"ID" help:"Ids this task waits for (repeat or comma-separate)."`
	Blocks      []string `name:"blocks" sep:"," placeholder:"ID" help:"Ids this task blocks."`
	Owner       string   `help:"Owner (agent name)."`
	Priority    string   `enum:",low,medium,high" default:"" help:"low, medium or high."`
	Parent      string   `name:"parent" placeholder:"ID" help:"Parent task id (makes this a subtask)."`
	RepoURL     string   `name:"repo-url" help:"Repository URL."`
	Metadata    string   `placeholder:"JSON" help:"Metadata object as JSON."`
	Paths       []string `placeholder:"GLOB" help:"Paths the task will touch (globs relative to the checkout's top: src/api/**), kept in metadata.paths; task-claim leases them (docs/leases.md)."`
}
