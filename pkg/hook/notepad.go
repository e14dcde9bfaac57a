package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/notepad"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// What `matrixx-hook notepad` keeps of its input to find the task tools'
// answers in, while it copies the input to its output as it reads it: the
// first FilterHead bytes and the last FilterTail bytes. Input of any size
// passes through unchanged; an answer that lies wholly beyond the first 8
// MiB and before the last 1 MiB of a longer input is not read.
const (
	FilterHead = 8 << 20
	FilterTail = 1 << 20
)

// postToolUse is task-notepad-writer on a
// PostToolUse event. It recognises task creation and completion in two
// shapes:
//
//   - Bash whose command runs task-create (task-update) (taskCalls: the
//     parsed command line, not a mention in a comment or a string): the
//     create answers (update answers) in tool_response.stdout, found by
//     notepad.ParseAnswers;
//   - an MCP tool mcp__<server>__task_create (task_update): the same
//     documents in tool_response, a string or an array of text blocks.
//
// Everything else, and PostToolUseFailure, writes nothing. For each task
// whose notepad it created or found, it answers additionalContext telling
// the agent where that notepad is (hookEventName PostToolUse); otherwise it
// says nothing. Failures are logged and ignored.
func (r *Runner) postToolUse(ev *Event, _ *scan) any {
	r.renewLeases(ev) // lease.go: the session's claims stay live while it works
	create, update := recognise(ev)
	porcelain := ev.Tool == "Bash" && strings.Contains(ev.Input.Command, binPorcelain)
	if !create && !update {
		if ev.Tool == "Bash" && (strings.Contains(ev.Input.Command, binCreate) || strings.Contains(ev.Input.Command, binUpdate)) {
			r.log.Printf(NameNotepad, "the command mentions task-create/task-update but does not run it (a comment, a string, an argument): nothing to do")
			return nil
		}
		r.log.Printf(NameNotepad, "not a task-create/task-update call: nothing to do")
		return nil
	}
	var a notepad.Answers
	for _, text := range append([]string{ev.Response.Stdout}, ev.Response.Text...) {
		got := notepad.ParseAnswers([]byte(text), create, update)
		if porcelain {
			p := notepad.ParsePorcelain([]byte(text), create, update)
			got.Created = append(got.Created, p.Created...)
			got.Updated = append(got.Updated, p.Updated...)
		}
		a.Created = append(a.Created, got.Created...)
		a.Updated = append(a.Updated, got.Updated...)
	}
	if len(a.Created) == 0 && len(a.Updated) == 0 {
		r.log.Printf(NameNotepad, "no task answer in the tool's output: nothing to do")
		return nil
	}
	notes := r.notepads(ev, a)
	if len(notes) == 0 {
		return nil
	}
	return contract.ContextAnswer{HookSpecificOutput: contract.ContextOutput{HookEventName: PostToolUse, AdditionalContext: notepadContext(notes)}}
}

// notepadContext tells the agent where the notepads of the tasks it just
// created are (paths relative to the project root).
func notepadContext(notes []string) string {
	var b strings.Builder
	if len(notes) == 1 {
		b.WriteString("matrixx notepad " + notes[0])
	} else {
		b.WriteString("matrixx notepads:")
		for i, n := range notes {
			if i == maxSummary {
				fmt.Fprintf(&b, "\n- … and %d more (under .matrixx/notepads)", len(notes)-maxSummary)
				break
			}
			b.WriteString("\n- " + n)
		}
	}
	b.WriteString("\nWrite what you learn while working on the task there (findings, decisions, dead ends) for whoever picks it up next; the file is yours to edit.")
	return b.String()
}

// recognise says whether the event is a task creation and/or an update.
func recognise(ev *Event) (create, update bool) {
	if ev.Tool == "Bash" {
		return taskCalls(ev.Input.Command)
	}
	if !strings.HasPrefix(ev.Tool, "mcp__") {
		return false, false
	}
	i := strings.LastIndex(ev.Tool, "__")
	switch name := ev.Tool[i+2:]; name {
	case "task_create", "task-create":
		return true, false
	case "task_update", "task-update":
		return false, true
	}
	return false, false
}

// notepads applies the answers: a scaffold per created task that is not
// deduplicated and can be read back from the store, a stamp per task
// answered with status completed. It returns "T-… (subject): path" for
// each created task's notepad (written now or already there).
func (r *Runner) notepads(ev *Event, a notepad.Answers) (notes []string) {
	p, err := r.project(ev)
	if err != nil {
		r.log.Printf(NameNotepad, "no notepads: %v", err)
		return nil
	}
	if p.cfg.HookDisabled(NameNotepad) {
		r.log.Printf(NameNotepad, "disabled in disabled_hooks: nothing written")
		return nil
	}
	w := &notepad.Writer{Root: p.root, Now: r.Now}
	w.Lock.NoKernel = p.store.Lock.NoKernel
	for _, c := range a.Created {
		if c.Deduplicated {
			r.log.Printf(NameNotepad, "%s: deduplicated create, no notepad written", c.ID)
			continue
		}
		t, err := p.store.Get(c.ID)
		if err != nil {
			r.log.Printf(NameNotepad, "%s: reading the task: %v; no notepad written", c.ID, err)
			continue
		}
		if t == nil {
			r.log.Printf(NameNotepad, "%s: task not in store yet, no notepad written", c.ID)
			continue
		}
		res, err := w.Create(t)
		r.logResult(c.ID, res, err)
		if err == nil && (res.Action == notepad.Wrote || res.Action == notepad.Exists) && res.Path != "" {
			notes = append(notes, fmt.Sprintf("for %s (%s): %s", t.ID, shorten(t.Subject, 80), filepath.ToSlash(res.Path)))
		}
	}
	for _, u := range a.Updated {
		if u.Task.Status != task.Completed {
			r.log.Printf(NameNotepad, "%s: status %q is not completed: nothing written", u.Task.ID, u.Task.Status)
			continue
		}
		if !u.HasMetadata {
			if t, err := p.store.Get(u.Task.ID); err == nil && t != nil {
				u.Task.Metadata = t.Metadata
			}
		}
		res, err := w.Complete(u.Task)
		r.logResult(u.Task.ID, res, err)
	}
	return notes
}

func (r *Runner) logResult(id string, res notepad.Result, err error) {
	switch {
	case err != nil:
		r.log.Printf(NameNotepad, "%s: failed (ignored): %v", id, err)
	case res.Action == notepad.Wrote:
		r.log.Printf(NameNotepad, "%s: resolved bucket: %s (reason: %s); wrote %s", id, res.Bucket, res.Reason, res.Path)
	case res.Action == notepad.NoNotepad:
		r.log.Printf(NameNotepad, "%s: completed, but it has no notepad: nothing written", id)
	default:
		r.log.Printf(NameNotepad, "%s: %s %s", id, res.Action, res.Path)
	}
}

// notepadFilter is `matrixx-hook notepad`. Its input is either a hook event
// (see isEvent: handled as PostToolUse, nothing on stdout) or the output of
// task-create/task-update in a pipeline (`task-create < in.json |
// matrixx-hook notepad`): then stdin is copied to stdout byte for byte as it
// is read, keeping only the first FilterHead and the last FilterTail bytes,
// and the notepads are written at the end. As a filter it waits for its
// input like any filter (no deadline). Memory stays bounded whatever the
// input's size.
func (r *Runner) notepadFilter(stdin io.Reader) {
	rec := &recorder{r: stdin, max: FilterHead}
	if isEvent(rec) {
		sc := newScan(io.MultiReader(bytes.NewReader(rec.buf), stdin), MaxString)
		ev, err := Decode(sc)
		r.log.at(ev)
		if err != nil {
			r.log.Printf(NameNotepad, "unreadable event: %v", err)
			return
		}
		host := r.Host
		if host == HostAuto {
			host = detect(ev)
		}
		normalise(ev, host)
		if ev.Name != PostToolUse {
			r.log.Printf(NameNotepad, "not a PostToolUse event: nothing to do")
			return
		}
		r.protect(handler{name: NameNotepad, run: r.postToolUse}, ev, sc)
		return
	}
	out := &passThrough{w: r.Stdout, log: r.log}
	out.write(rec.buf)
	kept := keeper{head: rec.buf, total: len(rec.buf)}
	if rec.err == nil || rec.err == errRecorderFull {
		buf := make([]byte, 64<<10)
		for {
			n, err := stdin.Read(buf)
			out.write(buf[:n])
			kept.add(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				r.log.Printf(NameNotepad, "reading stdin: %v", err)
				break
			}
		}
	} else if rec.err != io.EOF {
		r.log.Printf(NameNotepad, "reading stdin: %v", rec.err)
	}
	r.protect(handler{name: NameNotepad, run: func(*Event, *scan) any {
		var a notepad.Answers
		for _, part := range kept.parts() {
			got := notepad.ParseAnswers(part, true, true)
			p := notepad.ParsePorcelain(part, true, true)
			got.Created = append(got.Created, p.Created...)
			got.Updated = append(got.Updated, p.Updated...)
			a.Created = append(a.Created, got.Created...)
			a.Updated = append(a.Updated, got.Updated...)
		}
		if kept.total > FilterHead+FilterTail {
			r.log.Printf(NameNotepad, "input of %d bytes: answers looked for in its first %d and last %d bytes", kept.total, FilterHead, FilterTail)
		}
		if len(a.Created) == 0 && len(a.Updated) == 0 {
			r.log.Printf(NameNotepad, "no task answer on stdin: passed through")
			return nil
		}
		r.notepads(&Event{}, a)
		return nil
	}}, &Event{}, nil)
}

// errRecorderFull ends a recorder's input once it holds max bytes.
var errRecorderFull = errors.New("recorded enough")

// recorder reads from r and keeps every byte it hands out, up to max; past
// that it reports errRecorderFull. err is the last error seen.
type recorder struct {
	r   io.Reader
	max int
	buf []byte
	err error
}

func (c *recorder) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if room := c.max - len(c.buf); room <= 0 {
		c.err = errRecorderFull
		return 0, c.err
	} else if len(p) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.buf = appendDoubling(c.buf, p[:n], c.max)
	if err != nil {
		c.err = err
	}
	return n, err
}

// passThrough writes the filter's output; after a write error (the reader
// went away) it writes nothing more but the input is still read to the end.
type passThrough struct {
	w      io.Writer
	log    *Log
	failed bool
}

func (o *passThrough) write(b []byte) {
	if o.failed || len(b) == 0 {
		return
	}
	if _, err := o.w.Write(b); err != nil {
		o.failed = true
		o.log.Printf(NameNotepad, "writing stdout: %v", err)
	}
}

// keeper keeps the first FilterHead bytes of a stream (head) and the last
// FilterTail bytes after them (tail).
type keeper struct {
	head, tail []byte
	total      int
}

func (k *keeper) add(b []byte) {
	k.total += len(b)
	if room := FilterHead - len(k.head); room > 0 {
		n := min(room, len(b))
		k.head = appendDoubling(k.head, b[:n], FilterHead)
		b = b[n:]
	}
	if len(b) == 0 {
		return
	}
	if k.tail == nil {
		k.tail = make([]byte, 0, 2*FilterTail+len(b))
	}
	k.tail = append(k.tail, b...)
	if len(k.tail) > 2*FilterTail {
		k.tail = append(k.tail[:0], k.tail[len(k.tail)-FilterTail:]...)
	}
}

// appendDoubling appends b to buf, growing it by doubling (at most to
// limit bytes of capacity when that is enough), so that filling a buffer of
// n bytes allocates about 2n, not the 5n of append's growth for large
// slices.
func appendDoubling(buf, b []byte, limit int) []byte {
	if need := len(buf) + len(b); need > cap(buf) {
		c := max(2*cap(buf), need, 4096)
		if c > limit && need <= limit {
			c = limit
		}
		nb := make([]byte, len(buf), c)
		copy(nb, buf)
		buf = nb
	}
	return append(buf, b...)
}

// parts returns what to look for answers in: the whole input when it was
// kept whole, else the head and the tail from its first full line.
func (k *keeper) parts() [][]byte {
	if len(k.tail) > FilterTail {
		k.tail = k.tail[len(k.tail)-FilterTail:]
	}
	if k.total <= len(k.head)+len(k.tail) {
		return [][]byte{append(k.head, k.tail...)}
	}
	tail := k.tail
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	} else {
		tail = nil
	}
	return [][]byte{k.head, tail}
}

// isEvent reports whether the input starts with a JSON object that has a
// member only hook events have (hook_event_name, session_id,
// transcript_path, tool_name); task answers have none of them. It reads no
// further than the first such member, or the end of the first object.
func isEvent(in io.Reader) bool {
	dec := jsontext.NewDecoder(in, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		switch tok.String() {
		case "hook_event_name", "session_id", "transcript_path", "tool_name":
			return true
		}
		if err := dec.SkipValue(); err != nil {
			return false
		}
	}
	return false
}
