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
// not be sorted; out[i] is the handle of ids[i]. O(n log n).
func ShortHandles(ids []string) []string {
	type rev struct {
		r  string
		at int
	}
	rs := make([]rev, len(ids))
	for i, id := range ids {
		d := []byte(Digits(id))
		slices.Reverse(d)
		rs[i] = rev{string(d), i}
	}
	slices.SortFunc(rs, func(a, b rev) int { return strings.Compare(a.r, b.r) })
	out := make([]string, len(ids))
	for i, x := range rs {
		need := MinHandle
		if i > 0 {
			need = max(need, common(x.r, rs[i-1].r)+1)
		}
		if i+1 < len(rs) {
			need = max(need, common(x.r, rs[i+1].r)+1)
		}
		if need > len(x.r) {
			out[x.at] = ids[x.at]
			continue
		}
		h := []byte(x.r[:need])
		slices.Reverse(h)
		out[x.at] = string(h)
	}
	return out
}

// common returns the length of the common prefix of a and b.
func common(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
