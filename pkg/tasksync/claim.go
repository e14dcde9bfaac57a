package tasksync

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// MaxClockSkew is the clock difference between machines that remote claims
// tolerate: a claim held by someone else is taken over only once this
// machine's clock is MaxClockSkew past its expiresAt. So a machine whose
// clock runs up to a minute ahead never takes over a live claim
// (docs/sync.md "Claims across machines"). task-claim --remote passes it
// as store.ClaimRequest.Skew.
const MaxClockSkew = time.Minute

// ClaimFunc claims one task in the local store while the caller holds the
// store's lock l (the rules, answers and errors of task-claim,
// docs/claims.md: store.Store.ClaimLocked): the claimed record, nil when a
// claim without id found nothing ready, or an error (claim_conflict,
// task_blocked, task_not_claimable, task_not_found, …) with nothing
// written. The write re-checks l before its rename.
type ClaimFunc func(l *lock.Lock) (*task.Task, error)

// RemoteClaim is `task-claim --remote`: the claim counts only once it is
// pushed. It fetches and merges the remote (so a claim pushed elsewhere is
// seen), claims locally under the lock (claim), commits and pushes. A push
// the remote refuses (someone pushed first) is followed by a fetch and
// merge, in which the claim already on the remote wins (rule first_push);
// if the claim is no longer ours the answer is claim_conflict naming the
// holder, and the local store holds the winner's claim. A claim without id
// (id "") claims the next ready task again instead, until the push budget
// runs out. The task is nil (and nothing pushed) when nothing is ready.
// Errors: those of claim, sync_conflict when the push budget runs out,
// git_failed, task_lock_unavailable.
func RemoteClaim(o Options, id string, claimFn ClaimFunc) (*task.Task, *contract.SyncResult, error) {
	if claimFn == nil {
		return nil, nil, errcode.New(errcode.InternalError, "RemoteClaim needs the store's claim")
	}
	res := &contract.SyncResult{Conflicts: []contract.SyncConflict{}}
	var mine jsontext.Value // the claim we wrote, to recognise it after merges
	var out *task.Task
	took := "" // the task we claimed
	check := func(l *lock.Lock) (bool, error) {
		if mine != nil {
			t, err := readTask(filepath.Join(o.TasksDir, task.FileName(took)))
			if err != nil {
				return false, err
			}
			if t != nil && bytes.Equal(compact(t.Metadata[claim.Key]), compact(mine)) {
				out = t
				return false, nil
			}
			if id != "" {
				return false, conflictOf(t, took)
			}
			mine, out = nil, nil // the next ready task, then
		}
		t, err := claimFn(l)
		if err != nil || t == nil {
			return false, err
		}
		mine, out, took = t.Metadata[claim.Key], t, t.ID
		return true, nil
	}
	err := withRepo(o, func(r *repo) error { return syncLoop(r, &o, res, check) })
	if err != nil {
		return nil, res, err
	}
	return out, res, nil
}

func conflictOf(t *task.Task, id string) error {
	if t == nil {
		return errcode.New(errcode.TaskNotFound, "%s was removed on another machine before this claim was pushed", id)
	}
	c := claim.Of(t)
	exp := "no lease: it does not expire"
	if e, ok := c.Expiry(); ok {
		exp = "until " + claim.Stamp(e)
	}
	return errcode.New(errcode.ClaimConflict, "%s was claimed by %s (%s), pushed first from another machine; this claim was not pushed and the local store now holds theirs (status %s)", id, claim.Holder(t, c), exp, t.Status)
}

func readTask(path string) (*task.Task, error) {
	data, err := readRegular(path, 16<<20)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.TaskCorrupt, err, "%s", filepath.Base(path))
	}
	t, err := task.DecodeRecord(data)
	if err != nil {
		return nil, errcode.Wrap(errcode.TaskCorrupt, err, "%s", filepath.Base(path))
	}
	return t, nil
}

// claimBeyondLease says why the claim of t, a record from the remote, may
// not come into the store ("" when it may): its expiresAt lies further
// ahead than any lease the toolkit grants, task.MaxLease, plus
// MaxClockSkew, counted from now (this machine's clock) and from the
// claim's renewedAt (claimedAt when never renewed). The bound is not
// renewedAt + leaseMs: a renewal with a shorter lease keeps a later expiry
// already granted (claim.Claim.Extend), so only the longest lease bounds
// a claim the toolkit wrote. A claim without a lease is not bounded (a
// person's claim that never expires).
func claimBeyondLease(t *task.Task, now time.Time) string {
	c := claim.Of(t)
	exp, ok := c.Expiry()
	if !ok {
		return ""
	}
	span := task.MaxLease + MaxClockSkew
	limit, from := now.Add(span), "now"
	if r := c.Renewed(); !r.IsZero() && r.Add(span).Before(limit) {
		limit, from = r.Add(span), "its renewedAt"
	}
	if exp.After(limit) {
		return fmt.Sprintf("its claim's expiresAt %s is past %s + the longest lease (%s) + the clock skew allowed (%s): no claim the toolkit writes holds that long", claim.Stamp(exp), from, task.MaxLease, MaxClockSkew)
	}
	return ""
}
