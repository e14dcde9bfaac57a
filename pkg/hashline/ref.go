package hashline

import (
	"strconv"
	"strings"
)

// MaxLine is the largest line number a ref may name. Plans are capped far
// below it; the bound keeps parsing overflow-free.
const MaxLine = 1 << 30

// Ref is a parsed LINE#ID anchor: a 1-based line number and a four-symbol
// or legacy two-symbol ID.
type Ref struct {
	Line int
	ID   string
}

// String returns the anchor as "N#ID".
func (r Ref) String() string { return strconv.Itoa(r.Line) + "#" + r.ID }

// RefError explains why a string is not an anchor. ID holds a well-formed
// ID found in the input without a line number ("ABCD", "#ABCD"), so callers
// can say "did you mean N#ABCD".
type RefError struct {
	Input  string
	Reason string
	ID     string
}

// Error implements error.
func (e *RefError) Error() string {
	return strconv.Quote(e.Input) + " is not a LINE#ID anchor: " + e.Reason
}

// ParseRef parses an anchor such as "12#VRRM". It tolerates what agents
// add when they copy anchors from plan read or from a mismatch report:
// surrounding whitespace, backticks and quotes, a leading ">>>" (or any run
// of ">") and diff markers "+"/"-", spaces around "#", a lower-case ID, and
// a trailing "|content". The legacy two-symbol ID is accepted.
func ParseRef(s string) (Ref, error) {
	fail := func(reason, id string) (Ref, error) {
		return Ref{}, &RefError{Input: s, Reason: reason, ID: id}
	}
	head := s
	if i := strings.IndexByte(head, '|'); i >= 0 {
		head = head[:i]
	}
	head = strings.Trim(head, " \t\r\n`'\"")
	head = strings.TrimLeft(head, ">+- \t")
	if head == "" {
		return fail("empty (anchors look like 12#VRRM, as printed by plan read)", "")
	}
	num, id, found := strings.Cut(head, "#")
	num = strings.TrimSpace(num)
	id = strings.ToUpper(strings.TrimSpace(id))
	if !found {
		if up := strings.ToUpper(head); ValidID(up) {
			return fail("no line number", up)
		}
		if isDigits(head) {
			return fail("no ID after the line number (anchors look like "+head+"#VRRM)", "")
		}
		return fail("anchors look like 12#VRRM, as printed by plan read", "")
	}
	if num == "" {
		if ValidID(id) {
			return fail("no line number", id)
		}
		return fail("no line number", "")
	}
	if !isDigits(num) {
		return fail("the line number "+strconv.Quote(num)+" is not a number", "")
	}
	if !ValidID(id) {
		return fail("the ID "+strconv.Quote(id)+" is not "+strconv.Itoa(IDLen)+" symbols of "+Alphabet+" (or the legacy 2)", "")
	}
	n, err := strconv.Atoi(num)
	if err != nil || n > MaxLine {
		return fail("the line number is too large", id)
	}
	if n < 1 {
		return fail("lines are numbered from 1", id)
	}
	return Ref{Line: n, ID: id}, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
