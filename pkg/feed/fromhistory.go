package feed

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// How the feed uses the task history (pkg/history, docs/history.md), when
// the store keeps one:
//
//   - every change the toolkit made is the history's event, with the
//     history's cursor (a decimal offset in the store's history feed,
//     stable across restarts), who made it and with which command; --since
//     replays the history after a cursor, then follows;
//   - a file change the watcher sees that no history event explains (the
//     record's hash is not among the task's recent events within
//     outsideAfter) was made outside the toolkit: it is reported at once,
//     marked outside, and the history's own "external" event for it (written
//     by the task's next toolkit write) is not reported twice;
//   - ready and blocked (derived from every task's state), a lease ending
//     by the clock, and unreadable files are not in the history: they carry
//     the history cursor at which they were seen and are not replayed.

// outsideAfter is how long a changed file may wait for its history event
// before it counts as changed outside the toolkit. A toolkit write appends
// its event under the lock right after the record's rename, so anything
// not explained within this is not the toolkit's.
const outsideAfter = time.Second

// hashesKept is how many recent record hashes per task are remembered to
// match file changes with history events.
const hashesKept = 16

// removedSum stands for a removed file in the hash lists.
const removedSum = "-"

// pendingChange is a watcher change waiting for its history event.
type pendingChange struct {
	c    Change
	seen time.Time
}

// historyState is the feed's view of the task history.
type historyState struct {
	log    *history.Log
	cursor string
	key    statKey
	// sums are the recent record hashes the history recorded, per task.
	sums map[string][]string
	// outside and expired are tasks this run reported as changed outside
	// the toolkit, and whose lease it saw end, so the history's later
	// external and lease_expired events for them are not reported again.
	outside map[string]bool
	expired map[string]bool
	pending []pendingChange
}

// feedFile is the history's current feed segment (docs/history.md).
func feedFile(l *history.Log) string { return filepath.Join(l.Dir, "feed") }

// endCursor is the cursor after the last complete event of the history
// feed: the segment's start (its 20-digit header) plus the length up to
// its last newline. "0" when there is no feed yet.
func endCursor(l *history.Log) (string, error) {
	f, err := os.Open(feedFile(l))
	if os.IsNotExist(err) {
		return "0", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 21)
	if _, err := io.ReadFull(f, head); err != nil || head[20] != '\n' {
		return "0", nil // being created
	}
	start, err := strconv.ParseInt(string(head[:20]), 10, 64)
	if err != nil {
		return "0", nil
	}
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := st.Size()
	tail := min(size, 64<<10)
	buf := make([]byte, tail)
	if _, err := f.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return "", err
	}
	i := bytes.LastIndexByte(buf, '\n')
	return strconv.FormatInt(start+size-tail+int64(i)+1, 10), nil
}

// moved reports whether the history feed file changed since the last
// look (one stat).
func (h *historyState) moved() bool {
	var st unix.Stat_t
	if unix.Stat(feedFile(h.log), &st) != nil {
		return false
	}
	key := statKey{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
	if key == h.key {
		return false
	}
	h.key = key
	return true
}

// read returns the history's events after the cursor and moves it.
func (h *historyState) read() ([]history.Event, error) {
	var out []history.Event
	for {
		page, err := h.log.Since(h.cursor, 1000)
		if err != nil {
			return out, err
		}
		h.cursor = page.Next
		out = append(out, page.Events...)
		if len(page.Events) < 1000 {
			return out, nil
		}
	}
}

// remember notes a history event's record hash for its task.
func (h *historyState) remember(e *history.Event) {
	sum := e.Hash
	if e.Kind == history.Removed {
		sum = removedSum
	}
	if sum == "" {
		return
	}
	s := append(h.sums[e.Task], sum)
	if len(s) > hashesKept {
		s = s[len(s)-hashesKept:]
	}
	h.sums[e.Task] = s
}

// explained reports whether a history event recorded the change.
func (h *historyState) explained(c Change) bool {
	id, sum := "", c.Sum
	switch {
	case c.New != nil:
		id = c.New.ID
	case c.Old != nil:
		id = c.Old.ID
		if c.Problem == "" {
			sum = removedSum
		}
	}
	return sum != "" && slices.Contains(h.sums[id], sum)
}

// historyEvent turns a history event into the feed's (ok false for those
// the feed leaves out: lease renewals, adoptions, compactions). current
// gives the task as it is now (subject, owner) when the event does not
// say.
func historyEvent(e *history.Event, current *task.Task) (Event, bool) {
	ev := Event{ID: e.Task, Cursor: e.Cursor, Command: e.Command, Event: e.ID, At: e.At.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	if e.By != (history.Actor{}) {
		by := e.By
		ev.By = &by
	}
	if current != nil {
		ev.Subject, ev.Status, ev.Owner = current.Subject, current.Status, current.Owner
	}
	var was, now task.Status
	newOwner := false
	for _, c := range e.Changes {
		if !slices.Contains(ev.Fields, c.Field) {
			ev.Fields = append(ev.Fields, c.Field)
		}
		switch c.Field {
		case "status":
			_ = json.Unmarshal(c.Old, &was)
			_ = json.Unmarshal(c.New, &now)
			ev.Status, ev.Was = now, was
		case "owner":
			newOwner = true
			ev.Owner = ""
			_ = json.Unmarshal(c.New, &ev.Owner)
		case "subject":
			_ = json.Unmarshal(c.New, &ev.Subject)
		}
	}
	if was == "" && now == "" {
		was, now = ev.Status, ev.Status
	}
	switch e.Kind {
	case history.Created:
		ev.Kind = Created
	case history.Claimed:
		ev.Kind = Claimed
	case history.Completed:
		ev.Kind = Completed
	case history.Deleted:
		ev.Kind = Deleted
	case history.Reopened:
		ev.Kind = Reopened
	case history.Released:
		ev.Kind = Released
	case history.LeaseExpired:
		ev.Kind = LeaseExpired
	case history.Removed:
		ev.Kind, ev.Removed = Deleted, true
	case history.Updated, history.Synced, history.Undone, history.External:
		ev.Kind = statusKind(was, now, newOwner && now == task.InProgress)
		ev.Synced = e.Kind == history.Synced
		ev.Outside = e.Kind == history.External
		if ev.Kind == "" {
			ev.Kind = Updated
			if ev.Outside {
				ev.Kind = Outside
			}
		}
	default:
		return ev, false
	}
	return ev, true
}
