package claim

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

var t0 = time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)

func TestExtendNeverMovesBackwards(t *testing.T) {
	c := &Claim{Owner: "a", ClaimedAt: Stamp(t0)}
	c.Extend(t0, time.Hour)
	if c.ExpiresAt != Stamp(t0.Add(time.Hour)) || c.LeaseMs != 3600000 {
		t.Fatalf("first lease: %+v", c)
	}
	c.Extend(t0.Add(time.Minute), time.Minute) // shorter: the hour stays
	if c.ExpiresAt != Stamp(t0.Add(time.Hour)) {
		t.Fatalf("a shorter lease moved the expiry back: %+v", c)
	}
	c.Extend(t0.Add(-time.Hour), 30*time.Minute) // a clock behind: still no move back
	if c.ExpiresAt != Stamp(t0.Add(time.Hour)) {
		t.Fatalf("a slow clock moved the expiry back: %+v", c)
	}
	c.Extend(t0.Add(50*time.Minute), time.Hour)
	if c.ExpiresAt != Stamp(t0.Add(110*time.Minute)) {
		t.Fatalf("renewal: %+v", c)
	}
}

func TestExpiredAndRenewDue(t *testing.T) {
	c := &Claim{ClaimedAt: Stamp(t0)}
	if c.Expired(t0.Add(1000*time.Hour)) || c.RenewDue(t0.Add(time.Hour)) {
		t.Fatal("a claim without a lease expired or wants renewal")
	}
	c.Extend(t0, 90*time.Second)
	for _, tc := range []struct {
		at           time.Duration
		expired, due bool
	}{{0, false, false}, {29 * time.Second, false, false}, {30 * time.Second, false, true}, {90 * time.Second, true, true}} {
		if got := c.Expired(t0.Add(tc.at)); got != tc.expired {
			t.Errorf("Expired at +%v = %v", tc.at, got)
		}
		if got := c.RenewDue(t0.Add(tc.at)); got != tc.due {
			t.Errorf("RenewDue at +%v = %v", tc.at, got)
		}
	}
	if got := c.NextRenewal(); !got.Equal(t0.Add(30 * time.Second)) {
		t.Errorf("NextRenewal = %v", got)
	}
}

func TestOfSetClearMalformed(t *testing.T) {
	tk := &task.Task{ID: "T-a", Status: task.InProgress}
	if Of(tk) != nil || Malformed(tk) {
		t.Fatal("no metadata: no claim")
	}
	c := &Claim{Owner: "o", Session: "s", ClaimedAt: Stamp(t0)}
	c.Extend(t0, time.Minute)
	Set(tk, c)
	if got := Of(tk); got == nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip: %+v", got)
	}
	if Live(tk, t0.Add(30*time.Second)) == nil || Live(tk, t0.Add(time.Minute)) != nil {
		t.Fatal("Live at 30s / 60s")
	}
	tk.Status = task.Pending
	if Live(tk, t0) != nil {
		t.Fatal("a pending task holds no live claim")
	}
	for _, bad := range []string{`"x"`, `{"claimedAt":1}`, `{"expiresAt":"tomorrow","claimedAt":"x"}`, `[]`} {
		tk.Metadata = task.Metadata{Key: jsontext.Value(bad)}
		if Of(tk) != nil || !Malformed(tk) {
			t.Errorf("%s: want malformed", bad)
		}
	}
	if !Clear(tk) || tk.Metadata != nil || Clear(tk) {
		t.Fatal("Clear")
	}
}

func TestSchedule(t *testing.T) {
	s := Schedule{Dir: filepath.Join(t.TempDir(), "leases")}
	if !s.Due("ses", t0) {
		t.Fatal("no file: due")
	}
	if err := s.Set("ses", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if s.Due("ses", t0.Add(59*time.Second)) || !s.Due("ses", t0.Add(time.Minute)) {
		t.Fatal("Due around next")
	}
	if !s.Due("other", t0) {
		t.Fatal("another session has its own schedule")
	}
	if err := os.WriteFile(s.file("ses"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.Due("ses", t0) {
		t.Fatal("an unreadable schedule is due")
	}
	if err := s.Reset("ses"); err != nil || !s.Due("ses", t0) {
		t.Fatal("Reset")
	}
	if err := s.Reset("ses"); err != nil {
		t.Fatal("Reset of nothing")
	}
}
