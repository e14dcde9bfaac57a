package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// DirName is the history's directory inside the task store.
const DirName = ".history"

// Ext ends a task's history file: <task id>.jsonl.
const Ext = ".jsonl"

// feedPrefix starts a feed segment's name; the 20 digits that follow are
// the feed offset of its first byte.
const feedPrefix = "feed-"

// SegmentBytes is the size from which the feed starts a new segment, and
// KeepSegments how many segments are kept: the feed remembers at least
// the last (KeepSegments-1)×SegmentBytes bytes, about 700,000 events
// (a line is about 76 bytes).
const (
	SegmentBytes = 4 << 20
	KeepSegments = 14
)

// Log is the history of one task store: Dir is <store>/.history. By and
// Command are stamped on the events this process records (By.Owner is
// set per event by the caller). Now returns the current time (time.Now
// when nil).
type Log struct {
	Dir     string
	By      Actor
	Command string
	Now     func() time.Time
}

// Open returns the log of the store directory storeDir.
func Open(storeDir string) *Log {
	return &Log{Dir: filepath.Join(storeDir, DirName)}
}

func (l *Log) now() time.Time {
	if l.Now != nil {
		return l.Now().UTC()
	}
	return time.Now().UTC()
}

// File returns the path of task id's history file.
func (l *Log) File(id string) string { return filepath.Join(l.Dir, id+Ext) }

// Record appends e to its task's history and to the feed. The caller
// holds the store's lock and has just replaced (or removed) the record:
// before is the record's bytes as it read them under the lock (nil: the
// task did not exist) and old the task they hold. Record first checks the
// task's last recorded hash against before: a task with no history gets
// an adopted event (its whole state, so replays start there), one whose
// file changed since its last event gets an external event (the changes
// from what the history describes to before), and only then e. Missing
// ID, At, By (but By.Owner) and Command are filled in.
//
// Nothing is synced to disk: the record write's own fsync is the
// durability that counts, and a history line lost in a crash shows as an
// external event at the task's next write (docs/history.md).
func (l *Log) Record(e *Event, before []byte, old *task.Task) error {
	fd, err := unix.Open(l.File(e.Task), unix.O_RDWR|unix.O_APPEND|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
	if err == unix.ENOENT {
		if err := os.MkdirAll(l.Dir, 0o755); err != nil {
			return err
		}
		fd, err = unix.Open(l.File(e.Task), unix.O_RDWR|unix.O_APPEND|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: l.File(e.Task), Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	last, torn, err := lastHash(fd, st.Size)
	if err != nil {
		return err
	}
	var buf []byte
	if torn {
		buf = append(buf, '\n') // end a line torn by a crash (readers skip it)
	}
	var events []*Event
	if before != nil && old != nil && (last == "" || last != Sum(before)) {
		pre := &Event{Task: e.Task, Kind: Adopted, Command: e.Command, By: e.By}
		if last != "" {
			pre.Kind = External
			prev := Replay(e.Task, l.read(e.Task))
			pre.Changes = Diff(prev, old)
		} else {
			pre.Changes = Diff(nil, old)
		}
		pre.Hash = Sum(before)
		pre.By.Owner = ""
		pre.Command = ""
		if pre.Kind == Adopted {
			pre.Command = e.Command
		}
		// A file whose bytes differ from the last event's but whose state
		// the history already describes (task-sync wrote a record merged
		// from two machines whose histories were merged too) has nothing
		// unexplained: no external event.
		if pre.Kind == Adopted || len(pre.Changes) > 0 {
			events = append(events, pre)
		}
	}
	events = append(events, e)
	var feed []byte
	for _, ev := range events {
		l.fill(ev)
		line, err := json.Marshal(ev, json.Deterministic(true))
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
		feed = fmt.Appendf(feed, "%s %s\n", ev.Task, ev.ID)
	}
	if err := durable.WriteAll(fd, buf); err != nil {
		return err
	}
	if err := l.appendFeed(feed); err != nil {
		return err
	}
	if st.Size/compactStep != (st.Size+int64(len(buf)))/compactStep {
		return l.compactIfDue(e.Task)
	}
	return nil
}

func (l *Log) fill(e *Event) {
	if e.ID == "" {
		if u, err := uuid.NewV7(); err == nil {
			e.ID = u.String()
		}
	}
	if e.At.IsZero() {
		e.At = l.now()
	}
	owner := e.By.Owner
	if e.By == (Actor{Owner: owner}) {
		e.By = l.By
		e.By.Owner = owner
	}
	if e.Command == "" && e.Kind != External {
		e.Command = l.Command
	}
}

// lastHash returns the hash of the last complete event of a task's
// history file (fd, size bytes) and whether the file ends in a torn line.
// It reads the file's tail, 4 KiB and then four times more each step,
// until the last line is whole.
func lastHash(fd int, size int64) (string, bool, error) {
	if size == 0 {
		return "", false, nil
	}
	var tail []byte
	chunk := int64(4 << 10)
	for {
		n := min(chunk, size)
		tail = make([]byte, n)
		if _, err := unix.Pread(fd, tail, size-n); err != nil {
			return "", false, err
		}
		torn := tail[len(tail)-1] != '\n'
		body := tail
		if !torn {
			body = tail[:len(tail)-1]
		} else if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
			body = body[:i]
		} else if n == size {
			return "", true, nil
		}
		i := bytes.LastIndexByte(body, '\n')
		if i >= 0 || n == size {
			var h struct {
				Hash string `json:"hash"`
			}
			if json.Unmarshal(body[i+1:], &h) != nil {
				return "", torn, nil // a damaged line: the next write re-adopts
			}
			return h.Hash, torn, nil
		}
		chunk *= 4
	}
}

// Events returns task id's events, oldest first (nil when it has no
// history). Lines that are not events (torn by a crash) are skipped.
func (l *Log) Events(id string) ([]Event, error) {
	data, err := os.ReadFile(l.File(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(data), nil
}

func (l *Log) read(id string) []Event {
	ev, _ := l.Events(id)
	return ev
}

// Parse decodes history lines; lines that are not events are skipped.
func Parse(data []byte) []Event {
	var out []Event
	for len(data) > 0 {
		line := data
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // the last line is not complete
		}
		line, data = data[:i], data[i+1:]
		var e Event
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || e.ID == "" || e.Kind == "" {
			continue
		}
		e.Cursor = ""
		out = append(out, e)
	}
	return out
}

// Tasks returns the ids of every task with a history file, sorted.
func (l *Log) Tasks() ([]string, error) {
	ents, err := os.ReadDir(l.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), Ext); ok && task.ValidID(id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// The feed: "feed" is the segment being appended to; its first line is
// its start, the feed offset of its first byte (20 digits and a newline).
// Full segments are renamed to feeds/<20 digits of their start>. A cursor
// is a feed offset: a segment's start plus a position in it.
const (
	feedName   = "feed"
	sealedDir  = "feeds"
	headerSize = 21
)

func header(start int64) []byte { return fmt.Appendf(nil, "%020d\n", start) }

func parseHeader(b []byte) (int64, bool) {
	if len(b) < headerSize || b[headerSize-1] != '\n' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b[:headerSize-1]), 10, 64)
	return n, err == nil && n >= 0
}

// sealed lists the full segments by start offset.
func (l *Log) sealed() ([]int64, error) {
	ents, err := os.ReadDir(filepath.Join(l.Dir, sealedDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, e := range ents {
		if s := e.Name(); len(s) == 20 {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func (l *Log) sealedPath(start int64) string {
	return filepath.Join(l.Dir, sealedDir, fmt.Sprintf("%020d", start))
}

// appendFeed appends lines to the feed's current segment (a torn last
// line is cut off first), after sealing it when it has reached
// SegmentBytes (and removing the oldest sealed segments past
// KeepSegments). It lists no directory unless it seals.
func (l *Log) appendFeed(lines []byte) error {
	path := filepath.Join(l.Dir, feedName)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer func() { unix.Close(fd) }()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	size := st.Size
	if size < headerSize {
		// A new feed (or one torn while its header was written).
		if err := unix.Ftruncate(fd, 0); err != nil {
			return err
		}
		return durable.WriteAll(fd, append(header(0), lines...))
	}
	if cut, err := completeLength(fd, size); err != nil {
		return err
	} else if cut != size {
		if err := unix.Ftruncate(fd, cut); err != nil {
			return err
		}
		size = cut
	}
	if size >= SegmentBytes {
		if fd, err = l.seal(fd, path, size); err != nil {
			return err
		}
	}
	return durable.WriteAll(fd, lines)
}

// seal renames the full current segment into feeds/ and returns a
// descriptor of its fresh successor.
func (l *Log) seal(fd int, path string, size int64) (int, error) {
	h := make([]byte, headerSize)
	if _, err := unix.Pread(fd, h, 0); err != nil {
		return fd, err
	}
	start, ok := parseHeader(h)
	if !ok {
		return fd, fmt.Errorf("%s: not a feed segment (its first line is not its start offset)", path)
	}
	if err := os.MkdirAll(filepath.Join(l.Dir, sealedDir), 0o755); err != nil {
		return fd, err
	}
	next := start + size
	tmp := path + durable.TempInfix + "next"
	if err := os.WriteFile(tmp, header(next), 0o644); err != nil {
		return fd, err
	}
	if err := os.Rename(path, l.sealedPath(start)); err != nil {
		return fd, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fd, err
	}
	nfd, err := unix.Open(path, unix.O_RDWR|unix.O_APPEND|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fd, &os.PathError{Op: "open", Path: path, Err: err}
	}
	unix.Close(fd)
	if segs, err := l.sealed(); err == nil {
		for len(segs) > KeepSegments-1 {
			_ = os.Remove(l.sealedPath(segs[0]))
			segs = segs[1:]
		}
	}
	return nfd, nil
}

// completeLength returns the length of the file's complete lines.
func completeLength(fd int, size int64) (int64, error) {
	n := min(size, 4096)
	tail := make([]byte, n)
	if _, err := unix.Pread(fd, tail, size-n); err != nil {
		return 0, err
	}
	if tail[n-1] == '\n' {
		return size, nil
	}
	if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
		return size - n + int64(i) + 1, nil
	}
	return size - n, nil // a feed line is never 4 KiB long: drop the tail
}

// Page is one answer of Since: the events after the cursor asked for, in
// feed order, each with its Cursor; Next is the cursor to ask with next
// time (the last event's, or the one asked with when there is nothing
// new). Gap says the cursor was older than the oldest event the feed
// still holds (compacted away): the events start at the oldest kept.
type Page struct {
	Events []Event `json:"events"`
	Next   string  `json:"next"`
	Gap    bool    `json:"gap,omitzero"`
}

// ErrCursor is returned for a cursor that is not one this feed gave.
var ErrCursor = errors.New("not a cursor of this store's history (a cursor is the decimal number an event's \"cursor\" or a page's \"next\" gave)")

// Since returns up to limit events (0: no limit) recorded after cursor (""
// or "0": from the beginning), in the order this store recorded them.
// Cursors are decimal feed offsets: larger is later, and the same event
// always has the same cursor (across restarts and compaction). Events
// whose task history no longer holds them (compacted, or the task's
// history removed) are left out. It takes no lock.
func (l *Log) Since(cursor string, limit int) (*Page, error) {
	var from int64
	if cursor != "" {
		n, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || n < 0 {
			return nil, ErrCursor
		}
		from = n
	}
	for range 3 {
		page, retry, err := l.since(from, limit)
		if !retry {
			return page, err
		}
	}
	return nil, errors.New("the feed kept being sealed while it was read; try again")
}

type segment struct {
	start int64
	data  []byte // from the segment's start (header included)
}

// since reads the segments that may hold events after from; retry says a
// seal moved a segment while it read.
func (l *Log) since(from int64, limit int) (*Page, bool, error) {
	page := &Page{Events: []Event{}, Next: strconv.FormatInt(from, 10)}
	cur, err := os.ReadFile(filepath.Join(l.Dir, feedName))
	if errors.Is(err, os.ErrNotExist) {
		if from != 0 {
			return nil, false, ErrCursor
		}
		return page, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	curStart, ok := parseHeader(cur)
	if !ok {
		return page, false, nil // being created
	}
	var segs []segment
	if from < curStart+headerSize {
		starts, err := l.sealed()
		if err != nil {
			return nil, false, err
		}
		for i, st := range starts {
			end := curStart
			if i+1 < len(starts) {
				end = starts[i+1]
			}
			if from >= end {
				continue
			}
			data, err := os.ReadFile(l.sealedPath(st))
			if err != nil {
				return nil, true, nil
			}
			if st+int64(len(data)) != end {
				return nil, true, nil
			}
			segs = append(segs, segment{st, data})
		}
		// Sealed segments are contiguous up to the current one.
		first := curStart
		if len(segs) > 0 {
			first = segs[0].start
		}
		if from < first {
			page.Gap = true // older segments were removed
			from = first
		}
	}
	segs = append(segs, segment{curStart, cur})
	cache := map[string]map[string]*Event{}
	for _, sg := range segs {
		off := from - sg.start
		switch {
		case off <= 0:
			off = headerSize // the previous segment was read to its end
		case off < headerSize:
			return nil, false, ErrCursor
		case off >= int64(len(sg.data)) && sg.start != curStart:
			continue // the cursor is past this sealed segment
		case off > int64(len(sg.data)) || sg.data[off-1] != '\n':
			return nil, false, ErrCursor
		}
		data := sg.data[off:]
		pos := sg.start + off
		for {
			j := bytes.IndexByte(data, '\n')
			if j < 0 {
				break
			}
			line := data[:j]
			data = data[j+1:]
			pos += int64(j) + 1
			page.Next = strconv.FormatInt(pos, 10)
			tid, eid, ok := strings.Cut(string(line), " ")
			if !ok {
				continue
			}
			byID, seen := cache[tid]
			if !seen {
				byID = map[string]*Event{}
				if task.ValidID(tid) {
					evs, _ := l.Events(tid)
					for k := range evs {
						byID[evs[k].ID] = &evs[k]
					}
				}
				cache[tid] = byID
			}
			if e := byID[eid]; e != nil {
				ev := *e
				ev.Cursor = page.Next
				page.Events = append(page.Events, ev)
				if limit > 0 && len(page.Events) == limit {
					return page, false, nil
				}
			}
		}
		from = pos
	}
	return page, false, nil
}
