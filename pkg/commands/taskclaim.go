package commands

import "time"

const taskClaimHelp = `Example: task-claim 7f3a --owner agent-3

Claim one task for an owner, atomically (docs/claims.md).

  task-claim T-… --owner agent-3 [--lease 15m]   claim this task
  task-claim --owner agent-3                     claim the next ready task
  echo '{"id":"T-…","owner":"agent-3","lease":"90s"}' | task-claim
  task-claim T-… --owner agent-3 --remote        claim across machines (task-sync's git remote)
  task-claim T-… --owner agent-3 --paths 'src/api/**'   claim and lease paths (docs/leases.md)

A claim succeeds when the task is pending with no unresolved blocker, in_progress under an
expired claim (a takeover), or already held by the same owner (a renewal). It sets status
in_progress and owner and records metadata.claim {owner, session, claimedAt, renewedAt, leaseMs,
expiresAt}. The check and the write happen under the store's lock: of many claimants racing for
one task exactly one wins, the others get claim_conflict.

Without an id it claims the next ready task: pending with no unresolved blocker and no owner (or
this owner), or in_progress under an expired claim; by priority high, medium, none, low, then
creation order. It answers {"task":null} (exit 0) when nothing is ready.

The lease (Go duration syntax: 90s, 15m, 2h; 1s to 720h) is --lease, else tasks.claim_lease in
matrixx.jsonc, else 15m. A claim expires that long after its last renewal; the matrixx-hook
PostToolUse hook renews the session's claims while the agent works (at most once per third of the
lease). Completing the task or setting it back to pending ends the claim.

With --remote (a store shared through task-sync, docs/sync.md) the claim counts only once it is
pushed: task-claim fetches and merges the remote's matrixx-tasks branch, claims under the lock,
commits and pushes (remote "origin", or --remote-name). Among machines racing for one task the
first push wins; the others get claim_conflict naming the holder, and their store then holds the
winner's claim. Another machine's claim is taken over only 1 minute after its expiry (the clock
difference tolerated between machines). Without an id, a task lost to a faster machine is
followed by the next ready one.

` + stdinRule + `

Answer: {"task":{…full record…}} or {"task":null}
Errors (exit 1, nothing written): claim_conflict (the message names the holder and the expiry),
lease_conflict (--paths overlap another task's live lease, named),
task_blocked (lists the unresolved blockers), task_not_claimable (completed or deleted),
task_not_found, invalid_task_id, validation_error, task_lock_unavailable, internal_error; with
--remote also git_failed (no repository, no such remote) and sync_conflict (the remote moved on
every push attempt: nothing was pushed; retry).
A missing --owner is a usage error (exit 2).`

// TaskClaim is task-claim's command line.
type TaskClaim struct {
	Globals
	WriteFlags
	// ID is nil when no id is given (the next ready task); an id given
	// empty ("") is refused, never read as "the next ready task".
	ID         *string        `arg:"" optional:"" help:"Task id or short handle (default: the next ready task)."`
	Owner      *string        `help:"Who claims the task (required), e.g. agent-3."`
	Lease      *time.Duration `placeholder:"DUR" help:"Lease, e.g. 90s, 15m, 2h (default: tasks.claim_lease, else 15m)."`
	Remote     bool           `help:"Claim across machines: the claim counts only once pushed to the task-sync remote (docs/sync.md)."`
	RemoteName string         `name:"remote-name" placeholder:"NAME" default:"origin" help:"The git remote of --remote."`
	Paths      []string       `placeholder:"GLOB" help:"Lease these paths with the claim (globs relative to the checkout's top, comma-separated or repeated: src/api/**); default: the task's declared paths (docs/leases.md)."`
}
