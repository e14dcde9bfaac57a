package tasksync

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Codes of task-claim (docs/claims.md) that a remote claim answers.
const (
	ClaimConflict    errcode.Code = "claim_conflict"
	TaskBlocked      errcode.Code = "task_blocked"
	TaskNotClaimable errcode.Code = "task_not_claimable"
)

// MaxClockSkew is the clock difference between machines that claims
// tolerate: a lease written on another machine is taken as expired only
// once this machine's clock is MaxClockSkew past its expiresAt. So a
// machine whose clock runs up to a minute ahead never takes over a live
// claim (docs/sync.md "Claims across machines").
const MaxClockSkew = time.Minute

// Claim is metadata.claim as task-claim writes it (docs/claims.md): times
// RFC 3339 UTC with milliseconds; renewedAt, leaseMs and expiresAt only
// with a lease.
type Claim struct {
	Owner     string `json:"owner,omitempty"`
	Session   string `json:"session,omitempty"`
	ClaimedAt string `json:"claimedAt"`
	RenewedAt string `json:"renewedAt,omitempty"`
	LeaseMs   int64  `json:"leaseMs,omitzero"`
	ExpiresAt string `json:"expiresAt,omitempty"`
}

const claimTime = "2006-01-02T15:04:05.000Z07:00"

// ClaimRequest is one remote claim.
type ClaimRequest struct {
	ID, Owner, Session string
	Lease              time.Duration // 0: no lease (never expires)
	Now                func() time.Time
}

// ClaimFunc claims one task in the local store while the caller holds its
// lock l: it reads the record, decides (claim_conflict, task_blocked,
// task_not_claimable, task_not_found) and writes the claimed record,
// re-checking l before the rename. task-claim --remote passes the store's
// own claim here; LocalClaim implements the same contract (docs/claims.md)
// for task-sync claim.
type ClaimFunc func(dir string, l *lock.Lock, req ClaimRequest) (*task.Task, error)

// RemoteClaim is `task-claim --remote`: the claim counts only once it is
// pushed. It fetches and merges the remote (so a claim pushed elsewhere is
// seen), claims locally under the lock, commits and pushes. A push the
// remote refuses (someone pushed first) is followed by a fetch and merge,
// in which the claim already on the remote wins (rule first_push); if the
// claim is no longer ours the answer is claim_conflict naming the holder,
// and the local store holds the winner's claim. Errors: those of claim,
// sync_conflict when the push budget runs out, git_failed.
func RemoteClaim(o Options, req ClaimRequest, claim ClaimFunc) (*task.Task, *Result, error) {
	if claim == nil {
		claim = LocalClaim
	}
	res := &Result{Conflicts: []Conflict{}}
	var mine jsontext.Value // the claim we wrote, to recognise it after merges
	var out *task.Task
	check := func(l *lock.Lock) (bool, error) {
		path := filepath.Join(o.TasksDir, task.FileName(req.ID))
		if mine != nil {
			t, err := readTask(path)
			if err != nil {
				return false, err
			}
			if t == nil || !bytes.Equal(compact(t.Metadata["claim"]), compact(mine)) {
				return false, conflictOf(t, req)
			}
			out = t
			return false, nil
		}
		t, err := claim(o.TasksDir, l, req)
		if err != nil {
			return false, err
		}
		mine, out = t.Metadata["claim"], t
		return true, nil
	}
	err := withRepo(o, func(r *repo) error { return syncLoop(r, &o, res, check) })
	if err != nil {
		return nil, res, err
	}
	return out, res, nil
}

func conflictOf(t *task.Task, req ClaimRequest) error {
	if t == nil {
		return errcode.New(errcode.TaskNotFound, "%s was removed on another machine before this claim was pushed", req.ID)
	}
	c := claimOf(t)
	holder := t.Owner
	exp := "no lease: it does not expire"
	if c != nil {
		if c.Owner != "" {
			holder = c.Owner
		}
		if c.ExpiresAt != "" {
			exp = "until " + c.ExpiresAt
		}
	}
	if holder == "" {
		holder = "another machine"
	}
	return errcode.New(ClaimConflict, "%s was claimed by %s (%s), pushed first from another machine; this claim was not pushed and the local store now holds theirs (status %s)", req.ID, holder, exp, t.Status)
}

func claimOf(t *task.Task) *Claim {
	raw, ok := t.Metadata["claim"]
	if !ok || raw.Kind() != '{' {
		return nil
	}
	var c Claim
	if json.Unmarshal(raw, &c) != nil {
		return nil
	}
	return &c
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

// LocalClaim is the claim of docs/claims.md under a held lock: pending with
// every blocker completed, in_progress under a claim whose lease ended more
// than MaxClockSkew ago (a takeover), or already the owner's (a renewal).
func LocalClaim(dir string, l *lock.Lock, req ClaimRequest) (*task.Task, error) {
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	path := filepath.Join(dir, task.FileName(req.ID))
	t, err := readTask(path)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errcode.Field(errcode.TaskNotFound, "id", "no task %s in %s", req.ID, dir)
	}
	c := claimOf(t)
	switch t.Status {
	case task.Completed, task.Deleted:
		return nil, errcode.New(TaskNotClaimable, "%s is %s", t.ID, t.Status)
	case task.Pending:
		var open []string
		for _, b := range t.BlockedBy {
			bt, err := readTask(filepath.Join(dir, task.FileName(b)))
			switch {
			case err != nil:
				open = append(open, b+" (corrupt)")
			case bt == nil:
				open = append(open, b+" (missing)")
			case bt.Status != task.Completed:
				open = append(open, b+" ("+string(bt.Status)+")")
			}
		}
		if len(open) > 0 {
			return nil, errcode.New(TaskBlocked, "%s waits for %s", t.ID, strings.Join(open, ", "))
		}
	case task.InProgress:
		holder := t.Owner
		if c != nil && c.Owner != "" {
			holder = c.Owner
		}
		if holder != req.Owner {
			exp, ok := time.Time{}, false
			if c != nil && c.ExpiresAt != "" {
				if e, err := time.Parse(time.RFC3339Nano, c.ExpiresAt); err == nil {
					exp, ok = e, true
				}
			}
			if !ok {
				return nil, errcode.New(ClaimConflict, "%s is claimed by %s with no lease: it does not expire", t.ID, holder)
			}
			if now().Before(exp.Add(MaxClockSkew)) {
				return nil, errcode.New(ClaimConflict, "%s is claimed by %s until %s (takeover allowed %v after that, the tolerated clock skew)", t.ID, holder, c.ExpiresAt, MaxClockSkew)
			}
		}
	}
	n := now().UTC()
	nc := &Claim{Owner: req.Owner, ClaimedAt: n.Format(claimTime)}
	if req.Session != "" && req.Session != "no-session" {
		nc.Session = req.Session
	}
	if c != nil && c.Owner == req.Owner && c.Session == nc.Session && c.ClaimedAt != "" {
		nc.ClaimedAt = c.ClaimedAt
	}
	if req.Lease > 0 {
		nc.RenewedAt = n.Format(claimTime)
		nc.LeaseMs = req.Lease.Milliseconds()
		nc.ExpiresAt = n.Add(req.Lease).Format(claimTime)
	}
	raw, err := json.Marshal(nc, json.Deterministic(true))
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "encoding the claim")
	}
	t.Status, t.Owner = task.InProgress, req.Owner
	if t.Metadata == nil {
		t.Metadata = task.Metadata{}
	}
	t.Metadata["claim"] = jsontext.Value(raw)
	if req.Session != "" {
		t.ThreadID = req.Session
	}
	data, err := task.Encode(t)
	if err != nil {
		return nil, err
	}
	if err := durable.WriteFile(path, data, durable.Options{BeforeRename: l.Check}); err != nil {
		if errcode.Of(err) == errcode.TaskLockUnavailable {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.InternalError, err, "writing %s", path)
	}
	return t, nil
}
