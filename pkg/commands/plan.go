package commands

const planHelp = `Example: plan read auth

Markdown plans in .matrixx/plans/<name>.md with hash-anchored line edits (docs/plans.md).

  plan create auth < auth.md              raw markdown on stdin (a template when stdin is empty)
  plan read auth                          lines as N#ID|content; --json, --format content
  echo '{"edits":[{"op":"replace","pos":"5#VRRM","lines":["1. [x] Login form"]}]}' | plan update auth
  plan check auth 1                       tick numbered item 1 (--uncheck to clear it)
  plan check auth --task T-…              tick the item a task was filed for, found by its text
  plan tasks auth | task-create           one task per open numbered item, never twice
  plan sync auth                          tick the items whose task is completed
  plan list / plan delete auth

Names are kebab-case (auth, release-2-0). Numbered checkbox items ("1. [ ] …") are the work and
count toward progress; "- [ ]" bullets are meta items. Every answer is one JSON document (plan read
prints text unless --json); errors are {"error","message"} on stdout with exit 1, usage errors exit 2.
Only create and update read stdin (whatever their flags); the other subcommands never do. The
project root is resolved through symbolic links, so a project reached through a link is the same
project. See README "Plans" and docs/plans.md.

JSON Schemas of the answers (and of plan update's stdin): docs/schemas/plan-<subcommand>.*.json.`

// Plan is plan's command line: global flags and the subcommands.
type Plan struct {
	Globals
	WriteFlags
	Create PlanCreate `cmd:"" help:"Create a plan from markdown on stdin, or from a template when stdin is empty."`
	List   PlanList   `cmd:"" help:"List the plans with size and progress."`
	Read   PlanRead   `cmd:"" help:"Print a plan as N#ID|content lines (--json for structure)."`
	Update PlanUpdate `cmd:"" help:"Apply anchored line edits read as JSON on stdin."`
	Delete PlanDelete `cmd:"" help:"Delete a plan."`
	Tasks  PlanTasks  `cmd:"" help:"Print the open numbered items without a task as a task-create batch."`
	Check  PlanCheck  `cmd:"" help:"Tick (or with --uncheck clear) the numbered item N, or the item of task --task ID."`
	Sync   PlanSync   `cmd:"" help:"Tick every open item whose task is completed."`
}

// PlanCreate is plan create's arguments.
type PlanCreate struct {
	Name  string `arg:"" help:"Plan name (kebab-case, no .md)."`
	Force bool   `help:"Replace the plan if it exists (default: refuse with file_exists)."`
}

// Help is plan create's --help.
func (*PlanCreate) Help() string {
	return `Example: plan create auth < auth.md

Writes .matrixx/plans/NAME.md with the markdown read on stdin, byte for byte. When stdin is a
terminal or empty, writes a template to fill in with plan update. A pipe or file is read until
it closes; a socket stdin (an agent host's) that sends nothing within 3 s is "no input" (exit 2),
and one that sends text and then goes silent for 3 s without closing is refused (exit 2, nothing
written): plain text has no end marker, so it could be cut short.

  plan create auth < auth.md
  printf '# Auth\n\n1. [ ] Login form\n2. [ ] Session tokens\n' | plan create auth

Answer: {"name","size","progress":{"done","total"},"totalLines","replaced"?,"template"?}
Errors: invalid_file_path (name), file_exists (use --force to replace), file_too_large (over
102400 bytes), validation_error (the markdown given is not UTF-8 or holds NUL),
task_lock_unavailable.`
}

// PlanList is plan list's arguments.
type PlanList struct{}

// Help is plan list's --help.
func (*PlanList) Help() string {
	return `Example: plan list

Answer: {"plans":[{"name","size","progress":{"done","total"}}],"problems"?:[{"file","error"}]}
sorted by name; size is in bytes; progress counts numbered checkbox items. *.md files that are not
readable plans (bad name, symbolic link, …) are listed in "problems" and on stderr.`
}

// PlanRead is plan read's arguments.
type PlanRead struct {
	Name   string `arg:"" help:"Plan name (kebab-case, no .md)."`
	Offset int    `default:"1" placeholder:"N" help:"First line to print (1-based); anchors stay absolute."`
	Limit  int    `default:"0" placeholder:"N" help:"Print at most N lines (0: all)."`
	Format string `enum:",hashline,content,json" default:"" placeholder:"FORMAT" help:"hashline (N#ID|content, the default), content (the plain text) or json."`
	JSON   bool   `name:"json" help:"Same as --format json (not with another --format)."`
}

// Help is plan read's --help.
func (*PlanRead) Help() string {
	return `Example: plan read auth --offset 40 --limit 20

Prints the plan's lines as N#ID|content: N is the 1-based line number and ID a 4-symbol hash of
the line. plan update needs these N#ID anchors; copy them as they are.

  plan read auth                      every line
  plan read auth --offset 40 --limit 20
  plan read auth --format content     the plain markdown
  plan read auth --json               {"name","size","totalLines","progress":{"done","total"},
                                        "lines":[{"line","id","text"}]}

A file written by other means that is not UTF-8 or holds NUL is read as it is (only the text
given to create and update is checked): invalid bytes are shown raw, and as U+FFFD with --json.

Errors (JSON on stdout, exit 1): invalid_file_path, file_not_found, file_too_large.`
}

// PlanUpdate is plan update's arguments.
type PlanUpdate struct {
	Name   string `arg:"" help:"Plan name."`
	DryRun bool   `name:"dry-run" help:"Check and apply the edits, answer as usual, write nothing."`
}

// Help is plan update's --help.
func (*PlanUpdate) Help() string {
	return `Example: echo '{"edits":[…]}' | plan update auth

Reads {"edits":[…]} on stdin and applies every edit or none. Each edit:

  {"op":"replace","pos":"N#ID","end":"N#ID","lines":["…"]}  replace lines pos..end (end optional);
                                                          "lines":[] or null deletes them
  {"op":"append","pos":"N#ID","lines":["…"]}              insert after pos (end of file without pos)
  {"op":"prepend","pos":"N#ID","lines":["…"]}             insert before pos (start of file without pos)

"lines" is an array of lines or one string of text split at newlines. Anchors come from plan read
and all refer to the plan as read: line numbers do not shift between the edits of one update.
Anchors may keep decorations (">>> 5#VRRM|text", "5 # VRRM"); the legacy 2-symbol
ID is accepted. Overlapping edits are refused.

When an anchor no longer matches (the plan changed since it was read) nothing is written and the
answer is {"error":"anchor_mismatch","message":…,"totalLines":N,"mismatches":[{"ref","field","line",
"current"?,"didYouMean"?,"context":["N#ID|text",…]}]}: the message and "context" show the current
lines with fresh anchors, so the edit can be retried without another read.

Answer: {"name","size","progress","totalLines","changed","dryRun"?,"lines":[{"line","id","text"}]}
where "lines" are the lines written, with their new anchors.
Errors: validation_error (malformed document), invalid_edit, anchor_mismatch, file_not_found,
invalid_file_path, file_too_large (result over 102400 bytes), task_lock_unavailable.`
}

// PlanDelete is plan delete's arguments.
type PlanDelete struct {
	Name string `arg:"" help:"Plan name."`
}

// Help is plan delete's --help.
func (*PlanDelete) Help() string {
	return `Example: plan delete auth

Answer: {"name","deleted":true}. Tasks filed from the plan are left alone.
Errors: invalid_file_path, file_not_found, task_lock_unavailable.`
}

// PlanTasks is plan tasks's arguments.
type PlanTasks struct {
	Name string `arg:"" help:"Plan name."`
}

// Help is plan tasks's --help.
func (*PlanTasks) Help() string {
	return `Example: plan tasks auth | task-create

Prints the plan's open numbered items that have no task yet as a task-create batch:

  {"items":[{"subject":"Login form","metadata":{"planName":"auth","planItem":1,"planItemText":"Login form"}}]}

so "plan tasks auth | task-create" files one task per item. planItem is the item's number as
written ("3. [ ] …" is item 3), planItemText its text. An item counts as filed while a task of this
project stands for it and is not deleted, so running the pipeline again adds nothing; deleting an
item's task files it again. Checked items are never filed. Every task in the project's own store
(.matrixx/tasks) is this project's, also after the project was moved or reached through a symbolic
link; in a shared store (tasks.scope global) tasks of other projects do not count.
Invalid UTF-8 in the plan file shows as U+FFFD in subjects; an item whose text holds NUL gives a
subject task-create refuses (validation_error for that item).

A task stands for the item numbered planItem while that item's text is planItemText. When items
were inserted, deleted, reordered or renumbered, the task follows its text to the item's new number
and its metadata is updated (named on stderr). When the text is on several items, or gone while an
open item could still be the task's, nothing is printed but plan_link_broken, naming each task and
its candidate items with the task-update command that re-links it: an item is never filed or
skipped by its number alone. A task whose item is gone from the plan is ignored (named on stderr).
Tasks filed without planItemText use their subject as the text. See docs/plans.md.

With nothing left to file the answer is {"items":[]} (exit 0), which task-create answers as a no-op
({"tasks":[],"errors":[]}, exit 0), so the pipeline is safe in "set -e" scripts. task-create
deduplicates by subject only among tasks of the same plan item: items that share their text, with
each other or with other tasks, each get their own task.

A completed task keeps its item filed; task-cleanup keeps it (keptPlanItems) until plan sync has
ticked the item, so cleaning up never makes plan tasks file finished work again.

Errors: invalid_file_path, file_not_found, validation_error (two items share a number),
plan_link_broken, task_lock_unavailable (writing a followed link).`
}

// PlanCheck is plan check's arguments.
type PlanCheck struct {
	Name    string `arg:"" help:"Plan name."`
	Item    *int   `arg:"" optional:"" name:"N" help:"Number of the item as the plan shows it now (\"3. [ ] …\" is 3); not with --task."`
	Task    string `name:"task" placeholder:"ID" help:"Tick the item task ID was filed for (metadata planName, planItem, planItemText), followed by its text when its number changed; instead of N."`
	Uncheck bool   `help:"Clear the checkbox instead."`
}

// Help is plan check's --help.
func (*PlanCheck) Help() string {
	return `Example: plan check auth 3

Sets "N. [ ]" to "N. [x]" (or back with --uncheck) under the plan lock; no anchor needed.
Checking an item that already is checked changes nothing ("changed":false). N is the number the
plan shows now. To tick the item of a task, use --task ID (or plan sync NAME): the task's
metadata records the item's number and text when it was filed, and when the number no longer
carries that text the item is found by its text (the task's link is updated), or the command
refuses with plan_link_broken, naming the task and the candidate items; see docs/plans.md.

  plan check auth 3
  plan check auth --task T-…

Answer: {"name","size","progress","item","done","changed","lines":[{"line","id","text"}]}
Errors: invalid_edit (no item N), validation_error (two items numbered N; the task is not linked
to this plan), plan_link_broken, task_not_found, file_not_found, invalid_file_path,
task_lock_unavailable.`
}

// PlanSync is plan sync's arguments.
type PlanSync struct {
	Name string `arg:"" help:"Plan name."`
}

// Help is plan sync's --help.
func (*PlanSync) Help() string {
	return `Example: plan sync auth

Ticks every open numbered item that has a completed task (metadata planName/planItem) and no
pending or in_progress one. Items are never unticked. Only the checkbox changes: other bytes of
the file (invalid UTF-8 written by other means included) stay as they are.

A task records its item's number and text (planItemText) when it is filed. When the number no
longer carries that text (items inserted, deleted, reordered, renumbered), the item is found by
its text and the task's link is updated; when the text is on several items, or gone while an
open item could still be it, nothing is changed and the answer is plan_link_broken, naming each
task and its candidate items, with the task-update command that re-links it. A task whose item
is gone from the plan is ignored (named on stderr). See docs/plans.md.

Answer: {"name","size","progress","checked":[N,…],"lines":[{"line","id","text"}]}
Errors: file_not_found, invalid_file_path, validation_error (two items share a number),
plan_link_broken ({"error","message","links":[{"task","subject","planItem","planItemText",
"reason","candidates":[{"item","line","text","done"}]}]}), task_lock_unavailable.`
}
