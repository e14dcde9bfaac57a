package commands

const taskDoctorHelp = `Example: task-doctor --repair

Check the task store: dependencies, parents, claims and files (docs/claims.md).

  task-doctor              report; exit 1 on errors, 0 with only warnings
  task-doctor --strict     warnings fail too
  task-doctor --repair     apply the safe repairs, then report what is left
  echo '{"repair":true,"strict":true}' | task-doctor

Errors: corrupt_file, missing_blocker (an active task waits for an id with no task),
missing_parent (an active task's parent is gone), cycle (active tasks that wait for each other
over blockedBy: what task-list --waves reports), self_edge when an active task waits for itself.
Warnings: one_sided_edge (A blockedBy B without B blocks A, or the reverse: left by older
versions, cleanup or another tool), contradicting_edge (A blocks B while A already waits for B:
its mirror would close a cycle), self_edge in any other list, dangling_edge (any other edge to a
task that no longer exists), deleted_blocker, claim_expired, claim_malformed, unclaimed_work (an
in_progress task without a claim with a lease: nothing gives it back if its agent dies).

--repair takes the store's lock and applies only the safe repairs, through the store's own writes
(each file keeps its modification time): it adds missing mirror edges (never one that would close
a cycle), drops a task's edges to itself, and drops edges (blockedBy, blocks, parentID) to tasks
that no longer exist. Everything else needs a decision and is left, with the repair to make by
hand.

` + stdinDoctor + `

Answer: {"tasks":N,"findings":[{"kind","severity":"error"|"warning","ids":[…],"message","repair",
"repairable","repaired"?}],"errors":N,"warnings":N,"repaired":N}; errors and warnings count the
findings left unrepaired. Exit 1 when errors are left (or warnings, with --strict), else 0; the
report is on stdout either way. Failures (task_lock_unavailable, internal_error) use the error
envelope.`

// TaskDoctor is task-doctor's command line.
type TaskDoctor struct {
	Globals
	WriteFlags
	Strict bool `help:"Fail (exit 1) on warnings too."`
	Repair bool `help:"Apply the safe repairs (mirror edges, self-edges, edges to tasks that no longer exist)."`
}
