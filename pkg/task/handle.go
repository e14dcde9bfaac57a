package task

import (
	"slices"
	"strings"
)

// MinHandle is the shortest handle accepted and shown: 4 characters.
const MinHandle = 4

// A handle is a short name for a task: a suffix, at least MinHandle
// characters long, of the id's digits (the id without "T-" and without
// dashes, lower-cased). UUIDv7 ids share their time prefix and end in
// random digits, so a few digits of the tail name one task.
//
// IsHandle reports whether s is written as a handle rather than an id: it
// does not start with "T-", and holds at least MinHandle ASCII letters or
// digits (dashes are allowed and ignored, so a pasted tail of a UUID
// works). A full id always works where a handle does.
func IsHandle(s string) bool {
	if strings.HasPrefix(s, "T-") || len(s) > MaxIDLen {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			n++
		case c == '-':
		default:
			return false
		}
	}
	return n >= MinHandle
}

// Digits returns the characters of id that handles are suffixes of: the id
// without its "T-" prefix and without dashes, lower-cased.
func Digits(id string) string {
	id = strings.TrimPrefix(id, "T-")
	var b strings.Builder
	b.Grow(len(id))
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c == '-':
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// MatchesHandle reports whether handle h (as written by a person) names id.
func MatchesHandle(id, h string) bool {
	return strings.HasSuffix(Digits(id), Digits(h))
}

// ShortHandles returns, for each id, the shortest suffix of its digits
// that is at least MinHandle long and is the suffix of no other id's
// digits. An id with too few digits for that (a short hand-written id, or
// one whose digits are a suffix of another's) gets its full id. ids need
// not be sorted; out[i] is the handle of ids[i]. O(n log n), comparing the
// ids from their ends in place (no copies: it runs for every listing).
func ShortHandles(ids []string) []string {
	order := make([]int32, len(ids))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return compareTails(ids[a], ids[b]) })
	out := make([]string, len(ids))
	for k, i := range order {
		need := MinHandle
		if k > 0 {
			need = max(need, commonTail(ids[i], ids[order[k-1]])+1)
		}
		if k+1 < len(order) {
			need = max(need, commonTail(ids[i], ids[order[k+1]])+1)
		}
		out[i] = tail(ids[i], need)
	}
	return out
}

// digitAt walks id's digits (Digits) from the end: it returns the digit
// before position *pos, moving *pos back past it, or 0 once none is left.
func digitAt(id string, pos *int) byte {
	start := 0
	if strings.HasPrefix(id, "T-") {
		start = 2
	}
	for *pos > start {
		*pos--
		c := id[*pos]
		switch {
		case c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			return c + 'a' - 'A'
		}
		return c
	}
	return 0
}

// compareTails orders ids by their reversed digits.
func compareTails(a, b string) int {
	i, j := len(a), len(b)
	for {
		x, y := digitAt(a, &i), digitAt(b, &j)
		switch {
		case x == 0 && y == 0:
			return 0
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
}

// commonTail is how many trailing digits a and b share.
func commonTail(a, b string) int {
	i, j, n := len(a), len(b), 0
	for {
		x, y := digitAt(a, &i), digitAt(b, &j)
		if x == 0 || x != y {
			return n
		}
		n++
	}
}

// tail is the last n digits of id, or id itself when it has fewer.
func tail(id string, n int) string {
	d := Digits(id)
	if n > len(d) {
		return id
	}
	return d[len(d)-n:]
}
