package integrity

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Calls are the tool-call markers: PreToolUse creates one file per allowed
// tool call under <Home>/calls/<project key>/, PostToolUse removes it. The
// marker's ctime (which no unprivileged process can set, and which is
// stamped by the same kernel clock as the store's files) is the start of
// the call's window; its content only names the call.
type Calls struct {
	Dir string
}

// CallsOf returns the markers of the project at root.
func CallsOf(home, root string) Calls {
	return Calls{Dir: filepath.Join(home, "calls", key("calls", root))}
}

// StaleCall is the age past which a marker is ignored and removed: a tool
// call of Claude Code lasts at most 10 minutes.
const StaleCall = 15 * time.Minute

func hash(s string, n int) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:n])
}

func (c Calls) file(session, id string) string {
	return filepath.Join(c.Dir, hash(session, 6)+"-"+hash(id, 8))
}

// Open records the start of tool call id of session (a fresh file, so its
// ctime is now).
func (c Calls) Open(session, id string) error {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return err
	}
	p := c.file(session, id)
	_ = os.Remove(p)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(id + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Start returns the ctime (ns) of call id's marker, or false when there is
// none.
func (c Calls) Start(session, id string) (int64, bool) {
	st, err := lstat(c.file(session, id))
	if err != nil || !st.regular() {
		return 0, false
	}
	return st.Ctime, true
}

// Close removes call id's marker.
func (c Calls) Close(session, id string) { _ = os.Remove(c.file(session, id)) }

// Earliest returns the earliest start among the open calls of session
// (every session when session is "") and how many there are; stale
// markers are removed and not counted.
func (c Calls) Earliest(session string, now time.Time) (int64, int) {
	ents, err := os.ReadDir(c.Dir)
	if err != nil {
		return 0, 0
	}
	prefix := ""
	if session != "" {
		prefix = hash(session, 6) + "-"
	}
	var first int64
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(c.Dir, e.Name())
		st, err := lstat(p)
		if err != nil {
			continue
		}
		if now.Sub(time.Unix(0, st.Ctime)) > StaleCall {
			_ = os.Remove(p)
			continue
		}
		if n == 0 || st.Ctime < first {
			first = st.Ctime
		}
		n++
	}
	return first, n
}
