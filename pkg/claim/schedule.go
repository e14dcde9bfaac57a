package claim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// IdleRecheck is how long the hook waits before looking for a session's
// claims again when it found none (task-claim and task-update --lease
// reset the schedule, so a new claim is seen at the next tool call).
const IdleRecheck = 5 * time.Minute

// Schedule is when the PostToolUse hook next looks at a session's claims:
// one small file per session, <root>/.matrixx/state/leases/<hash>.json
// holding {"session":"…","next":"<RFC 3339>"}. A missing or unreadable file
// means "now". It is what keeps renewals to at most one store write per
// 1/RenewDivisor of a lease instead of one per tool call.
type Schedule struct {
	// Dir is the schedule directory, <root>/.matrixx/state/leases.
	Dir string
}

// ScheduleDir returns the schedule directory of a project root.
func ScheduleDir(root string) string {
	return filepath.Join(root, ".matrixx", "state", "leases")
}

type scheduleFile struct {
	Session string `json:"session"`
	Next    string `json:"next"`
}

func (s Schedule) file(session string) string {
	h := sha256.Sum256([]byte(session))
	return filepath.Join(s.Dir, hex.EncodeToString(h[:12])+".json")
}

// Due reports whether the session's claims should be looked at now.
func (s Schedule) Due(session string, now time.Time) bool {
	data, err := os.ReadFile(s.file(session))
	if err != nil {
		return true
	}
	var f scheduleFile
	if json.Unmarshal(data, &f) != nil || f.Session != session {
		return true
	}
	next, err := time.Parse(time.RFC3339Nano, f.Next)
	return err != nil || !now.Before(next)
}

// Set records when the session's claims are next due.
func (s Schedule) Set(session string, next time.Time) error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return err
	}
	data, err := json.Marshal(scheduleFile{Session: session, Next: Stamp(next)})
	if err != nil {
		return err
	}
	// A lost schedule only costs one early look: no fsync.
	return durable.WriteFile(s.file(session), append(data, '\n'), durable.Options{NoSync: true})
}

// Reset makes the session due at its next tool call (after a new claim).
func (s Schedule) Reset(session string) error {
	err := os.Remove(s.file(session))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
