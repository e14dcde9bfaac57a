package history

import (
	"bytes"
	"fmt"
	"os"

	"github.com/go-json-experiment/json"
)

// MaxFileBytes caps a task's history file that task-sync takes from
// another machine: 16 MiB (compaction keeps a file far below it unless
// its events carry huge values).
const MaxFileBytes = 16 << 20

// Encode is the file form of evs: one JSON object a line, deterministic
// (two machines encoding the same events write the same bytes).
func Encode(evs []Event) ([]byte, error) {
	var buf []byte
	for i := range evs {
		e := evs[i]
		e.Cursor = ""
		line, err := json.Marshal(&e, json.Deterministic(true))
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, line...), '\n')
	}
	return buf, nil
}

// MergeFiles is the union of two versions of task id's history file
// (task-sync): Merge of their events, compacted by the same rule as an
// append (more than CompactAbove events in a file past compactStep bytes
// keep the newest KeepEvents), encoded. The result depends only on the
// two event sets, not on which side is which, so both machines of a sync
// write the same file and the next sync finds nothing to merge.
func MergeFiles(id string, a, b []byte) ([]byte, error) {
	evs := Merge(Parse(a), Parse(b))
	out, err := Encode(evs)
	if err != nil {
		return nil, err
	}
	if len(evs) > CompactAbove && len(out) >= compactStep {
		return Encode(Compact(id, evs, KeepEvents))
	}
	return out, nil
}

// CheckFile says why data is not a history file of task id (a line that
// is not a complete event of that task), or "" when it is one.
func CheckFile(id string, data []byte) string {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return "the last line is not complete"
	}
	n := 0
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		n++
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Sprintf("line %d is not an event: %v", n, err)
		}
		if e.ID == "" || e.Kind == "" || e.Task != id {
			return fmt.Sprintf("line %d is not an event of %s", n, id)
		}
	}
	return ""
}

// Arrived appends to the feed the events of task id that after holds and
// before did not (task-sync wrote a merged history file): a reader of the
// feed sees the other machine's events, once, after the ones it read.
func (l *Log) Arrived(id string, before, after []byte) error {
	had := map[string]bool{}
	for _, e := range Parse(before) {
		had[e.ID] = true
	}
	var lines []byte
	for _, e := range Parse(after) {
		if !had[e.ID] {
			lines = append(lines, id+" "+e.ID+"\n"...)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return err
	}
	return l.appendFeed(lines)
}
