// Package hashline addresses the lines of a text by LINE#ID anchors and
// applies line edits that are checked against those anchors.
//
// A line is shown as "N#ID|content": N is its 1-based number and ID four
// symbols of the alphabet ZPMQVRWSNKTXJBYH derived from its content. An edit
// names the lines it touches by their anchors; when the text changed since
// the anchors were read, the ID no longer matches and the edit is refused
// before anything changes, with the fresh anchors of the changed lines.
//
// The ID of a line is XXH32(line, seed) mod 65536 written as four symbols,
// high nibble first, where the line has every "\r" removed and trailing
// whitespace trimmed, and seed is 0 when the line holds a Unicode letter or
// number and its 1-based line number otherwise (so blank and punctuation-only
// lines, which repeat a lot, still get distinct IDs). The legacy two-symbol
// form, the last two symbols, is accepted wherever an ID is read.
package hashline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Alphabet are the 16 symbols of an ID; symbol i stands for nibble value i.
const Alphabet = "ZPMQVRWSNKTXJBYH"

// IDLen is the length of an ID; LegacyIDLen that of the legacy form.
const (
	IDLen       = 4
	LegacyIDLen = 2
)

// ID returns the four-symbol ID of line, the text of line number n
// (1-based), as specified in the package comment.
func ID(line string, n int) string {
	norm := Normalize(line)
	var seed uint32
	if !hasAlnum(norm) {
		seed = uint32(n)
	}
	h := xxh32([]byte(norm), seed) & 0xFFFF
	return string([]byte{
		Alphabet[h>>12&0xF],
		Alphabet[h>>8&0xF],
		Alphabet[h>>4&0xF],
		Alphabet[h&0xF],
	})
}

// Normalize returns line as it is hashed: every "\r" removed, trailing
// whitespace trimmed as JavaScript's trimEnd does (Unicode White_Space
// except U+0085, plus U+FEFF).
func Normalize(line string) string {
	if strings.IndexByte(line, '\r') >= 0 {
		line = strings.ReplaceAll(line, "\r", "")
	}
	return strings.TrimRightFunc(line, isTrailingSpace)
}

func isTrailingSpace(r rune) bool {
	return unicode.IsSpace(r) && r != '\u0085' || r == '\uFEFF'
}

// hasAlnum reports whether s holds a Unicode letter or number
// (JavaScript's /[\p{L}\p{N}]/u). Invalid UTF-8 bytes are neither.
func hasAlnum(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r)) {
			return true
		}
		i += size
	}
	return false
}

// ValidID reports whether id is a four-symbol or legacy two-symbol ID.
func ValidID(id string) bool {
	if len(id) != IDLen && len(id) != LegacyIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if strings.IndexByte(Alphabet, id[i]) < 0 {
			return false
		}
	}
	return true
}

// Matches reports whether want, a four-symbol or legacy two-symbol ID,
// names a line whose four-symbol ID is have.
func Matches(want, have string) bool {
	if len(want) == LegacyIDLen && len(have) == IDLen {
		return have[IDLen-LegacyIDLen:] == want
	}
	return want == have
}
