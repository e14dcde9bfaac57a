package integrity

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func liveAt(spans []Span, t time.Time) bool {
	w := Window{None: true, Live: spans}
	return w.inside(t.UnixNano())
}

func TestSessionSpans(t *testing.T) {
	home := t.TempDir()
	s := SessionsOf(home, "/proj")
	t0 := time.Unix(1_800_000_000, 0)
	if known, err := s.Touch("a", t0, EventStart); err != nil || known {
		t.Fatalf("start: known %v, %v", known, err)
	}
	if known, _ := s.Touch("a", t0.Add(10*time.Minute), EventDuring); !known {
		t.Fatal("a session with a record counts as unknown")
	}
	sp := s.Spans(t0.Add(11 * time.Minute))
	switch {
	case liveAt(sp, t0.Add(-time.Second)):
		t.Error("live before its SessionStart")
	case !liveAt(sp, t0.Add(5*time.Minute)), !liveAt(sp, t0.Add(10*time.Minute+LiveBound-time.Second)):
		t.Error("not live between its events, or within the bound after the last one")
	case liveAt(sp, t0.Add(10*time.Minute+LiveBound+time.Second)):
		t.Error("live past the bound")
	}

	// an event after a gap longer than the bound opens a new span: the
	// gap was not live
	t1 := t0.Add(3 * time.Hour)
	_, _ = s.Touch("a", t1, EventDuring)
	sp = s.Spans(t1)
	if liveAt(sp, t0.Add(2*time.Hour)) || !liveAt(sp, t1) {
		t.Errorf("gap live or new span missing: %v", sp)
	}

	// SessionEnd ends the span at once
	_, _ = s.Touch("a", t1.Add(time.Minute), EventEnd)
	sp = s.Spans(t1.Add(2 * time.Minute))
	if liveAt(sp, t1.Add(time.Minute+time.Second)) || !liveAt(sp, t1.Add(30*time.Second)) {
		t.Errorf("SessionEnd did not end the span: %v", sp)
	}

	// an event of a session without a record (not SessionStart): live
	// since before any change
	if known, _ := s.Touch("b", t1.Add(5*time.Minute), EventDuring); known {
		t.Error("unknown session taken as known")
	}
	if !liveAt(s.Spans(t1.Add(5*time.Minute)), time.Unix(0, 1)) {
		t.Error("a session whose start was not seen is not live since the start of time")
	}

	// a damaged record is live at every time
	s2 := SessionsOf(home, "/other")
	_, _ = s2.Touch("c", t0, EventStart)
	ents, _ := os.ReadDir(s2.Dir)
	if err := os.WriteFile(filepath.Join(s2.Dir, ents[0].Name()), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sp := s2.Spans(t0); len(sp) != 1 || sp[0].From != math.MinInt64 || sp[0].To != math.MaxInt64 {
		t.Errorf("damaged record: %v", sp)
	}

	// records whose spans all ended more than a day ago are removed
	s.Spans(t1.Add(48 * time.Hour))
	if _, err := os.Stat(s.file("a")); !os.IsNotExist(err) {
		t.Errorf("old record kept: %v", err)
	}
}
