package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// ClaimRequest is one task-claim: the task (empty: the next ready one),
// the claimant's owner name and the lease (> 0). Skew (>= 0) is the clock
// difference tolerated with claims written on other machines: a claim held
// by someone else is taken over only once it expired Skew ago (task-claim
// --remote sets tasksync.MaxClockSkew; docs/sync.md "Claims across
// machines").
type ClaimRequest struct {
	ID    string
	Owner string
	Lease time.Duration
	Skew  time.Duration
	// Paths are the path leases to take with the claim (cleaned globs,
	// claim.CleanGlobs); nil keeps a renewed claim's paths and otherwise
	// leases the task's declared paths (metadata.paths). A lease that
	// overlaps a live lease of another task is refused (lease_conflict;
	// docs/leases.md).
	Paths []string
	// Worktree and Branch are the checkout the claim is made in (recorded
	// in the claim; "" outside git).
	Worktree string
	Branch   string
	// If, when set, is a precondition on the task as read under the lock
	// (a claim with an id only): an error it returns refuses the claim
	// before any other check and is Claim's error; nothing is written. The
	// board checks the version of the task its page showed with it.
	If func(*task.Task) error
	// Person marks a person's claim (matrixx claim): recorded in the
	// claim, and with Lease 0 the claim records no lease and never
	// expires. Agents' claims always carry a lease (ops.Claim gives the
	// default).
	Person bool
}

// Claim takes one task for req.Owner under the lock, a compare-and-swap
// against every other writer of the store (docs/claims.md). With an id it
// succeeds when the task is pending with no unresolved blocker, in_progress
// under an expired claim (a takeover), or already held by req.Owner (a
// renewal); it sets status in_progress and owner and records
// metadata.claim with the lease. Without an id it claims the first task in
// NextOrder that is claimable, or returns (nil, nil) when none is.
// Errors: task_not_found, claim_conflict, task_blocked, task_not_claimable,
// task_corrupt, task_lock_unavailable, internal_error; nothing is written
// on any of them.
func (s *Store) Claim(req ClaimRequest) (*task.Task, error) {
	if req.ID != "" {
		return s.claimOne(req, s.transact)
	}
	return s.claimNextIndexed(req)
}

// ClaimLocked is Claim for a caller that already holds the store's lock l
// (task-claim --remote claims inside task-sync's step, under the lock the
// sync holds; it releases the lock itself). Same rules, answers and
// errors as Claim; the write re-checks l before its rename and is recorded
// in s.Record.
func (s *Store) ClaimLocked(l *lock.Lock, req ClaimRequest) (*task.Task, error) {
	held := func(fn func(tx *txn) error) error { return s.held(l, fn) }
	if req.ID != "" {
		return s.claimOne(req, held)
	}
	return s.claimNext(req, held)
}

func (s *Store) claimOne(req ClaimRequest, transact func(func(tx *txn) error) error) (*task.Task, error) {
	if !exists(filepath.Join(s.Dir, task.FileName(req.ID))) {
		return nil, errcode.Field(errcode.TaskNotFound, "id", "no task %s in %s", req.ID, s.Dir)
	}
	var out *task.Task
	err := transact(func(tx *txn) error {
		t, mtime, err := tx.readRec(req.ID)
		if err != nil {
			return err
		}
		if t == nil {
			return errcode.Field(errcode.TaskNotFound, "id", "no task %s in %s", req.ID, s.Dir)
		}
		if req.If != nil {
			if err := req.If(t); err != nil {
				return err
			}
		}
		now := s.now()
		if err := tx.claimable(t, req.Owner, now, req.Skew); err != nil {
			return err
		}
		tx.owner = req.Owner
		out = t
		return tx.takeClaim(t, mtime, req, now)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// claimNext (a claim inside task-sync's lock, where the ready index is
// not kept) picks candidates from a lock-free scan, then verifies them one
// by one under the lock against their files (and their blockers' files).
// When none of them is still claimable, the store is scanned again under
// the lock, so "nothing ready" is true at one moment.
func (s *Store) claimNext(req ClaimRequest, transact func(func(tx *txn) error) error) (*task.Task, error) {
	snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		return nil, err
	}
	first := NextOrder(snap, req.Owner, s.now().Add(-req.Skew))
	var out *task.Task
	err = transact(func(tx *txn) error {
		try := func(ids []string) (bool, error) {
			for _, id := range ids {
				t, mtime, err := tx.readRec(id)
				if err != nil || t == nil {
					continue // gone or broken since the scan: not claimable
				}
				now := s.now()
				if tx.claimable(t, req.Owner, now, req.Skew) != nil || !nextEligible(t, req.Owner, now.Add(-req.Skew)) {
					continue
				}
				tx.owner = req.Owner
				if err := tx.takeClaim(t, mtime, req, now); err != nil {
					if errcode.Of(err) == errcode.LeaseConflict {
						continue // its paths are leased to another task: try the next one
					}
					return false, err
				}
				out = t
				return true, nil
			}
			return false, nil
		}
		if ok, err := try(first); ok || err != nil {
			return err
		}
		snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
		if err != nil {
			return err
		}
		_, err = try(NextOrder(snap, req.Owner, s.now().Add(-req.Skew)))
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nextEligible is the extra rule of a claim without id: a pending task
// whose owner names someone else was assigned to them and is left alone.
func nextEligible(t *task.Task, owner string, now time.Time) bool {
	if t.Status == task.Pending {
		return t.Owner == "" || t.Owner == owner
	}
	// in_progress: only takeovers of expired claims (not the caller's own
	// live tasks: a worker asking for the next task wants a new one).
	c := claim.Of(t)
	return c != nil && c.Expired(now)
}

// priorityRank orders priorities for NextOrder: high, medium, none, low.
func priorityRank(p task.Priority) int {
	switch p {
	case "high":
		return 0
	case "medium":
		return 1
	case "low":
		return 3
	}
	return 2
}

// NextOrder returns the ids a claim without id would try, in order:
// pending tasks with no unresolved blocker and no active subtask whose
// owner is empty or owner,
// and in_progress tasks whose claim has expired; by priority (high, medium,
// none, low), then by id (creation order for UUIDv7 ids).
func NextOrder(snap *Snapshot, owner string, now time.Time) []string {
	status := make(map[string]task.Status, len(snap.Entries))
	for _, e := range snap.Entries {
		status[e.Task.ID] = e.Task.Status
	}
	parents := task.ActiveChildren(snap.Tasks())
	type cand struct {
		id   string
		rank int
	}
	var cands []cand
	for _, e := range snap.Entries {
		t := e.Task
		if !nextEligible(t, owner, now) {
			continue
		}
		if t.Status == task.Pending && (len(task.Unresolved(t.BlockedBy, status)) > 0 || len(parents[t.ID]) > 0) {
			continue
		}
		cands = append(cands, cand{t.ID, priorityRank(t.Priority)})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return strings.Compare(a.id, b.id)
	})
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	return ids
}

// claimable applies task-claim's rules to t as it is on disk now; its
// blockers are read from their files. A claim of someone else counts as
// expired only skew after its expiry.
func (tx *txn) claimable(t *task.Task, owner string, now time.Time, skew time.Duration) error {
	switch t.Status {
	case task.Completed, task.Deleted:
		return errcode.New(errcode.TaskNotClaimable, "%s is %s: only pending tasks (and in_progress ones whose claim expired) can be claimed", t.ID, t.Status)
	case task.InProgress:
		c := claim.Of(t)
		holder := claim.Holder(t, c)
		if holder == owner {
			return nil // a renewal
		}
		if c != nil && c.Expired(now.Add(-skew)) {
			return nil // a takeover
		}
		if exp, ok := c.Expiry(); ok {
			if skew > 0 {
				return errcode.New(errcode.ClaimConflict, "%s is claimed by %s until %s (taken over only %s after that, the clock difference tolerated between machines; in %s)", t.ID, holder, claim.Stamp(exp), skew, exp.Add(skew).Sub(now).Round(time.Second))
			}
			return errcode.New(errcode.ClaimConflict, "%s is claimed by %s until %s (in %s)", t.ID, holder, claim.Stamp(exp), exp.Sub(now).Round(time.Second))
		}
		return errcode.New(errcode.ClaimConflict, "%s is in progress, held by %s with no lease (it does not expire: the holder completes it or sets it back to pending)", t.ID, holder)
	}
	var open []string
	for _, id := range t.BlockedBy {
		b, err := tx.s.Get(id)
		switch {
		case err != nil:
			open = append(open, id+" (unreadable)")
		case b == nil:
			open = append(open, id+" (missing)")
		case b.Status == task.Deleted:
			open = append(open, id+" (deleted)")
		case b.Status != task.Completed:
			open = append(open, fmt.Sprintf("%s (%s)", id, b.Status))
		}
	}
	if len(open) > 0 {
		return errcode.New(errcode.TaskBlocked, "%s waits for %d unresolved blocker(s): %s", t.ID, len(open), strings.Join(open, ", "))
	}
	return nil
}

// takeClaim writes t as claimed by req at now. A renewal by the same
// owner and session that changes nothing but the lease keeps the file's
// mtime (not progress, not activity: docs/claims.md).
func (tx *txn) takeClaim(t *task.Task, mtime time.Time, req ClaimRequest, now time.Time) error {
	s := tx.s
	session := s.Session
	if session == project.NoSession {
		session = ""
	}
	old := claim.Of(t)
	if t.Status == task.InProgress && old != nil && old.Expired(now) && claim.Holder(t, old) != req.Owner {
		tx.recordEvent(history.LeaseExpired, t, tx.seen[t.ID]) // observed by this takeover
	}
	c := &claim.Claim{Owner: req.Owner, Session: session, ClaimedAt: claim.Stamp(now), Worktree: req.Worktree, Branch: req.Branch}
	renewal := t.Status == task.InProgress && old != nil && old.Owner == req.Owner && old.Session == session && !old.Expired(now)
	if renewal {
		c.ClaimedAt = old.ClaimedAt
		c.ExpiresAt = old.ExpiresAt // Extend keeps a later expiry
	}
	if req.Lease > 0 {
		c.Extend(now, req.Lease)
	} else {
		c.ExpiresAt = "" // a person's claim without lease: it never expires
	}
	c.Person = req.Person
	switch {
	case req.Paths != nil:
		c.Paths = req.Paths
	case renewal:
		c.Paths = old.Paths
	default:
		c.Paths = cleanDeclared(DeclaredPaths(t))
	}
	if len(c.Paths) == 0 {
		c.Paths = nil
	}
	if err := tx.leaseConflict(t.ID, c.Paths, now); err != nil {
		return err
	}
	leaseOnly := renewal && t.Owner == req.Owner && slices.Equal(old.Paths, c.Paths) &&
		old.Worktree == c.Worktree && old.Branch == c.Branch && old.Person == c.Person
	t.Status = task.InProgress
	t.Owner = req.Owner
	claim.Set(t, c)
	if t.ThreadID == "" {
		t.ThreadID = s.Session
	}
	if err := t.Validate(); err != nil {
		return err
	}
	if leaseOnly {
		return tx.writeKeep(t, mtime)
	}
	return tx.write(t)
}

// RenewClaims renews the leases of session's claims that are due
// (claim.RenewDue) and returns how many it renewed and when the next one
// is due (zero when the session holds no claim with a lease). A claim is
// the session's while its session field names it and the task is
// in_progress; an expired claim nobody took over is renewed too (its
// holder is alive after all). Renewals keep each file's mtime. The store
// is scanned without the lock; the lock is taken only when something is
// due, and each due task is re-read under it.
func (s *Store) RenewClaims(session string) (renewed int, next time.Time, err error) {
	if session == "" || session == project.NoSession {
		return 0, time.Time{}, nil
	}
	snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		return 0, time.Time{}, err
	}
	now := s.now()
	var due []string
	for _, e := range snap.Entries {
		t := e.Task
		c := claim.Of(t)
		if t.Status != task.InProgress || c == nil || c.Session != session || c.Lease() <= 0 {
			continue
		}
		if c.RenewDue(now) {
			due = append(due, t.ID)
			continue
		}
		if n := c.NextRenewal(); next.IsZero() || n.Before(next) {
			next = n
		}
	}
	if len(due) == 0 {
		return 0, next, nil
	}
	err = s.transact(func(tx *txn) error {
		for _, id := range due {
			t, mtime, err := tx.readRec(id)
			if err != nil || t == nil {
				continue
			}
			c := claim.Of(t)
			if t.Status != task.InProgress || c == nil || c.Session != session || c.Lease() <= 0 {
				continue // ended or taken over since the scan
			}
			now := s.now()
			if !c.RenewDue(now) {
				continue
			}
			c.Extend(now, c.Lease())
			claim.Set(t, c)
			if err := tx.writeKeep(t, mtime); err != nil {
				return err
			}
			renewed++
			if n := c.NextRenewal(); next.IsZero() || n.Before(next) {
				next = n
			}
		}
		return nil
	})
	return renewed, next, err
}

// updateClaim keeps metadata.claim in step with an update (docs/claims.md):
//
//   - any status but in_progress ends the claim (removes it); back to
//     pending it also clears the owner when that is the claim's owner and
//     the request does not set owner itself;
//   - an update that makes the task in_progress, changes the owner of an
//     in_progress task, comes from another session than the claim's, or
//     gives a lease records a claim: the owner, the session (none for
//     "no-session"), claimedAt, and the lease when one is given;
//   - a claim that continues (same owner and session) keeps its claimedAt
//     and its lease, and its expiry never moves backwards;
//   - other updates of an in_progress task leave the claim as it is.
func updateClaim(t *task.Task, prevStatus task.Status, prevOwner string, req *task.UpdateRequest, session string, now time.Time) {
	if t.Status != task.InProgress {
		// Back to pending, the claim's owner gives the task back to the
		// queue: unless the request sets the owner itself, the owner goes
		// too (next-ready claims skip pending tasks owned by others).
		if old := claim.Of(t); old != nil && t.Status == task.Pending && prevStatus == task.InProgress &&
			req.Owner == nil && old.Owner != "" && t.Owner == old.Owner {
			t.Owner = ""
		}
		claim.Clear(t)
		return
	}
	if session == project.NoSession {
		session = ""
	}
	old := claim.Of(t)
	statusGiven := req.Status != nil
	switch {
	case prevStatus != task.InProgress, req.LeaseDur > 0, t.Owner != prevOwner:
	case statusGiven && (old == nil || old.Session != session):
	default:
		return
	}
	c := &claim.Claim{Owner: t.Owner, Session: session, ClaimedAt: claim.Stamp(now)}
	continuing := prevStatus == task.InProgress && old != nil && old.Owner == c.Owner && old.Session == c.Session
	if continuing {
		c.ClaimedAt = old.ClaimedAt
		c.RenewedAt, c.LeaseMs, c.ExpiresAt = old.RenewedAt, old.LeaseMs, old.ExpiresAt
		c.Paths, c.Worktree, c.Branch = old.Paths, old.Worktree, old.Branch
	}
	if req.LeaseDur > 0 {
		c.Extend(now, req.LeaseDur)
	}
	claim.Set(t, c)
}
