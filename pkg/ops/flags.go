package ops

import (
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The request forms of a command line (a binary's flags, the porcelain's
// words): the ids in them may be short handles, resolved here, and a
// value that fails validation is a usage error (invalid_arguments, exit
// 2) naming the flag, where the same value in a stdin document is a
// validation_error.

// CreateFlags creates the one task it describes (task-create's flags).
func (o *Ops) CreateFlags(it task.CreateItem) (*store.CreateResult, error) {
	var parent []*string
	if it.ParentID != "" {
		parent = []*string{&it.ParentID}
	}
	if err := o.ResolveHandles(parent, []*[]string{&it.BlockedBy, &it.Blocks}); err != nil {
		return nil, err
	}
	if err := it.Validate(); err != nil {
		return nil, FlagError(err)
	}
	if err := task.CheckRefs([]task.CreateItem{it}, false); err != nil {
		return nil, FlagError(err)
	}
	return o.Create(&task.CreateRequest{Total: 1, Items: []task.CreateItem{it}, Index: []int{0}})
}

// ListFlag names task-list's filters by their flags in messages.
func ListFlag(key string) string {
	switch key {
	case "parentID":
		return "--parent"
	case "labels":
		return "--label"
	}
	return "--" + key
}

// ListFlags lists tasks, or plans waves with req.Waves (task-list's
// flags): the answer is a *store.ListResult or a *store.WavesResult. A
// parent handle that names no task lists no subtasks, as for a missing
// parent id.
func (o *Ops) ListFlags(req *task.ListRequest) (any, error) {
	if err := o.ResolveHandles([]*string{&req.ParentID}, nil); err != nil {
		if errcode.Of(err) != errcode.TaskNotFound {
			return nil, err
		}
		if req.Full {
			return &store.FullListResult{Tasks: []*task.Task{}, Reminder: store.Reminder}, nil
		}
		return &store.ListResult{Tasks: []task.Summary{}, Reminder: store.Reminder}, nil
	}
	if err := req.ValidateAs(ListFlag); err != nil {
		return nil, FlagError(err)
	}
	return o.Listing(req)
}

// ClaimFlags claims task id ("" for the next ready one) for owner
// (task-claim's flags); a zero lease is the default (for a person's claim,
// no lease: it never expires), any other must lie between task.MinLease
// and task.MaxLease.
func (o *Ops) ClaimFlags(id, owner string, lease time.Duration, paths []string, remote string, person bool) (*contract.TaskAnswer, error) {
	if id != "" {
		if err := o.ResolveHandles([]*string{&id}, nil); err != nil {
			return nil, err
		}
		if err := task.CheckID(errcode.InvalidTaskID, "id", id); err != nil {
			return nil, err
		}
	}
	if err := task.CheckOwner(owner); err != nil {
		return nil, FlagError(err)
	}
	if lease != 0 && (lease < task.MinLease || lease > task.MaxLease) {
		return nil, errcode.New(errcode.InvalidArguments, "--lease %v is not between %v and %v", lease, task.MinLease, task.MaxLease)
	}
	return o.Claim(store.ClaimRequest{ID: id, Owner: owner, Lease: lease, Paths: paths, Person: person}, remote)
}
