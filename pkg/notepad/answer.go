package notepad

import (
	"bytes"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Answers are what the task tools answered, as the notepad writer reads
// them from a tool's output. Only two shapes count:
//
//   - a create answer: an object with exactly the members "tasks" and
//     "errors", both arrays; every "tasks" entry an object with a task "id"
//     and a string "subject" and at most a boolean "deduplicated" besides,
//     every "errors" entry an object. task-list's answer ("reminder",
//     entries with "status") is not one.
//   - an update answer: an object with exactly the member "task", whose
//     value is a valid task record (task.DecodeAnswer: strict, no unknown
//     members). task-get answers in the same shape.
//
// Everything else (error envelopes, other tools' JSON) is ignored.
type Answers struct {
	Created []Created
	Updated []Updated
}

// Created is one entry of a create answer.
type Created struct {
	ID           string `json:"id"`
	Subject      string `json:"subject"`
	Deduplicated bool   `json:"deduplicated"`
}

// Updated is the task of an update answer. HasMetadata is false when the
// answer carried no metadata (our binaries omit an empty one); the writer
// then reads the store for metadata.planName.
type Updated struct {
	Task        *task.Task
	HasMetadata bool
}

// scanBudget bounds the bytes ParseAnswers decodes in attempts that fail,
// as a multiple of the input: a pathological output (thousands of lines
// that each open an object that never closes) costs a few passes over the
// input, never a quadratic scan.
const scanBudget = 4

// ParseAnswers finds the task tools' answers in a tool's output and keeps
// the create answers (when create is set) and the update answers (when
// update is set). The output may hold other text around them: a line
// printed before (`echo 'Creating…' && task-create …`), a batch's error
// line merged in by 2>&1, colours added by `jq -C` (ANSI escape sequences
// are removed first), several answers in a row (`task-create …;
// task-update …`), compact or indented. A JSON value is tried where the
// output starts, at the start of every line that begins with "{" and right
// after another value; a value that is not one of the two shapes is
// skipped whole. Entries whose id is not a well-formed task id make their
// answer not count.
func ParseAnswers(data []byte, create, update bool) Answers {
	var out Answers
	data = StripANSI(data)
	budget := scanBudget*len(data) + 1<<20
	pos := skipSpace(data, 0)
	for pos < len(data) && budget > 0 {
		if data[pos] != '{' {
			pos = nextLine(data, pos)
			continue
		}
		r := &countReader{r: bytes.NewReader(data[pos:])}
		dec := jsontext.NewDecoder(r, jsontext.AllowInvalidUTF8(true))
		v, err := dec.ReadValue()
		if err != nil {
			budget -= r.n + 1
			pos = nextLine(data, pos)
			continue
		}
		collect(&out, v, create, update)
		// Right after a value, another may follow on the same line.
		pos = skipSpace(data, pos+int(dec.InputOffset()))
	}
	return out
}

// countReader counts the bytes read through it: the cost of an attempt
// (the decoder reads ahead of where it fails).
type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// collect adds v to out when it has one of the two answer shapes.
func collect(out *Answers, v jsontext.Value, create, update bool) {
	var doc map[string]jsontext.Value
	if json.Unmarshal(v, &doc) != nil {
		return
	}
	switch {
	case create && len(doc) == 2 && doc["tasks"] != nil && doc["errors"] != nil:
		if c, ok := createAnswer(doc["tasks"], doc["errors"]); ok {
			out.Created = append(out.Created, c...)
		}
	case update && len(doc) == 1 && doc["task"] != nil:
		if doc["task"].Kind() != '{' {
			return // {"task":null}: task-get found nothing
		}
		t, err := task.DecodeAnswer(doc["task"])
		if err != nil {
			return
		}
		out.Updated = append(out.Updated, Updated{Task: t, HasMetadata: len(t.Metadata) > 0})
	}
}

// createAnswer checks the members of a create answer and returns its
// entries.
func createAnswer(tasks, errs jsontext.Value) ([]Created, bool) {
	var entries []map[string]jsontext.Value
	var errors []map[string]jsontext.Value
	if tasks.Kind() != '[' || errs.Kind() != '[' || json.Unmarshal(tasks, &entries) != nil || json.Unmarshal(errs, &errors) != nil {
		return nil, false
	}
	out := make([]Created, 0, len(entries))
	for _, e := range entries {
		var c Created
		if e == nil || e["id"].Kind() != '"' || e["subject"].Kind() != '"' ||
			json.Unmarshal(e["id"], &c.ID) != nil || json.Unmarshal(e["subject"], &c.Subject) != nil || !task.ValidID(c.ID) {
			return nil, false
		}
		n := 2
		if d, ok := e["deduplicated"]; ok {
			if k := d.Kind(); (k != 't' && k != 'f') || json.Unmarshal(d, &c.Deduplicated) != nil {
				return nil, false
			}
			n++
		}
		if len(e) != n {
			return nil, false // another member: not task-create's entry
		}
		out = append(out, c)
	}
	for _, e := range errors {
		if e == nil {
			return nil, false
		}
	}
	return out, true
}

// skipSpace returns the offset of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// nextLine returns the offset of the start of the line after the one
// holding i (past its "\n", "\r" or "\r\n").
func nextLine(data []byte, i int) int {
	j := bytes.IndexAny(data[i:], "\r\n")
	if j < 0 {
		return len(data)
	}
	return i + j + 1
}

// StripANSI removes ANSI escape sequences (CSI such as colours
// "\x1b[1;39m", OSC such as hyperlinks, and two-byte escapes) from data. It
// returns data itself when there is no ESC byte.
func StripANSI(data []byte) []byte {
	if bytes.IndexByte(data, 0x1b) < 0 {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c != 0x1b {
			out = append(out, c)
			continue
		}
		if i+1 >= len(data) {
			break
		}
		switch data[i+1] {
		case '[': // CSI: parameter and intermediate bytes, then a final byte
			j := i + 2
			for j < len(data) && data[j] >= 0x20 && data[j] <= 0x3f {
				j++
			}
			if j < len(data) && data[j] >= 0x40 && data[j] <= 0x7e {
				i = j
			} else {
				i = j - 1
			}
		case ']': // OSC: up to BEL or ESC \
			j := i + 2
			for j < len(data) && data[j] != 0x07 && !(data[j] == 0x1b && j+1 < len(data) && data[j+1] == '\\') {
				j++
			}
			if j < len(data) && data[j] == 0x1b {
				j++
			}
			i = j
		default: // a two-byte escape
			i++
		}
	}
	return out
}

// ParsePorcelain finds the confirmations of the porcelain's writes in a
// tool's output (ANSI colours removed first): lines `added <handle>
// "<subject>" (<id>)` give Created entries and lines `done <handle>
// "<subject>" (<id>)` give Updated entries whose task has that id and
// status completed and no metadata (the writer reads the store for
// metadata.planName). Only well-formed task ids count; a deduplicated add
// prints "exists …" and is not a creation.
func ParsePorcelain(data []byte, create, update bool) Answers {
	var out Answers
	for _, line := range bytes.Split(StripANSI(data), []byte("\n")) {
		line = bytes.TrimRight(line, "\r ")
		verb, rest, ok := bytes.Cut(line, []byte(" "))
		if !ok || !bytes.HasSuffix(rest, []byte(")")) {
			continue
		}
		i := bytes.LastIndex(rest, []byte(" ("))
		if i < 0 {
			continue
		}
		id := string(rest[i+2 : len(rest)-1])
		if !task.ValidID(id) {
			continue
		}
		switch string(verb) {
		case "added":
			if create {
				out.Created = append(out.Created, Created{ID: id})
			}
		case "done":
			if update {
				out.Updated = append(out.Updated, Updated{Task: &task.Task{ID: id, Status: task.Completed}})
			}
		}
	}
	return out
}
