package task

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// MaxIDLen caps an id's length (bytes) so a file name stays far below NAME_MAX.
const MaxIDLen = 128

// ValidID reports whether s is a well-formed task id: TASK_ID_PATTERN of
// the original's specification, ^T-[A-Za-z0-9]+(-[A-Za-z0-9]+)*$, at most MaxIDLen bytes. It
// admits only ASCII letters, digits and single dashes, so an id can never
// carry a path separator, "..", NUL or a look-alike character. (Written by
// hand: it runs for every record of every listing.)
func ValidID(s string) bool {
	if len(s) < 3 || len(s) > MaxIDLen || s[0] != 'T' || s[1] != '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// CheckID returns an error with the given code (invalid_task_id for the id
// a tool acts on, validation_error for dependency and parent ids)
// naming field when s is not a well-formed task id.
func CheckID(code errcode.Code, field, s string) error {
	if ValidID(s) {
		return nil
	}
	shown := s
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	return errcode.Field(code, field,
		"%q is not a task id (want T- followed by dash-separated ASCII letters and digits, at most %d bytes)", shown, MaxIDLen)
}

// NewID returns a fresh id "T-<UUIDv7>". UUIDv7 ids still match the spec's
// pattern and sort by creation time.
func NewID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("generating task id: %w", err)
	}
	return "T-" + u.String(), nil
}

// FileName returns the record's file name, "<id>.json".
func FileName(id string) string { return id + ".json" }
