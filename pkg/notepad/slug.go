package notepad

import "strings"

// MaxSlug is the slug's length limit in characters (all ASCII, so bytes).
const MaxSlug = 60

// Slug turns a task subject into the <slug> of "<n>-<slug>.md" (notepad
// spec, "Filename convention"): lowercased, every run of characters other
// than ASCII a–z and 0–9 collapsed to one "-", leading and trailing hyphens
// trimmed, cut to 60 characters, a trailing hyphen trimmed again. A subject
// that slugifies to nothing (empty, punctuation only, or written without
// ASCII letters and digits) falls back to the task id.
//
// Lowercasing is full Unicode lowercasing, as JavaScript's toLowerCase:
// the rare letters whose lowercase is ASCII survive (U+212A KELVIN SIGN →
// k; U+0130 İ → i followed by a combining dot, which is a separator); every
// other non-ASCII character is a separator. The slug is ASCII, so the cut
// always falls on a character boundary.
func Slug(subject, id string) string {
	// Go's ToLower uses simple case mapping; U+0130 is the one letter whose
	// full lowercase mapping (SpecialCasing.txt) is longer.
	lower := strings.ToLower(strings.ReplaceAll(subject, "\u0130", "i\u0307"))
	var b strings.Builder
	b.Grow(len(lower))
	dash := false
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > MaxSlug {
		s = strings.TrimRight(s[:MaxSlug], "-")
	}
	if s == "" {
		return id
	}
	return s
}
