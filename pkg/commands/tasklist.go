package commands

const taskListHelp = `Example: task-list --ready

List tasks with their unresolved blockers (see README.md; decisions in docs/design/decisions.md).

  task-list                      active tasks (pending, in_progress)
  task-list --ready              pending tasks with no unresolved blocker: runnable now
  task-list --status completed   exactly that status
  task-list --all                every status, completed and deleted included
  task-list --waves              the active tasks planned in waves (docs/claims.md)
  task-list --label api --label urgent --priority high
                                 tasks carrying both labels (metadata.labels), of high priority
  task-list --text "login safari" --full
                                 subject or description holds both words; whole records
  echo '{"parentID":"T-…"}' | task-list

Without flags, reads an optional document on stdin: {"status"?,"parentID"?,"ready"?,"all"?,"waves"?,
"labels"?:[…],"priority"?,"text"?,"full"?}. Filters combine: a task must pass every one.
Contradictory filters are refused (usage error for flags, validation_error on stdin): --all with
--ready or --status, and --ready with a status other than pending.

` + stdinOptional + `

Answer: {"tasks":[{"id","subject","status","owner"?,"blockedBy":[…unresolved…],"parentID"?}],
"reminder"?:"…","problems"?:[{"file","error"}]}, sorted by id (creation order); an empty or
missing store answers {"tasks":[]} (no reminder).
blockedBy keeps only blockers that are not completed (missing and deleted ones stay).
An in_progress task whose claim's lease has ended carries "claimExpired":true (task-claim can take
it over).

--waves answers {"waves":[{"wave":1,"tasks":[…]},…],"cycles":[[ids…]],"missing":[{"id","blockedBy"}]}
with tasks as above: wave 1 runs now (in_progress, and pending with no unresolved blocker), wave 2
once wave 1 is done, and so on. cycles lists tasks that wait for each other; missing lists tasks
that can never start as things stand, with the blockers that hold them (missing or deleted
tasks, or tasks that are themselves stuck). --waves combines with --parent only.

--full answers {"tasks":[{…whole record…}],…}: each task as task-get prints it (blockedBy lists
every blocker, resolved ones included). Labels are metadata.labels, an array of strings
(task-create and task-update refuse anything else there: validation_error).
Files that cannot be read as tasks are listed in "problems" and on stderr; the listing goes on.

JSON Schemas of the stdin document and the answer: docs/schemas/task-list.input.json and
docs/schemas/task-list.output.json.`

// TaskList is task-list's command line.
type TaskList struct {
	Globals
	Status   string   `enum:",pending,in_progress,completed,deleted" default:"" help:"Only tasks with this status (pending, in_progress, completed, deleted)."`
	Parent   string   `name:"parent" placeholder:"ID" help:"Only subtasks of this parent."`
	Ready    bool     `help:"Only pending tasks with no unresolved blocker."`
	All      bool     `help:"Every status, completed and deleted included."`
	Waves    bool     `help:"Plan the active tasks in waves, with cycles and missing blockers."`
	Label    []string `name:"label" sep:"none" placeholder:"LABEL" help:"Only tasks with this label in metadata.labels (repeatable: all must match)."`
	Priority string   `enum:",low,medium,high" default:"" placeholder:"PRIORITY" help:"Only tasks of this priority (low, medium, high)."`
	Text     string   `placeholder:"WORDS" help:"Only tasks whose subject or description holds every word (case-insensitive)."`
	Full     bool     `help:"Each task's whole record instead of the short entry."`
}
