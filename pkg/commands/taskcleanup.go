package commands

const taskCleanupHelp = `Example: task-cleanup --dry-run

Delete finished tasks (see README.md; decisions in docs/design/decisions.md).

  task-cleanup                         delete every completed task
  task-cleanup --older-than 7d         only completed tasks idle for more than 7 days
  task-cleanup --include-deleted       also tasks marked deleted
  task-cleanup --stale --older-than 48h  also active tasks idle for more than 48h
  task-cleanup --dry-run               say what would go, delete nothing
  echo '{"olderThan":"7d","includeDeleted":true}' | task-cleanup

Without flags, reads an optional document on stdin:
{"olderThan"?,"all"?,"includeDeleted"?,"stale"?,"dryRun"?}. "all" (true unless olderThan is
given) selects every completed task: "all":false needs olderThan, and "all":true with olderThan
is refused (validation_error).

` + stdinCleanup + `

Age is the file's modification time. Completed tasks that are still needed are kept and listed:
keptBlockers (an active task still waits for them: deleting them would block it forever) and
keptPlanItems (their plan item, metadata planName/planItem, found by its text planItemText when
its number changed, is still unticked in .matrixx/plans: run "plan sync NAME" first, or plan
tasks would file the finished work again). A completed task whose plan is missing, whose
planName is not a valid plan name, or whose item the plan no longer has (or has ticked) is
deleted as usual: nothing is left to tick.
Corrupt files are reported, never deleted; temp files left by killed writers are swept.

Answer: {"deleted":N,"remaining":N,"deletedIds":[…],"dryRun"?:true,"keptBlockers"?:[…],
"keptPlanItems"?:[…],"sweptTemps"?:[…],"problems"?:[{"file","error"}]}
Errors: validation_error, task_lock_unavailable, internal_error (exit 1); usage errors exit 2.

JSON Schemas of the stdin document and the answer: docs/schemas/task-cleanup.input.json and
docs/schemas/task-cleanup.output.json.`

// TaskCleanup is task-cleanup's command line.
type TaskCleanup struct {
	Globals
	WriteFlags
	OlderThan      string `name:"older-than" placeholder:"AGE" help:"Only tasks idle for longer than AGE: <n>d, <n>h or <n>m."`
	IncludeDeleted bool   `name:"include-deleted" help:"Also delete tasks with status deleted."`
	Stale          bool   `help:"Also delete pending/in_progress tasks idle past --older-than (else tasks.stale_after_hours)."`
	DryRun         bool   `name:"dry-run" help:"Report what would be deleted; delete nothing."`
}
