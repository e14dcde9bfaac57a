package enforce

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
)

// States keeps one State file per key (a session id, or session id and
// agent id for a subagent) in Dir, normally
// <root>/.matrixx/state/continuation/<key>.json. Files are replaced
// atomically (pkg/durable), survive restarts, and are swept after
// KeepStates without use.
type States struct {
	Dir string
	// Base is the directory below which no link is followed when Dir is
	// created (normally <root>/.matrixx): a link planted at
	// .matrixx/state or .matrixx/state/continuation is refused, never
	// written through. Empty: Dir's parent.
	Base string
	Now  func() time.Time
	// Record, when set, records each write and removal in the integrity
	// ledger of the hooks' state (docs/integrity.md).
	Record *integrity.Recorder
}

// MaxStateBytes caps a state file: 64 KiB (they hold a few counters). A
// larger file, or one that is not a regular file, reads as the zero state
// and is never read whole.
const MaxStateBytes = 64 << 10

// KeepStates is how long an unused state file is kept: 7 days.
const KeepStates = 7 * 24 * time.Hour

// safeKey reports whether a key can be a file name as it is:
// ^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$.
func safeKey(key string) bool {
	if key == "" || len(key) > 100 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// file maps a key to its file: the key itself when it is a safe name,
// else a hash of it.
func (s States) file(key string) string {
	name := key
	if !safeKey(key) {
		h := sha256.Sum256([]byte(key))
		name = "h-" + hex.EncodeToString(h[:12])
	}
	return filepath.Join(s.Dir, name+".json")
}

// Key builds the state key of a stop: the session id, plus the agent id for
// a subagent.
func Key(session, agentID string) string {
	if agentID == "" {
		return session
	}
	return session + "." + agentID
}

// Load reads a key's state; a missing or unreadable file is the zero state
// (a corrupt file only costs a fresh count).
func (s States) Load(key string) (State, error) {
	var st State
	data, err := safefile.ReadFile(s.file(key), MaxStateBytes, false)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if errors.Is(err, safefile.ErrTooLarge) || errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrLink) {
		return st, nil // an odd file only costs a fresh count
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, nil
	}
	return st, nil
}

// Save writes a key's state atomically and sweeps old state files.
func (s States) Save(key string, st State) error {
	base := s.Base
	if base == "" {
		base = filepath.Dir(s.Dir)
	}
	if err := safefile.MkdirNoLinks(base, s.Dir); err != nil {
		return err
	}
	data, err := json.Marshal(st, jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	if err := s.Record.WriteFile(s.file(key), append(data, '\n'), durable.Options{}); err != nil {
		return err
	}
	s.sweep()
	return nil
}

// sweep removes state files unused for KeepStates.
func (s States) sweep() {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil && now().Sub(fi.ModTime()) > KeepStates {
			_ = s.Record.Remove(filepath.Join(s.Dir, e.Name()))
		}
	}
}
