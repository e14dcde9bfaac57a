package cli

import (
	"io"
	"runtime/debug"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// claimCmd is task-claim's command line (commands.TaskClaim) and what it runs.
type claimCmd struct{ commands.TaskClaim }

// TaskClaim is the task-claim binary.
func TaskClaim(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &claimCmd{}
	return app.Run("task-claim", commands.Help("task-claim"), c, c.run, args, stdin, stdout, stderr)
}

func (c *claimCmd) run(a *app.App) error {
	// A claim without id reads the whole store once and exits: collect
	// garbage rarely, as task-list does.
	debug.SetGCPercent(400)
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
	if c.Owner != nil || c.Lease != nil || c.ID != nil || c.Paths != nil {
		if _, _, err := a.ReadInput("flags", app.DocRequired); err != nil {
			return nil, err
		}
		// An id given empty is refused (invalid_task_id): only no id at
		// all means the next ready task.
		id := ""
		if c.ID != nil {
			id = *c.ID
			if id != "" {
				if err := a.Ops(&c.Globals, &c.WriteFlags).ResolveHandles([]*string{&id}, nil); err != nil {
					return nil, err
				}
			}
			if err := task.CheckID(errcode.InvalidTaskID, "id", id); err != nil {
				return nil, err
			}
		}
		if c.Owner == nil {
			return nil, errcode.New(errcode.InvalidArguments, "--owner is required: task-claim [T-…] --owner NAME (see task-claim --help)")
		}
		if err := task.CheckOwner(*c.Owner); err != nil {
			return nil, ops.FlagError(err)
		}
		req := &store.ClaimRequest{ID: id, Owner: *c.Owner, Paths: c.Paths}
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
