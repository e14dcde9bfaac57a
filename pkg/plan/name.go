// Package plan manages the markdown plans of the original's specification:
// one file <root>/.matrixx/plans/<name>.md per plan, read with hashline
// anchors, edited only through anchored edits (package hashline), written
// atomically and durably under the plans directory's lock, with progress
// counted over numbered checkbox items and a manifest that turns the open
// items into a task-create batch.
package plan

import (
	"strings"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// MaxNameLen is the longest plan name, in bytes.
const MaxNameLen = 100

// Ext is the file extension of a plan.
const Ext = ".md"

// CheckName validates a plan name: kebab-case words of a-z and 0-9 joined by
// single dashes ("auth", "release-2-0"), at most MaxNameLen bytes. It starts
// and ends with a letter or digit, so a name is never a flag, a hidden file
// or a path. Error: invalid_file_path, with a suggestion when one is obvious
// (a ".md" suffix, upper case, spaces or underscores).
func CheckName(name string) error {
	if ValidName(name) {
		return nil
	}
	why := "plan names are kebab-case: lower-case letters and digits in words joined by single dashes, e.g. auth-refactor"
	switch {
	case name == "":
		return errcode.New(errcode.InvalidFilePath, "empty plan name: %s", why)
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return errcode.New(errcode.InvalidFilePath, "%q is a path; %s (plans live in .matrixx/plans/)", name, why)
	case len(name) > MaxNameLen:
		return errcode.New(errcode.InvalidFilePath, "plan name is %d bytes, more than %d", len(name), MaxNameLen)
	}
	msg := errcode.New(errcode.InvalidFilePath, "%q is not a valid plan name: %s", name, why)
	if s := suggest(name); s != "" && s != name && ValidName(s) {
		msg.Message += "; did you mean " + s + "?"
	}
	return msg
}

// ValidName reports whether name matches ^[a-z0-9]+(-[a-z0-9]+)*$ and is
// at most MaxNameLen bytes.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && name[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// suggest guesses the kebab-case name a caller meant.
func suggest(name string) string {
	if !utf8.ValidString(name) {
		return ""
	}
	s := strings.TrimSuffix(strings.TrimSuffix(name, Ext), ".MD")
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '.':
			return '-'
		}
		return r
	}, s)
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return strings.Trim(s, "-")
}
