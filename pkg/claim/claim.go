// Package claim is the claim a task carries while someone works on it:
// metadata.claim of an in_progress task, written by task-claim and by
// task-update --status in_progress, renewed by the PostToolUse hook, ended
// by any other status (docs/claims.md).
//
// On disk, metadata.claim is one JSON object:
//
//	{"owner":"agent-3","session":"ses_…","claimedAt":"2026-12-01T21:40:00.000Z",
//	 "renewedAt":"2026-12-01T21:45:00.000Z","leaseMs":900000,"expiresAt":"2026-12-01T22:00:00.000Z"}
//
// owner is the task's owner at claim time (omitted when the task has
// none), session the session that claimed it (omitted for "no-session"),
// claimedAt when this holder took it; renewedAt, leaseMs and expiresAt are
// present only for a claim with a lease: it expires leaseMs after its last
// renewal; paths are its path leases (docs/leases.md), worktree and
// branch the git checkout task-claim ran in; person marks a claim a person
// made through the porcelain (matrixx claim), which has no lease unless one
// was asked for. Times are RFC 3339 in UTC with milliseconds, from the writing
// process's clock. A claim without a lease never expires.
package claim

import (
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Key is the metadata key holding the claim.
const Key = "claim"

// DefaultLease is a claim's lease when neither --lease nor
// tasks.claim_lease is given; any lease lies within [task.MinLease,
// task.MaxLease] (task.ParseLease).
const DefaultLease = 15 * time.Minute

// RenewDivisor: a lease is renewed once at least 1/RenewDivisor of it has
// passed since its last renewal (the hook renews at most that often).
const RenewDivisor = 3

// TimeLayout is the claim's time format: RFC 3339, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Claim is metadata.claim (see the package doc for the fields).
type Claim struct {
	Owner     string `json:"owner,omitempty"`
	Session   string `json:"session,omitempty"`
	ClaimedAt string `json:"claimedAt"`
	RenewedAt string `json:"renewedAt,omitempty"`
	LeaseMs   int64  `json:"leaseMs,omitzero"`
	ExpiresAt string `json:"expiresAt,omitempty"`
	// Paths are the claim's path leases: globs relative to the top of
	// the checkout (docs/leases.md).
	Paths []string `json:"paths,omitempty"`
	// Worktree and Branch are the checkout the claim was made in (its top
	// directory) and its branch, when task-claim ran inside a git
	// checkout.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Person marks a person's claim (matrixx claim): without a lease it
	// never expires, and task-doctor does not report it as unclaimed work.
	Person bool `json:"person,omitzero"`
}

// Stamp formats t as a claim time.
func Stamp(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Of returns the task's claim, or nil when it has none or metadata.claim is
// not a claim object (a foreign or hand-made value: treated as no claim;
// task-doctor reports it).
func Of(t *task.Task) *Claim {
	raw, ok := t.Metadata[Key]
	if !ok || raw.Kind() != '{' {
		return nil
	}
	var c Claim
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil
	}
	if c.ExpiresAt != "" {
		if _, err := time.Parse(time.RFC3339Nano, c.ExpiresAt); err != nil {
			return nil
		}
	}
	return &c
}

// Malformed reports a metadata.claim that Of cannot read.
func Malformed(t *task.Task) bool {
	_, ok := t.Metadata[Key]
	return ok && Of(t) == nil
}

// Set stores c as the task's metadata.claim.
func Set(t *task.Task, c *Claim) {
	data, err := json.Marshal(c, json.Deterministic(true))
	if err != nil {
		panic(fmt.Sprintf("encoding a claim: %v", err)) // plain strings and ints: cannot fail
	}
	if t.Metadata == nil {
		t.Metadata = task.Metadata{}
	}
	t.Metadata[Key] = jsontext.Value(data)
}

// Clear removes the task's claim; it reports whether there was one.
func Clear(t *task.Task) bool {
	if _, ok := t.Metadata[Key]; !ok {
		return false
	}
	delete(t.Metadata, Key)
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	return true
}

// Expiry returns when the claim expires; ok is false for a claim without a
// lease.
func (c *Claim) Expiry() (time.Time, bool) {
	if c == nil || c.ExpiresAt == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, c.ExpiresAt)
	return t, err == nil
}

// Expired reports a claim whose lease ended at or before now.
func (c *Claim) Expired(now time.Time) bool {
	exp, ok := c.Expiry()
	return ok && !now.Before(exp)
}

// Lease returns the claim's lease; 0 when it has none.
func (c *Claim) Lease() time.Duration {
	if c == nil {
		return 0
	}
	return time.Duration(c.LeaseMs) * time.Millisecond
}

// Renewed returns the time of the last renewal (claimedAt when there was
// none); zero when unreadable.
func (c *Claim) Renewed() time.Time {
	s := c.RenewedAt
	if s == "" {
		s = c.ClaimedAt
	}
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// Holder names who holds the task for messages: the claim's owner, else
// the task's owner, else the claiming session.
func Holder(t *task.Task, c *Claim) string {
	switch {
	case c != nil && c.Owner != "":
		return c.Owner
	case t.Owner != "":
		return t.Owner
	case c != nil && c.Session != "":
		return "session " + c.Session
	}
	return "an unnamed holder"
}

// Live returns the claim of an in_progress task that has not expired at
// now, or nil: the claim that holds the task (the Stop hook follows it).
func Live(t *task.Task, now time.Time) *Claim {
	if t.Status != task.InProgress {
		return nil
	}
	c := Of(t)
	if c == nil || c.Expired(now) {
		return nil
	}
	return c
}

// Extend renews c at now with lease d: renewedAt now, leaseMs d, expiresAt
// now+d, except that the expiry never moves backwards (a later expiry
// already on disk is kept).
func (c *Claim) Extend(now time.Time, d time.Duration) {
	exp := now.Add(d)
	if old, ok := c.Expiry(); ok && old.After(exp) {
		exp = old
	}
	c.RenewedAt = Stamp(now)
	c.LeaseMs = d.Milliseconds()
	c.ExpiresAt = Stamp(exp)
}

// RenewDue reports whether the hook should renew c at now: it has a lease
// and at least 1/RenewDivisor of it has passed since its last renewal.
func (c *Claim) RenewDue(now time.Time) bool {
	d := c.Lease()
	if d <= 0 {
		return false
	}
	return !now.Before(c.Renewed().Add(d / RenewDivisor))
}

// NextRenewal is when c becomes RenewDue; zero for a claim without lease.
func (c *Claim) NextRenewal() time.Time {
	d := c.Lease()
	if d <= 0 {
		return time.Time{}
	}
	return c.Renewed().Add(d / RenewDivisor)
}
