// Package hook is matrixx-hook's event handling for Claude Code and the
// other hosts: it reads one hook event on stdin,
// routes it on hook_event_name and tool_name, and answers in the host's
// protocol: at most one JSON object on stdout, exit status 0. Exit status 2
// (a block, to the host) is never used; denials and blocks are JSON answers.
//
// Routing (Dispatch):
//
//	PreToolUse, any tool with a command or a path field → task-edit-guard (pkg/guard)
//	PreToolUse, allowed → a tool-call marker for the integrity check (pkg/integrity)
//	PostToolUse, PostToolUseFailure → task-integrity-check (pkg/integrity, docs/integrity.md), then
//	  for a PostToolUse: renewal of the session's claim leases when due (lease.go), and for Bash
//	  running task-create/task-update, or mcp__*__task_create/task_update → task-notepad-writer (pkg/notepad)
//	Stop, SubagentStop → task-integrity-check, then task-continuation-enforcer (pkg/enforce)
//	SessionStart → task-integrity-check (adopts what changed while no session was live), then task-session-start
//	SessionEnd → task-integrity-check (the session's last check; its live span ends)
//	anything else → no output
//
// Every hook decides what its own failure means: the guard fails closed only
// when the raw event clearly targets a guarded directory, the continuation
// hook never blocks because of its own error, the notepad writer and the
// session hook log and give up. A panic is recovered and treated as that
// hook's failure.
package hook

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// Hook names, as listed in disabled_hooks.
const (
	NameGuard        = "task-edit-guard"
	NameNotepad      = "task-notepad-writer"
	NameContinuation = "task-continuation-enforcer"
	NameSessionStart = "task-session-start"
)

// Mode selects what Run handles: every event (Dispatch) or one hook.
type Mode int

// The modes: Dispatch routes on the event; the others run one hook.
const (
	Dispatch Mode = iota
	Guard
	Notepad
	Continue
	Start
)

// Runner runs one hook invocation.
type Runner struct {
	// Env is the process environment (MATRIXX_*, CLAUDE_*).
	Env project.Env
	// Stdout receives the one answer, Stderr diagnostics.
	Stdout, Stderr io.Writer
	// Dir, when set, is the project root (-C DIR).
	Dir string
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Timeout bounds the wait for the whole event on stdin; DefaultTimeout
	// when zero, none when negative.
	Timeout time.Duration
	// Check is the guard; guard.Check when nil (tests replace it).
	Check func(guard.Request) guard.Decision
	// Host is the host protocol to speak (--host); HostAuto recognises it
	// from each event (docs/hosts.md).
	Host Host

	log *Log
	// roots remembers root's answer for the event being handled: the
	// guard, the integrity marker and check, and the lease renewal each
	// need it, and finding it stats every ancestor directory.
	roots rootMemo
}

// Run handles one invocation and returns the exit status, which is always
// 0: while handling a host event the hook answers in JSON and never exits 2.
// It never panics.
func (r *Runner) Run(mode Mode, stdin io.Reader) (status int) {
	if r.Now == nil {
		r.Now = time.Now
	}
	r.log = openLog(r.Env.Getenv, r.Stderr, r.Now)
	defer r.log.Close()
	defer func() {
		// Last line of defence: each hook's own failure policy runs in
		// protect; a panic outside any hook (decoding, routing) gets no
		// answer at all.
		if p := recover(); p != nil {
			r.log.Printf("dispatch", "internal error (a bug, please report): %v", p)
			status = 0
		}
	}()
	if mode == Notepad {
		// A filter reads its pipe until the writer closes it (Unix rule),
		// but a socket that never sends (an agent host's) is given up
		// after the hook's timeout, as every other mode does.
		if t := r.timeout(); t > 0 {
			stdin = input.SilenceReader(stdin, t)
		}
		r.notepadFilter(stdin)
		return 0
	}
	dr := newDeadlineReader(stdin, r.timeout())
	defer dr.stop()
	sc := newScan(dr, MaxString)
	ev, err := Decode(sc)
	if err != nil && (mode == Guard || mode == Dispatch) {
		// The decoder stopped before the end (a value nested deeper than
		// it reads, a syntax error): the guard's fail-closed rule looks at
		// the raw bytes, so it sees the rest of the event too.
		sc.drain()
	}
	r.log.at(ev)
	for _, p := range ev.Problems {
		r.log.Printf("dispatch", "event: %s", p)
	}
	host := r.Host
	if host == HostAuto {
		host = detect(ev)
	}
	normalise(ev, host)
	h := r.route(mode, ev, sc)
	if err != nil {
		r.log.Printf(h.name, "unreadable event after %d bytes: %v", sc.Total, err)
		if h.fail != nil {
			r.answer(translate(host, h.fail(ev, sc, fmt.Errorf("unreadable event: %w", err))))
		}
		return 0
	}
	if h.run == nil {
		r.log.Printf("dispatch", "no hook for this event: no opinion")
		return 0
	}
	r.answer(translate(host, r.protect(h, ev, sc)))
	return 0
}

// timeout is r.Timeout, DefaultTimeout when zero.
func (r *Runner) timeout() time.Duration {
	if r.Timeout == 0 {
		return DefaultTimeout
	}
	return r.Timeout
}

// handler is one hook: run decides, fail turns an error or a panic into the
// hook's failure answer (nil: say nothing).
type handler struct {
	name string
	run  func(ev *Event, sc *scan) any
	fail func(ev *Event, sc *scan, err error) any
}

// route picks the handler for the event.
func (r *Runner) route(mode Mode, ev *Event, sc *scan) handler {
	name := ev.Name
	if name == "" {
		// No hook_event_name: a direct subcommand assumes its own event;
		// the dispatcher only recognises a PreToolUse by its raw bytes (for
		// the guard's fail-closed rule).
		switch mode {
		case Guard:
			name = PreToolUse
		case Continue:
			name = Stop
		case Start:
			name = SessionStart
		case Dispatch:
			if sc.PreToolUse {
				name = PreToolUse
			}
		}
	}
	switch {
	case mode == Guard && name != PreToolUse,
		mode == Continue && name != Stop && name != SubagentStop,
		mode == Start && name != SessionStart:
		return handler{name: "dispatch"} // another hook's event
	}
	switch name {
	case PreToolUse:
		return handler{name: NameGuard, run: r.guardAndMark, fail: r.guardFailure}
	case PostToolUse, PostToolUseFailure:
		return handler{name: NameIntegrity, run: r.afterTool}
	case Stop, SubagentStop:
		return handler{name: NameContinuation, run: r.stop}
	case SessionStart:
		return handler{name: NameSessionStart, run: r.sessionStart}
	case SessionEnd:
		return handler{name: NameIntegrity, run: r.sessionEnd}
	}
	return handler{name: "dispatch"}
}

// protect runs h, turning a panic into h's failure answer.
func (r *Runner) protect(h handler, ev *Event, sc *scan) (answer any) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		r.log.Printf(h.name, "internal error (a bug, please report): %v", p)
		answer = nil
		if h.fail != nil {
			answer = h.fail(ev, sc, fmt.Errorf("internal error: %v", p))
		}
	}()
	return h.run(ev, sc)
}

// answer writes a non-nil answer.
func (r *Runner) answer(v any) {
	if v == nil {
		return
	}
	if err := writeAnswer(r.Stdout, v); err != nil {
		r.log.Printf("dispatch", "writing the answer: %v", err)
	}
}

// shorten cuts s to n bytes (on a rune boundary) for log lines.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
