package store

import (
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
)

// TestClaimLockedSkew: ClaimLocked claims under a lock the caller holds
// (and leaves it held), and with Skew takes over another owner's expired
// claim only Skew after its expiry.
func TestClaimLockedSkew(t *testing.T) {
	s := newStore(t)
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return now }
	id := create(t, s, `{"subject":"x"}`).Tasks[0].ID
	if _, err := s.Claim(ClaimRequest{ID: id, Owner: "ana", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	l, err := lock.Acquire(s.Dir, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	now = now.Add(90 * time.Second) // 30 s past the expiry
	req := ClaimRequest{ID: id, Owner: "bob", Lease: time.Minute, Skew: time.Minute}
	if _, err := s.ClaimLocked(l, req); errcode.Of(err) != errcode.ClaimConflict {
		t.Fatalf("within the skew: %v, want claim_conflict", err)
	}
	now = now.Add(31 * time.Second)
	got, err := s.ClaimLocked(l, req)
	if err != nil || got.Owner != "bob" {
		t.Fatalf("past the skew: %+v, %v", got, err)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("the caller's lock: %v", err)
	}
	// Without an id, with the caller's lock too: nothing else is ready.
	if got, err := s.ClaimLocked(l, ClaimRequest{Owner: "carl", Lease: time.Minute, Skew: time.Minute}); err != nil || got != nil {
		t.Fatalf("next: %+v, %v", got, err)
	}
}
