package integrity

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// LiveBound is how long an agent session counts as live after its last
// hook event when no SessionEnd arrives (a host that sends none, a host
// that was killed): a session is live from its SessionStart until its
// SessionEnd, or until LiveBound after its last event.
const LiveBound = 30 * time.Minute

// touchEvery is how stale a live span's last event may get before an
// event of the session rewrites its record (a span then ends at most this
// much before LiveBound after the true last event).
const touchEvery = 10 * time.Second

// keepSpans is how long the record of an ended span is kept: a change is
// dated against the spans when the next check finds it.
const keepSpans = 24 * time.Hour

// maxSpans caps the spans kept in one session's record (older ones are
// dropped first).
const maxSpans = 16

// Sessions are the live-session records of one project: one file per agent
// session under <Home>/sessions/<project key>/, named by a hash of the
// session id, holding the session's live spans as JSON:
//
//	{"session":"…","spans":[{"from":<ns>,"last":<ns>,"end":true},…]}
//
// from is the span's first hook event (its SessionStart, or the first event
// after a gap longer than LiveBound), last its latest event, end set by
// SessionEnd. While a session is live, no change to the covered files that
// our binaries did not make is adopted: it is put back at the next check.
type Sessions struct {
	Dir string
}

// SessionsOf returns the session records of the project at root.
func SessionsOf(home, root string) Sessions {
	return Sessions{Dir: filepath.Join(home, "sessions", key("sessions", root))}
}

// Span is a time interval (ns since the epoch, both ends included) during
// which an agent session was live.
type Span struct {
	From, To int64
}

type spanRecord struct {
	From int64 `json:"from"`
	Last int64 `json:"last"`
	End  bool  `json:"end,omitzero"`
}

type sessionRecord struct {
	Session string       `json:"session"`
	Spans   []spanRecord `json:"spans"`
}

// Session events, as Touch records them.
const (
	EventStart  = iota // SessionStart: a span begins (or a live one goes on)
	EventDuring        // any other hook event of the session
	EventEnd           // SessionEnd: the span ends
)

func (s Sessions) file(session string) string {
	return filepath.Join(s.Dir, hash(session, 8))
}

func (s Sessions) load(session string) (*sessionRecord, error) {
	data, err := readCapped(s.file(session), 1<<20)
	if err != nil {
		return nil, err
	}
	rec, err := decodeSessionRecord(data)
	if err != nil || rec.Session != session {
		return nil, errSessionRecord
	}
	return &rec, nil
}

// Touch records a hook event of session at now and returns whether the
// session had a record before. Without one, an EventDuring opens a span
// that reaches back to the start of time (Spans): the session's earlier
// events went unrecorded (the record was removed), so nothing it may have
// left is adopted.
func (s Sessions) Touch(session string, now time.Time, event int) (known bool, err error) {
	if session == "" {
		return true, nil
	}
	t := now.UnixNano()
	rec, lerr := s.load(session)
	known = lerr == nil
	if !known {
		rec = &sessionRecord{Session: session}
		if event != EventStart {
			rec.Spans = append(rec.Spans, spanRecord{From: math.MinInt64, Last: t})
		}
	}
	n := len(rec.Spans)
	live := n > 0 && !rec.Spans[n-1].End && t-rec.Spans[n-1].Last <= int64(LiveBound)
	switch {
	case live && event == EventDuring && known && t-rec.Spans[n-1].Last < int64(touchEvery) && t >= rec.Spans[n-1].Last:
		// Extended less than touchEvery ago: the span's end moves by
		// at most that much, not worth a write on every tool call.
		return known, nil
	case live:
		rec.Spans[n-1].Last = max(rec.Spans[n-1].Last, t)
	case event == EventEnd && n > 0 && rec.Spans[n-1].End:
		// A second SessionEnd: nothing more to end.
	default:
		rec.Spans = append(rec.Spans, spanRecord{From: t, Last: t})
	}
	if event == EventEnd {
		rec.Spans[len(rec.Spans)-1].End = true
	}
	keep := rec.Spans[:0]
	for i, sp := range rec.Spans {
		if i < len(rec.Spans)-maxSpans || (i < len(rec.Spans)-1 && spanEnd(sp) < t-int64(keepSpans)) {
			continue
		}
		keep = append(keep, sp)
	}
	rec.Spans = keep
	data, err := json.Marshal(rec)
	if err != nil {
		return known, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return known, err
	}
	return known, durable.WriteFile(s.file(session), data, durable.Options{NoSync: true, Perm: 0o600})
}

func spanEnd(sp spanRecord) int64 {
	if sp.End {
		return sp.Last
	}
	if sp.Last > math.MaxInt64-int64(LiveBound) {
		return math.MaxInt64
	}
	return sp.Last + int64(LiveBound)
}

// Spans returns the live spans of every session of the project: from each
// span's first event to its SessionEnd, or to LiveBound after its last
// event. A record that cannot be read counts as live at every time (it was
// damaged, and nothing may be adopted on its word). Records whose spans
// all ended more than a day ago are removed.
func (s Sessions) Spans(now time.Time) []Span {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return []Span{{From: math.MinInt64, To: math.MaxInt64}}
		}
		return nil
	}
	t := now.UnixNano()
	var out []Span
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.Contains(name, durable.TempInfix) {
			continue
		}
		p := filepath.Join(s.Dir, name)
		data, err := readCapped(p, 1<<20)
		var rec sessionRecord
		if err == nil {
			rec, err = decodeSessionRecord(data)
		}
		if err != nil {
			out = append(out, Span{From: math.MinInt64, To: math.MaxInt64})
			continue
		}
		latest := int64(math.MinInt64)
		for _, sp := range rec.Spans {
			end := spanEnd(sp)
			latest = max(latest, end)
			out = append(out, Span{From: sp.From, To: end})
		}
		if len(rec.Spans) > 0 && latest < t-int64(keepSpans) {
			_ = os.Remove(p)
		}
	}
	return out
}
