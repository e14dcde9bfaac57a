package hashline

import (
	"strconv"
	"strings"
)

// Text is a file's content as lines.
//
// Lines hold no terminators: the text is split on "\n" and one "\r" before
// each "\n" is dropped. A final terminator ends the last line rather than
// starting an empty one, so "a\nb\n" and "a\nb" both have two lines and ""
// has none. Bytes writes the lines back with the text's own terminator.
type Text struct {
	Lines []string
	// CRLF is true when the first line ended in "\r\n": every line is then
	// written with "\r\n".
	CRLF bool
	// NoFinalNewline is true when the last line had no terminator; it is
	// kept that way (unless the last line is empty, which needs one).
	NoFinalNewline bool
}

// Split parses content into a Text.
func Split(content string) Text {
	var t Text
	if content == "" {
		return t
	}
	if i := strings.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		t.CRLF = true
	}
	lines := strings.Split(content, "\n")
	if last := len(lines) - 1; lines[last] == "" {
		lines = lines[:last]
	} else {
		t.NoFinalNewline = true
	}
	for i, l := range lines {
		if i < len(lines)-1 || !t.NoFinalNewline {
			lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	t.Lines = lines
	return t
}

// Bytes returns the text as file content.
func (t Text) Bytes() []byte {
	if len(t.Lines) == 0 {
		return nil
	}
	eol := "\n"
	if t.CRLF {
		eol = "\r\n"
	}
	n := 0
	for _, l := range t.Lines {
		n += len(l) + len(eol)
	}
	// An empty last line cannot go without a terminator: it would vanish.
	final := !t.NoFinalNewline || t.Lines[len(t.Lines)-1] == ""
	b := make([]byte, 0, n)
	for i, l := range t.Lines {
		b = append(b, l...)
		if i < len(t.Lines)-1 || final {
			b = append(b, eol...)
		}
	}
	return b
}

// Line is one line with its anchor, as plan read shows it.
type Line struct {
	// Number is the 1-based line number.
	Number int `json:"line"`
	// ID is the four-symbol ID.
	ID string `json:"id"`
	// Text is the line's content without its terminator.
	Text string `json:"text"`
}

// Anchor returns the line's "N#ID".
func (l Line) Anchor() string { return strconv.Itoa(l.Number) + "#" + l.ID }

// String returns the hashline form "N#ID|text".
func (l Line) String() string { return l.Anchor() + "|" + l.Text }

// At returns line number n (1-based) of t with its anchor; n must be in
// range.
func (t Text) At(n int) Line {
	return Line{Number: n, ID: ID(t.Lines[n-1], n), Text: t.Lines[n-1]}
}

// Range returns the lines from number first (1-based) on, at most limit of
// them (all when limit <= 0). Out-of-range parts are left out.
func (t Text) Range(first, limit int) []Line {
	if first < 1 {
		first = 1
	}
	last := len(t.Lines)
	if limit > 0 && limit < last-first+1 {
		last = first - 1 + limit
	}
	if first > last {
		return []Line{}
	}
	out := make([]Line, 0, last-first+1)
	for n := first; n <= last; n++ {
		out = append(out, t.At(n))
	}
	return out
}

// Format returns the hashline form of lines: one "N#ID|text\n" per line.
func Format(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	return b.String()
}
