package porcelain

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// ---- log ----

type logCmd struct {
	ID *string `arg:"" optional:"" placeholder:"ID" help:"Handle or id of a task (default: the whole store's latest changes)."`
	N  int     `short:"n" default:"20" placeholder:"N" help:"Without ID: how many of the latest changes (0: all)."`
}

func (c *logCmd) Help() string {
	return `Example: matrixx log 7f3a

What happened to a task: every change with its time, kind, who (owner, user@host, session) and
command, each field's old and new value, and the time the task spent in each status. Without an
id, the store's latest changes (-n, default 20), newest last. Event ids (the last 8 characters
shown) name a change for matrixx undo. --json prints task-get --history's document (with an id)
or the events (without). The history: docs/history.md.`
}

func (c *logCmd) run(r *runner) error {
	p, err := r.project()
	if err != nil {
		return err
	}
	v, err := load(p.Store, false)
	if err != nil {
		return err
	}
	if c.ID == nil { // an id given empty is refused by resolve
		if p.Store.History == nil {
			return nil
		}
		page, err := p.Store.History.Since("", 0)
		if err != nil {
			return errcode.Wrap(errcode.InternalError, err, "reading the history")
		}
		evs := page.Events
		if c.N > 0 && len(evs) > c.N {
			evs = evs[len(evs)-c.N:]
		}
		if r.g.JSON {
			return writeJSON(r.stdout, struct {
				Events []history.Event `json:"events"`
			}{evs})
		}
		if len(evs) == 0 {
			fmt.Fprintln(r.stdout, "no changes recorded yet")
			return nil
		}
		for _, e := range evs {
			subject := ""
			if t := v.get(e.Task); t != nil {
				subject = fmt.Sprintf(" %q", clean(trimTo(t.Subject, 40)))
			}
			r.eventLine(e, v.h(e.Task)+subject)
		}
		return nil
	}
	id, err := r.resolve(p, *c.ID)
	if err != nil {
		return err
	}
	h, err := p.Store.HistoryOf(id)
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "reading the history of %s", id)
	}
	if r.g.JSON {
		t, _ := p.Store.Get(id)
		return writeJSON(r.stdout, struct {
			Task *task.Task `json:"task"`
			*store.HistoryAnswer
		}{t, h})
	}
	title := id
	if t := v.get(id); t != nil {
		title = fmt.Sprintf("%s  %s", v.h(id), r.st.bold(clean(t.Subject)))
	}
	fmt.Fprintln(r.stdout, title)
	if len(h.Events) == 0 {
		fmt.Fprintln(r.stdout, "  no changes recorded (the history began after its last change)")
		return nil
	}
	for _, e := range h.Events {
		r.eventLine(e, "")
		for _, ch := range e.Changes {
			fmt.Fprintf(r.stdout, "      %s\n", changeText(e.Kind, ch))
		}
	}
	var parts []string
	for _, st := range []task.Status{task.Pending, task.InProgress, task.Completed, task.Deleted} {
		if ms, ok := h.TimeInStatus[string(st)]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", st, short(time.Duration(ms)*time.Millisecond)))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(r.stdout, "time in status: %s\n", strings.Join(parts, ", "))
	}
	return nil
}

// eventLine prints one event's line: when, kind, what (for the store's
// log), who, command, event id.
func (r *runner) eventLine(e history.Event, what string) {
	line := fmt.Sprintf("  %s  %-13s", e.At.Local().Format("2006-01-02 15:04:05"), e.Kind)
	if what != "" {
		line += " " + what
		var fields []string
		for _, c := range e.Changes {
			fields = append(fields, c.Field)
		}
		if len(fields) > 0 && e.Kind != history.Created && e.Kind != history.Adopted && e.Kind != history.Compacted {
			line += " (" + strings.Join(fields, ", ") + ")"
		}
	}
	if who := actorText(e.By); who != "" {
		line += "  by " + clean(who)
	}
	if e.Command != "" {
		line += "  " + r.st.dim("["+clean(e.Command)+"]")
	}
	line += "  " + r.st.dim(shortID(e.ID))
	fmt.Fprintln(r.stdout, line)
}

func actorText(a history.Actor) string {
	var parts []string
	if a.Owner != "" {
		parts = append(parts, a.Owner)
	}
	if a.User != "" || a.Host != "" {
		parts = append(parts, a.User+"@"+a.Host)
	}
	if a.Session != "" {
		parts = append(parts, "session "+trimTo(a.Session, 16))
	}
	return strings.Join(parts, " ")
}

// changeText is one field's change: field: old → new (long values cut).
func changeText(kind history.Kind, c history.Change) string {
	val := func(v []byte) string {
		if v == nil {
			return "∅"
		}
		return clean(trimTo(string(v), 60))
	}
	if kind == history.Created || kind == history.Adopted || kind == history.Compacted {
		return fmt.Sprintf("%s: %s", c.Field, val(c.New))
	}
	if c.Field == "blockedBy" || c.Field == "blocks" {
		var o, n []string
		list := func(v []byte, l *[]string) error {
			if v == nil {
				return nil
			}
			return json.Unmarshal(v, l)
		}
		if list(c.Old, &o) == nil && list(c.New, &n) == nil {
			var parts []string
			for _, x := range n {
				if !slices.Contains(o, x) {
					parts = append(parts, "+"+x)
				}
			}
			for _, x := range o {
				if !slices.Contains(n, x) {
					parts = append(parts, "-"+x)
				}
			}
			return fmt.Sprintf("%s: %s", c.Field, strings.Join(parts, " "))
		}
	}
	return fmt.Sprintf("%s: %s → %s", c.Field, val(c.Old), val(c.New))
}

func trimTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ---- undo ----

type undoCmd struct {
	Event *string `arg:"" optional:"" placeholder:"EVENT" help:"The change to revert: an event id or its last 8+ characters (matrixx log shows them). Default: your latest change."`
}

func (c *undoCmd) Help() string {
	return `Example: matrixx undo

Reverts your latest change (made as the same user on this host) or the change EVENT names: every
field it changed goes back to its old value (dependencies with both ends; undoing a create
deletes the task). A compare-and-swap: when the task changed since (by anyone), it refuses with
what changed and writes nothing. The undo is itself recorded (kind undone); a second undo reverts
your change before that. --json prints {"task":…,"undone":event}. docs/history.md.`
}

func (c *undoCmd) run(r *runner) error {
	// No event reverts your latest change; an event given empty is
	// refused, never read as "your latest change".
	req := store.UndoRequest{}
	if c.Event != nil {
		if *c.Event == "" {
			return errcode.New(errcode.InvalidArguments, `"" is not an event: name one by its id or its last 8 or more characters (matrixx log shows them), or give none to undo your latest change`)
		}
		req.Event = *c.Event
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	if p.Store.History != nil {
		req.By = p.Store.History.By
		p.Store.History.Command = Name + " undo"
	}
	res, err := p.Store.Undo(req)
	if err != nil {
		return err
	}
	if r.g.JSON {
		return writeJSON(r.stdout, res)
	}
	v, err := load(p.Store, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "undid %s of %s %q (event %s)\n", res.Undone.Kind, v.h(res.Task.ID), clean(res.Task.Subject), shortID(res.Undone.ID))
	if res.Undone.Kind == history.Created {
		// Undoing a create deletes the task: its status is the one
		// change made; its fields and dependencies stay as they were.
		for _, ch := range res.Undone.Changes {
			if ch.Field == "status" {
				now, _ := jsontext.AppendQuote(nil, string(res.Task.Status))
				fmt.Fprintf(r.stdout, "  %s\n", changeText(history.Updated, history.Change{Field: "status", Old: ch.New, New: now}))
			}
		}
		return nil
	}
	for _, ch := range res.Undone.Changes {
		if ch.Field == history.MetadataPrefix+"claim" || ch.Field == "threadID" {
			continue
		}
		back := history.Change{Field: ch.Field, Old: ch.New, New: ch.Old}
		fmt.Fprintf(r.stdout, "  %s\n", changeText(history.Updated, back))
	}
	return nil
}
