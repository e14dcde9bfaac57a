package tasksync

import (
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestClaimBeyondLease: a remote claim whose expiry lies further than the
// longest lease plus the skew (from now, or from its renewal) is refused;
// one within it, one renewed with a shorter lease that kept a later expiry
// (as claim.Claim.Extend does), and one without a lease are taken.
func TestClaimBeyondLease(t *testing.T) {
	now := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	rec := func(c *claim.Claim) *task.Task {
		tk := &task.Task{ID: "T-01a237d2-2d40-7a75-a693-694f3490c8a8", Subject: "s", Status: task.InProgress}
		if c != nil {
			claim.Set(tk, c)
		}
		return tk
	}
	leased := func(renewed time.Time, lease time.Duration, exp time.Time) *claim.Claim {
		return &claim.Claim{Owner: "o", ClaimedAt: claim.Stamp(renewed), RenewedAt: claim.Stamp(renewed), LeaseMs: lease.Milliseconds(), ExpiresAt: claim.Stamp(exp)}
	}
	for _, tc := range []struct {
		name    string
		c       *claim.Claim
		refused bool
	}{
		{"no claim", nil, false},
		{"no lease", &claim.Claim{Owner: "o", ClaimedAt: claim.Stamp(now), Person: true}, false},
		{"default lease", leased(now, 15*time.Minute, now.Add(15*time.Minute)), false},
		{"longest lease, clock a minute ahead", leased(now.Add(time.Minute), task.MaxLease, now.Add(time.Minute+task.MaxLease)), false},
		{"shorter renewal kept a later expiry", leased(now, 15*time.Minute, now.Add(task.MaxLease-time.Hour)), false},
		{"expiry in 2036", leased(now, 15*time.Minute, time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)), true},
		{"renewal and expiry both in the future", leased(now.Add(5*365*24*time.Hour), 15*time.Minute, now.Add(5*365*24*time.Hour+15*time.Minute)), true},
		{"expiry past renewedAt + longest lease", leased(now.Add(-48*time.Hour), 15*time.Minute, now.Add(task.MaxLease-time.Hour)), true},
	} {
		reason := claimBeyondLease(rec(tc.c), now)
		if (reason != "") != tc.refused {
			t.Errorf("%s: reason %q, want refused=%v", tc.name, reason, tc.refused)
		}
		if tc.refused && !strings.Contains(reason, "expiresAt") {
			t.Errorf("%s: reason %q does not name expiresAt", tc.name, reason)
		}
	}
}
