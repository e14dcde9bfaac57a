package notepad

import (
	"strings"
	"time"
)

// The exact literals of the notepad spec ("Scaffold structure"): a header
// block and four sections, and the three-line completion stamp appended
// after a blank line. The header's **Status** line is never rewritten; the
// stamp alone records completion.
const (
	// MarkerPrefix starts the scaffold-idempotency marker line,
	// "**Task ID**: <id>".
	MarkerPrefix = "**Task ID**: "
	// CompletionHeading is the stamp-idempotency marker line.
	CompletionHeading = "## Completion"

	defaultPriority = "medium"
	defaultStatus   = "pending"

	sections = `## Findings

(Record what you learn about this code as you work — patterns, conventions, gotchas, useful references.)

## Blockers

(Anything blocking progress. Be specific: file path, line, error, workaround if any.)

## Questions

(Open questions to revisit later. Don't lose them when context compacts.)

## Results

(Summary on completion. What changed, what was verified, what remains.)
`
)

// Timestamp formats t the way the spec's examples do (JavaScript's
// toISOString): UTC, milliseconds, "Z" — 2026-09-27T16:20:10.393Z.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// Scaffold returns the notepad of a new task, byte for byte as the spec
// shows it (Example A). priority defaults to medium and status to pending.
// Line breaks in the subject become spaces, so a subject can never forge a
// marker line.
func Scaffold(subject, id, priority, status string, started time.Time) []byte {
	if priority == "" {
		priority = defaultPriority
	}
	if status == "" {
		status = defaultStatus
	}
	var b strings.Builder
	b.WriteString("# Task: " + oneLine(subject) + "\n\n")
	b.WriteString(MarkerPrefix + id + "\n")
	b.WriteString("**Priority**: " + priority + "\n")
	b.WriteString("**Status**: " + status + "\n")
	b.WriteString("**Started**: " + Timestamp(started) + "\n\n")
	b.WriteString(sections)
	return []byte(b.String())
}

// Stamp returns the completion stamp, "## Completion\n- completed_at:
// <timestamp>\n- status: completed\n". It is appended after one blank line.
func Stamp(at time.Time) []byte {
	return []byte(CompletionHeading + "\n- completed_at: " + Timestamp(at) + "\n- status: completed\n")
}

// oneLine replaces line breaks (CR, LF, CRLF, and the Unicode line and
// paragraph separators) with single spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\u2028\u2029\u0085") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\n', '\u2028', '\u2029', '\u0085':
			return ' '
		}
		return r
	}, s)
}
