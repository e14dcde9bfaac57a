package hook

import (
	"bytes"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/notepad"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// maxFilterInput is how much of its input `matrixx-hook notepad` holds to
// find the task tools' answers in it: 64 MiB. Input past that still passes
// through unchanged, but no notepad is written for it.
const maxFilterInput = 64 << 20

// postToolUse is task-notepad-writer (spec §8.5, notepad spec, D14) on a
// PostToolUse event. It recognises task creation and completion in two
// shapes:
//
//   - Bash whose command mentions task-create (task-update): the create
//     envelopes (update answers) in tool_response.stdout;
//   - an MCP tool mcp__<server>__task_create (task_update): the same
//     documents in tool_response, a string or an array of text blocks.
//
// Everything else, and PostToolUseFailure, writes nothing. It never
// answers: failures are logged and ignored.
func (r *Runner) postToolUse(ev *Event, _ *scan) any {
	create, update := recognise(ev)
	if !create && !update {
		r.log.Printf(NameNotepad, "not a task-create/task-update call: nothing to do")
		return nil
	}
	var a notepad.Answers
	for _, text := range append([]string{ev.Response.Stdout}, ev.Response.Text...) {
		got := notepad.ParseAnswers([]byte(text), create, update)
		a.Created = append(a.Created, got.Created...)
		a.Updated = append(a.Updated, got.Updated...)
	}
	if len(a.Created) == 0 && len(a.Updated) == 0 {
		r.log.Printf(NameNotepad, "no task answer in the tool's output: nothing to do")
		return nil
	}
	r.notepads(ev, a)
	return nil
}

// recognise says whether the event is a task creation and/or an update.
func recognise(ev *Event) (create, update bool) {
	if ev.Tool == "Bash" {
		c := ev.Input.Command
		return strings.Contains(c, "task-create"), strings.Contains(c, "task-update")
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
// answered with status completed.
func (r *Runner) notepads(ev *Event, a notepad.Answers) {
	p, err := r.project(ev)
	if err != nil {
		r.log.Printf(NameNotepad, "no notepads: %v", err)
		return
	}
	if p.cfg.HookDisabled(NameNotepad) {
		r.log.Printf(NameNotepad, "disabled in disabled_hooks: nothing written")
		return
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
// (see isEvent: handled as PostToolUse, nothing on stdout) or the output of task-create/task-update in a pipeline
// (`task-create < in.json | matrixx-hook notepad`): then stdin is copied to
// stdout byte for byte first, and the notepads are written after. As a
// filter it waits for its input like any filter (no deadline).
func (r *Runner) notepadFilter(stdin io.Reader) {
	data, err := io.ReadAll(io.LimitReader(stdin, maxFilterInput+1))
	if err != nil {
		r.log.Printf(NameNotepad, "reading stdin: %v", err)
	}
	if isEvent(data) {
		sc := newScan(bytes.NewReader(data), MaxString)
		ev, err := Decode(sc)
		r.log.at(ev)
		if err != nil {
			r.log.Printf(NameNotepad, "unreadable event: %v", err)
			return
		}
		if ev.Name != PostToolUse {
			r.log.Printf(NameNotepad, "not a PostToolUse event: nothing to do")
			return
		}
		r.protect(handler{name: NameNotepad, run: r.postToolUse}, ev, sc)
		return
	}
	if _, err := r.Stdout.Write(data); err != nil {
		r.log.Printf(NameNotepad, "writing stdout: %v", err)
	}
	if len(data) > maxFilterInput {
		if _, err := io.Copy(r.Stdout, stdin); err != nil {
			r.log.Printf(NameNotepad, "writing stdout: %v", err)
		}
		r.log.Printf(NameNotepad, "input over %d bytes: passed through, no notepads", maxFilterInput)
		return
	}
	r.protect(handler{name: NameNotepad, run: func(*Event, *scan) any {
		a := notepad.ParseAnswers(data, true, true)
		if len(a.Created) == 0 && len(a.Updated) == 0 {
			r.log.Printf(NameNotepad, "no task answer on stdin: passed through")
			return nil
		}
		r.notepads(&Event{}, a)
		return nil
	}}, &Event{}, nil)
}

// isEvent reports whether data starts with a JSON object that has a member
// only hook events have (hook_event_name, session_id, transcript_path,
// tool_name); task answers have none of them.
func isEvent(data []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
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
