package commands

const taskUpdateHelp = `Example: task-update 7f3a --status completed

Update one task (see README.md; decisions in docs/design/decisions.md).

  task-update T-… --status in_progress --owner morpheus
  echo '{"id":"T-…","status":"completed"}' | task-update
  echo '{"id":"T-…","addBlockedBy":["T-…"],"metadata":{"k":null}}' | task-update

` + stdinRequired + `

Scalars (subject, description, status, activeForm, owner, priority) replace; addBlocks and
addBlockedBy append; removeBlocks and removeBlockedBy (--remove-blocks, --remove-blocked-by)
remove a dependency, both ends under one lock (an edge that does not exist is validation_error,
nothing written); metadata merges shallowly and a null value deletes its key. Completing a task
whose subtasks (parentID) are still pending or in_progress is children_active, naming them,
unless --force ("force":true). repoURL and parentID are create-only. An edge that would close a
dependency cycle is refused (dependency_cycle).

expect makes the update a compare-and-swap: {"id","expect":{"status":"pending","owner":""},…}
(flags --expect-status, --expect-owner; "" means no owner) applies the update only when the task
still has those values, else precondition_failed gives the current ones and nothing is written.
Ids in addBlocks/addBlockedBy must name existing tasks (task_not_found); the other task gets the
mirror edge (blocks for blockedBy and back) under the same lock.

Status in_progress records the session (and owner) in metadata.claim, with a lease when --lease
(or "lease") is given; any other status ends the claim, and status pending also clears the owner
when it is the claim's owner and the update does not set owner itself (the task goes back to the
queue). To start work use task-claim (docs/claims.md). A task under another owner's live claim
(not expired) is not taken over: setting in_progress or changing the owner is claim_conflict and
nothing is written, unless --expect-owner (expect.owner) names the claim's owner, a deliberate
reassignment. metadata.claim itself cannot be set by hand.

An update that changes nothing (only the id, or values the task already has) answers the task as
it is, exit 0, and writes nothing: the file and its modification time stay as they were, so it is
neither progress for the Stop hook nor a heartbeat against staleness (a note says so on stderr).

Answer: {"task":{…full record…}}
Errors: invalid_task_id, task_not_found, task_corrupt, validation_error, dependency_cycle,
precondition_failed, task_lock_unavailable, internal_error (exit 1); usage errors exit 2.

JSON Schemas of the stdin document and the answer: docs/schemas/task-update.input.json and
docs/schemas/task-update.output.json.`

// TaskUpdate is task-update's command line.
type TaskUpdate struct {
	Globals
	WriteFlags
	ID              string   `arg:"" optional:"" help:"Task id or short handle (a suffix of the id's digits, at least 4 long) (instead of stdin)."`
	Subject         *string  `short:"s" help:"New subject."`
	Description     *string  `short:"d" help:"New description."`
	Status          *string  `enum:"pending,in_progress,completed,deleted" help:"New status: pending, in_progress, completed, deleted."`
	ActiveForm      *string  `name:"active-form" help:"New activeForm."`
	Owner           *string  `help:"New owner (empty removes it)."`
	Priority        *string  `enum:"low,medium,high," help:"New priority: low, medium, high (\"\" removes it)."`
	AddBlocks       []string `name:"add-blocks" sep:"," placeholder:"ID" help:"Ids this task also blocks."`
	AddBlockedBy    []string `name:"add-blocked-by" sep:"," placeholder:"ID" help:"Ids this task also waits for."`
	RemoveBlocks    []string `name:"remove-blocks" sep:"," placeholder:"ID" help:"Ids this task no longer blocks (their mirror edge goes too)."`
	RemoveBlockedBy []string `name:"remove-blocked-by" sep:"," placeholder:"ID" help:"Ids this task no longer waits for (their mirror edge goes too)."`
	Metadata        string   `placeholder:"JSON" help:"Metadata to merge, as a JSON object (null deletes a key)."`
	ExpectStatus    *string  `name:"expect-status" enum:"pending,in_progress,completed,deleted" help:"Update only if the task still has this status (else precondition_failed)."`
	ExpectOwner     *string  `name:"expect-owner" placeholder:"NAME" help:"Update only if the task still has this owner; \"\" means no owner (else precondition_failed)."`
	Lease           string   `placeholder:"DUR" help:"With --status in_progress: the claim's lease, e.g. 15m (default: no lease, the claim does not expire)."`
	Force           bool     `help:"With --status completed: complete a task whose subtasks are still active (else children_active)."`
}
