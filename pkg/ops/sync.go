package ops

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/tasksync"
)

// Sync fetches, merges, commits and pushes the store and the plans with
// the git remote (task-sync), in at most attempts rounds (1 to 100).
// When the rounds run out the error is sync_conflict and the answer still
// says what the rounds that ran merged and decided (SyncConflictAnswer).
func (o *Ops) Sync(remote string, attempts int) (*contract.SyncResult, error) {
	if attempts < 1 || attempts > 100 {
		return nil, errcode.New(errcode.InvalidArguments, "--attempts must lie between 1 and 100")
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	opt := o.SyncOptions(p)
	opt.Remote, opt.Attempts = remote, attempts
	return tasksync.Sync(opt)
}

// SyncConflictAnswer is the answer of a Sync whose error is
// sync_conflict; nil for any other error.
func SyncConflictAnswer(res *contract.SyncResult, err error) *contract.SyncConflictAnswer {
	if errcode.Of(err) != tasksync.SyncConflict {
		return nil
	}
	e := errcode.As(err)
	return &contract.SyncConflictAnswer{Error: e.Code, Message: e.Message, SyncResult: res}
}
