package hashline

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Result is the outcome of Apply.
type Result struct {
	// Text is the edited text (the input is not modified).
	Text Text
	// Changed are the 1-based numbers, in Text, of the lines the edits
	// wrote (inserted or replacing lines), in ascending order.
	Changed []int
}

// span is one validated edit in the coordinates of the original text:
// it replaces lines [start, stop) (0-based, stop exclusive) with lines; an
// insertion has start == stop and anchor the 1-based line it is anchored
// to (0 at the start or end of the text).
type span struct {
	start, stop int
	anchor      int
	insert      bool
	lines       []string
	index       int
}

// Apply applies edits to t all-or-nothing. Every anchor is
// checked against t before anything changes, and all edits refer to t as
// it is (line numbers do not shift between edits of one batch).
//
// Rules: replace needs pos and lines (an array, a string, or null/[] to
// delete); end, when given, makes the range pos..end and must not come
// before pos. append and prepend insert after/before pos, or at the end/start
// of the text without pos, and need at least one line; they take no end.
// Two edits overlap when their replaced ranges share a line or when one is
// anchored to a line the other replaces; insertions at the same place are
// kept in input order.
//
// Errors: invalid_edit (an unknown op, a missing or malformed anchor, end
// on an insertion or before pos, no lines to insert, overlapping edits),
// naming the edit as edits[i]; anchor_mismatch as a *MismatchError listing
// every anchor that does not match t, with fresh anchors and context.
func Apply(t Text, edits []Edit) (*Result, error) {
	ids := newIDs(t)
	spans := make([]span, 0, len(edits))
	var mismatches []Mismatch
	seen := map[string]bool{}
	for i, e := range edits {
		field := fmt.Sprintf("edits[%d]", i)
		s := span{index: i, lines: e.Lines}
		switch e.Op {
		case Replace:
			if e.Pos == "" {
				return nil, errcode.Field(errcode.InvalidEdit, field+".pos", "replace needs pos, the anchor of the first line to replace (and end for a range)")
			}
			if !e.HasLines {
				return nil, errcode.Field(errcode.InvalidEdit, field+".lines", "replace needs lines: the new lines, or [] (or null) to delete the range")
			}
		case Append, Prepend:
			s.insert = true
			if e.End != "" {
				return nil, errcode.Field(errcode.InvalidEdit, field+".end", "%s takes no end; only replace covers a range", e.Op)
			}
			if len(e.Lines) == 0 {
				return nil, errcode.Field(errcode.InvalidEdit, field+".lines", "%s needs at least one line to insert", e.Op)
			}
		case "":
			return nil, errcode.Field(errcode.InvalidEdit, field+".op", "required: replace, append or prepend")
		default:
			return nil, errcode.Field(errcode.InvalidEdit, field+".op", "%q is not replace, append or prepend", e.Op)
		}
		var pos, end Ref
		var err error
		if e.Pos != "" {
			if pos, err = ids.parse(e.Pos, field+".pos"); err != nil {
				return nil, err
			}
			mismatches = ids.check(pos, field+".pos", mismatches, seen)
		}
		if e.End != "" {
			if end, err = ids.parse(e.End, field+".end"); err != nil {
				return nil, err
			}
			mismatches = ids.check(end, field+".end", mismatches, seen)
		}
		switch {
		case e.Op == Replace:
			s.start, s.stop = pos.Line-1, pos.Line
			if e.End != "" {
				s.stop = end.Line
			}
		case e.Op == Append && e.Pos != "":
			s.start, s.anchor = pos.Line, pos.Line
		case e.Op == Append:
			s.start = len(t.Lines)
		case e.Op == Prepend && e.Pos != "":
			s.start, s.anchor = pos.Line-1, pos.Line
		}
		if s.insert {
			s.stop = s.start
		}
		spans = append(spans, s)
	}
	if len(mismatches) > 0 {
		return nil, newMismatchError(t, mismatches)
	}
	for _, s := range spans {
		if !s.insert && s.stop <= s.start {
			return nil, errcode.Field(errcode.InvalidEdit, fmt.Sprintf("edits[%d].end", s.index),
				"%s comes before pos %s; a range runs from pos down to end", edits[s.index].End, edits[s.index].Pos)
		}
	}
	if err := checkOverlap(spans); err != nil {
		return nil, err
	}
	return apply(t, spans), nil
}

// checkOverlap refuses replaced ranges that share a line and insertions
// anchored to a replaced line.
func checkOverlap(spans []span) error {
	var repl []span
	for _, s := range spans {
		if !s.insert {
			repl = append(repl, s)
		}
	}
	sort.SliceStable(repl, func(i, j int) bool { return repl[i].start < repl[j].start })
	for i := 1; i < len(repl); i++ {
		a, b := repl[i-1], repl[i]
		if b.start < a.stop {
			lo, hi := a.index, b.index
			if lo > hi {
				lo, hi = hi, lo
			}
			return errcode.New(errcode.InvalidEdit, "edits[%d] and edits[%d] overlap: both replace line %d; merge them into one edit",
				lo, hi, b.start+1)
		}
	}
	for _, s := range spans {
		if !s.insert || s.anchor == 0 {
			continue
		}
		// the replaced range with the largest start <= anchor-1
		k := sort.Search(len(repl), func(i int) bool { return repl[i].start > s.anchor-1 }) - 1
		if k >= 0 && s.anchor-1 < repl[k].stop {
			return errcode.New(errcode.InvalidEdit, "edits[%d] is anchored to line %d, which edits[%d] replaces; anchor it to a line outside the range or fold it into that edit",
				s.index, s.anchor, repl[k].index)
		}
	}
	return nil
}

// apply builds the edited text from validated, non-overlapping spans.
func apply(t Text, spans []span) *Result {
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.insert != b.insert {
			return a.insert // insertions at a place come before a range starting there
		}
		return a.index < b.index
	})
	n := len(t.Lines)
	for _, s := range spans {
		n += len(s.lines) - (s.stop - s.start)
	}
	out := make([]string, 0, n)
	var changed []int
	cursor := 0
	for _, s := range spans {
		if s.start > cursor {
			out = append(out, t.Lines[cursor:s.start]...)
			cursor = s.start
		}
		for _, l := range s.lines {
			out = append(out, l)
			changed = append(changed, len(out))
		}
		if s.stop > cursor {
			cursor = s.stop
		}
	}
	out = append(out, t.Lines[cursor:]...)
	res := &Result{Text: Text{Lines: out, CRLF: t.CRLF, NoFinalNewline: t.NoFinalNewline}, Changed: changed}
	if len(out) == 0 {
		res.Text.NoFinalNewline = false
	}
	if changed == nil {
		res.Changed = []int{}
	}
	return res
}

// ids computes line IDs on demand and finds lines by ID.
type ids struct {
	t   Text
	ids []string
}

func newIDs(t Text) *ids { return &ids{t: t, ids: make([]string, len(t.Lines))} }

// of returns the ID of line n (1-based, in range).
func (x *ids) of(n int) string {
	if x.ids[n-1] == "" {
		x.ids[n-1] = ID(x.t.Lines[n-1], n)
	}
	return x.ids[n-1]
}

// parse parses a ref, turning a RefError into invalid_edit with a
// suggestion when the input held an ID without a line number.
func (x *ids) parse(s, field string) (Ref, error) {
	r, err := ParseRef(s)
	if err == nil {
		return r, nil
	}
	msg := err.Error()
	var re *RefError
	if errors.As(err, &re) && re.ID != "" {
		if m := x.suggest(Ref{ID: re.ID}); m != "" {
			msg += "; did you mean " + m + "?"
		}
	}
	return Ref{}, errcode.Field(errcode.InvalidEdit, field, "%s", msg)
}

// suggest returns "N#ID" of the line whose ID matches r.ID nearest to
// r.Line (any line when r.Line is 0), or "" when there is none. A legacy
// two-symbol ID is only suggested when exactly one line matches.
func (x *ids) suggest(r Ref) string {
	best, count := 0, 0
	for n := 1; n <= len(x.t.Lines); n++ {
		if n == r.Line || !Matches(r.ID, x.of(n)) {
			continue
		}
		count++
		if best == 0 || abs(n-r.Line) < abs(best-r.Line) {
			best = n
		}
	}
	if best == 0 || len(r.ID) == LegacyIDLen && count > 1 {
		return ""
	}
	return fmt.Sprintf("%d#%s", best, x.of(best))
}

// check appends a Mismatch for r when it does not name its line as it is
// now; a ref seen before is reported once.
func (x *ids) check(r Ref, field string, ms []Mismatch, seen map[string]bool) []Mismatch {
	if r.Line <= len(x.t.Lines) && Matches(r.ID, x.of(r.Line)) {
		return ms
	}
	key := r.String()
	if seen[key] {
		return ms
	}
	seen[key] = true
	m := Mismatch{Ref: key, Field: field, Line: r.Line, DidYouMean: x.suggest(r)}
	if r.Line <= len(x.t.Lines) {
		m.Current = x.t.At(r.Line).String()
	}
	return append(ms, m)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// contextLines is how many lines of context a mismatch shows on each side.
const contextLines = 2

// Mismatch is one anchor that does not match the current text.
type Mismatch struct {
	// Ref is the anchor as given, normalized to "N#ID".
	Ref string `json:"ref"`
	// Field names the edit member, e.g. "edits[0].pos".
	Field string `json:"field"`
	// Line is the anchor's line number.
	Line int `json:"line"`
	// Current is that line now, "N#ID|text"; absent when the text has
	// fewer lines.
	Current string `json:"current,omitempty"`
	// DidYouMean is "M#ID" of the nearest other line with the anchor's ID
	// (the line probably moved there), when there is one.
	DidYouMean string `json:"didYouMean,omitempty"`
	// Context are the lines Line-2..Line+2 that exist, as "N#ID|text" (the
	// last lines of the text when Line is past its end).
	Context []string `json:"context"`
}

// MismatchError is anchor_mismatch: anchors that do not match the current
// text. Nothing was changed. Its message shows every mismatched line with
// two lines of context and fresh anchors (">>> " marks the named lines), so
// the caller can retry without reading again.
type MismatchError struct {
	Mismatches []Mismatch
	// TotalLines is the current number of lines.
	TotalLines int
	err        *errcode.Error
}

// Error implements error.
func (e *MismatchError) Error() string { return e.err.Error() }

// Unwrap returns the anchor_mismatch *errcode.Error, so errcode.As and
// errcode.ExitStatus see the code.
func (e *MismatchError) Unwrap() error { return e.err }

func newMismatchError(t Text, ms []Mismatch) *MismatchError {
	n := len(t.Lines)
	marked := map[int]bool{}
	show := map[int]bool{}
	for i := range ms {
		m := &ms[i]
		lo, hi := m.Line-contextLines, m.Line+contextLines
		if m.Line > n {
			lo, hi = n-contextLines+1, n
		} else {
			marked[m.Line] = true
		}
		m.Context = []string{}
		for k := max(lo, 1); k <= min(hi, n); k++ {
			m.Context = append(m.Context, t.At(k).String())
			show[k] = true
		}
	}
	var b strings.Builder
	if len(ms) == 1 {
		b.WriteString("1 anchor does not match")
	} else {
		fmt.Fprintf(&b, "%d anchors do not match", len(ms))
	}
	b.WriteString(" the current text (it changed since it was read); nothing was changed:\n")
	for _, m := range ms {
		fmt.Fprintf(&b, "  %s %s: ", m.Field, m.Ref)
		if m.Current == "" {
			fmt.Fprintf(&b, "line %d is past the end (%d lines)", m.Line, n)
		} else {
			fmt.Fprintf(&b, "line %d is now %s", m.Line, m.Current[:strings.IndexByte(m.Current, '|')])
		}
		if m.DidYouMean != "" {
			fmt.Fprintf(&b, "; did you mean %s?", m.DidYouMean)
		}
		b.WriteByte('\n')
	}
	b.WriteString("Current lines with fresh anchors (>>> marks the lines named):\n")
	prev := 0
	for k := 1; k <= n; k++ {
		if !show[k] {
			continue
		}
		if prev != 0 && k > prev+1 {
			b.WriteString("    ...\n")
		}
		if marked[k] {
			b.WriteString(">>> ")
		} else {
			b.WriteString("    ")
		}
		b.WriteString(t.At(k).String())
		b.WriteByte('\n')
		prev = k
	}
	if n == 0 {
		b.WriteString("    (the text is empty)\n")
	}
	b.WriteString("Retry with the fresh anchors.")
	return &MismatchError{
		Mismatches: ms,
		TotalLines: n,
		err:        errcode.New(errcode.AnchorMismatch, "%s", b.String()),
	}
}
