package cli

import (
	"io"
	"runtime/debug"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const claimHelp = `Example: task-claim 7f3a --owner agent-3

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

` + app.StdinRule + `

Answer: {"task":{…full record…}} or {"task":null}
Errors (exit 1, nothing written): claim_conflict (the message names the holder and the expiry),
lease_conflict (--paths overlap another task's live lease, named),
task_blocked (lists the unresolved blockers), task_not_claimable (completed or deleted),
task_not_found, invalid_task_id, validation_error, task_lock_unavailable, internal_error; with
--remote also git_failed (no repository, no such remote) and sync_conflict (the remote moved on
every push attempt: nothing was pushed; retry).
A missing --owner is a usage error (exit 2).`

type claimCmd struct {
	app.Globals
	app.WriteFlags
	ID         string         `arg:"" optional:"" help:"Task id or short handle (default: the next ready task)."`
	Owner      *string        `help:"Who claims the task (required), e.g. agent-3."`
	Lease      *time.Duration `placeholder:"DUR" help:"Lease, e.g. 90s, 15m, 2h (default: tasks.claim_lease, else 15m)."`
	Remote     bool           `help:"Claim across machines: the claim counts only once pushed to the task-sync remote (docs/sync.md)."`
	RemoteName string         `name:"remote-name" placeholder:"NAME" default:"origin" help:"The git remote of --remote."`
	Paths      []string       `placeholder:"GLOB" help:"Lease these paths with the claim (globs relative to the checkout's top, comma-separated or repeated: src/api/**); default: the task's declared paths (docs/leases.md)."`
}

// TaskClaim is the task-claim binary.
func TaskClaim(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &claimCmd{}
	return app.Run("task-claim", claimHelp, c, c.run, args, stdin, stdout, stderr)
}

func (c *claimCmd) run(a *app.App) error {
	// A claim without id reads the whole store once and exits: collect
	// garbage rarely, as task-list does (not inside a server).
	if !a.InProcess {
		debug.SetGCPercent(400)
	}
	a.Pretty = c.Pretty
	req, err := c.request(a)
	if err != nil {
		return err
	}
	remote := ""
	if c.Remote {
		remote = c.RemoteName
	}
	ans, err := a.Ops(&c.Globals, &c.WriteFlags).Claim(*req, remote)
	if err != nil {
		return err
	}
	a.Emit(ans)
	return nil
}

func (c *claimCmd) request(a *app.App) (*store.ClaimRequest, error) {
	if c.Owner != nil || c.Lease != nil || c.ID != "" || c.Paths != nil {
		if _, _, err := a.ReadInput("flags", app.DocRequired); err != nil {
			return nil, err
		}
		if c.ID != "" {
			if err := a.Ops(&c.Globals, &c.WriteFlags).ResolveHandles([]*string{&c.ID}, nil); err != nil {
				return nil, err
			}
			if err := task.CheckID(errcode.InvalidTaskID, "id", c.ID); err != nil {
				return nil, err
			}
		}
		if c.Owner == nil {
			return nil, errcode.New(errcode.InvalidArguments, "--owner is required: task-claim [T-…] --owner NAME (see task-claim --help)")
		}
		if err := task.CheckOwner(*c.Owner); err != nil {
			return nil, app.FlagError(err)
		}
		req := &store.ClaimRequest{ID: c.ID, Owner: *c.Owner, Paths: c.Paths}
		if c.Lease != nil {
			if *c.Lease < task.MinLease || *c.Lease > task.MaxLease {
				return nil, errcode.New(errcode.InvalidArguments, "--lease %v is not between %v and %v", *c.Lease, task.MinLease, task.MaxLease)
			}
			req.Lease = *c.Lease
		}
		return req, nil
	}
	data, empty, err := a.ReadInput("", app.DocRequired)
	if err != nil {
		return nil, err
	}
	if empty {
		return nil, errcode.New(errcode.InvalidArguments, "--owner is required: task-claim [T-…] --owner NAME, or a document {\"owner\":\"NAME\",\"id\"?,\"lease\"?} on stdin (see task-claim --help)")
	}
	doc, lease, err := task.ParseClaim(data)
	if err != nil {
		return nil, err
	}
	return &store.ClaimRequest{ID: doc.ID, Owner: doc.Owner, Lease: lease, Paths: doc.Paths}, nil
}
