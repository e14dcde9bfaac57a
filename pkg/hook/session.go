package hook

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/enforce"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// sessionVar is the variable the task binaries read their threadID from.
const sessionVar = "MATRIXX_SESSION_ID"

// maxSummary caps the tasks listed at session start.
const maxSummary = 10

// sessionStart is task-session-start: it appends
// `export MATRIXX_SESSION_ID=<session_id>` (shell-quoted) to
// $CLAUDE_ENV_FILE when that is set, so the task binaries run through Bash
// stamp the session as threadID, and answers with additionalContext
// summarising the active tasks (for every source: startup, resume, clear,
// compact). Without active tasks it answers the Onboarding lines instead
// (that the task binaries exist and the rules), so an agent in a fresh
// project learns about them. Failures are logged, with no answer; the
// session starts regardless.
func (r *Runner) sessionStart(ev *Event, sc *scan) any {
	out := r.integrityCheck(ev, atSessionStart)
	a := r.sessionSummary(ev, sc)
	note := strings.TrimSpace(out.agentLine() + " " + out.adoptedNote())
	if note == "" {
		return a
	}
	c, ok := a.(contract.ContextAnswer)
	if !ok {
		return contract.ContextAnswer{HookSpecificOutput: contract.ContextOutput{HookEventName: SessionStart, AdditionalContext: note}}
	}
	c.HookSpecificOutput.AdditionalContext = note + "\n" + c.HookSpecificOutput.AdditionalContext
	return c
}

// sessionEnd is the last check of a session (SessionEnd): what the
// session left is put back, and its live span ends. Hosts ignore the
// answer; what was done is logged.
func (r *Runner) sessionEnd(ev *Event, _ *scan) any {
	r.integrityCheck(ev, atSessionEnd)
	return nil
}

// sessionSummary is task-session-start's answer.
func (r *Runner) sessionSummary(ev *Event, _ *scan) any {
	p, err := r.project(ev)
	if p == nil {
		r.log.Printf(NameSessionStart, "nothing done: %v", err)
		return nil
	}
	if err != nil {
		// The session id still goes to the env file (it is what makes the
		// task binaries stamp the right threadID); the summary needs a
		// config we could not read.
		r.log.Printf(NameSessionStart, "config unreadable, no summary: %v", err)
		r.exportSession(ev)
		return nil
	}
	if p.cfg.HookDisabled(NameSessionStart) {
		r.log.Printf(NameSessionStart, "disabled in disabled_hooks: nothing done")
		return nil
	}
	r.exportSession(ev)
	snap, err := p.store.Scan(store.ScanOptions{Mtime: true, ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		r.log.Printf(NameSessionStart, "no summary: reading the task store: %v", err)
		return nil
	}
	text := summary(ev.SessionID, p.cfg.Tasks.SessionScoped, time.Duration(p.cfg.Tasks.StaleAfterHours*float64(time.Hour)), r.Now(), snap.Entries)
	if text == "" {
		r.log.Printf(NameSessionStart, "no active tasks: added the onboarding lines (source %s)", ev.Source)
		return contract.ContextAnswer{HookSpecificOutput: contract.ContextOutput{HookEventName: SessionStart, AdditionalContext: nameAgent(Onboarding, ev.SessionID)}}
	}
	r.log.Printf(NameSessionStart, "added a task summary (source %s)", ev.Source)
	return contract.ContextAnswer{HookSpecificOutput: contract.ContextOutput{HookEventName: SessionStart, AdditionalContext: nameAgent(text, ev.SessionID)}}
}

// nameAgent puts the session's owner name (claim.SessionName) into the
// text's first "--owner <you>": an agent that claims with it holds its
// path leases in every later call of the session, whichever way the
// claim was made (docs/leases.md).
func nameAgent(text, session string) string {
	name := claim.SessionName(session)
	if name == "" {
		return text
	}
	return strings.Replace(text, "--owner <you>", "--owner "+name+" (your name; --paths GLOB leases files you change)", 1)
}

// exportSession appends the session id to $CLAUDE_ENV_FILE when both are
// set.
func (r *Runner) exportSession(ev *Event) {
	file := r.Env.Getenv("CLAUDE_ENV_FILE")
	if file == "" || ev.SessionID == "" {
		return
	}
	switch added, err := appendExport(file, sessionVar, ev.SessionID); {
	case err != nil:
		r.log.Printf(NameSessionStart, "CLAUDE_ENV_FILE: %v", err)
	case added:
		r.log.Printf(NameSessionStart, "exported %s=%s in %s", sessionVar, ev.SessionID, file)
	default:
		r.log.Printf(NameSessionStart, "%s already exports %s=%s", file, sessionVar, ev.SessionID)
	}
}

// summary is the additionalContext: the session's active tasks, and a count
// (or, when the session has none, a list) of the project's other active
// tasks. "" when there are none at all.
func summary(session string, scoped bool, staleAfter time.Duration, now time.Time, entries []store.Entry) string {
	in := enforce.Input{Session: session, SessionScoped: scoped, StaleAfter: staleAfter, Now: now, Entries: entries}
	mine := enforce.Build(in)
	in.SessionScoped = false
	all := enforce.Build(in)
	others := len(all.Items) - len(mine.Items)
	if len(all.Items) == 0 {
		return ""
	}
	var head, tail strings.Builder
	q := all
	switch {
	case len(mine.Items) > 0 && scoped:
		fmt.Fprintf(&head, "matrixx tasks of this session: %s\n", enforce.StatusLine(mine))
		q = mine
		if others > 0 {
			fmt.Fprintf(&tail, "Other sessions have %d active task(s) in this project (task-list shows them).\n", others)
		}
	case len(mine.Items) > 0:
		fmt.Fprintf(&head, "matrixx tasks of this project: %s\n", enforce.StatusLine(mine))
		q = mine
	default:
		fmt.Fprintf(&head, "matrixx tasks: this session has none yet; the project has active tasks from earlier sessions: %s\n", enforce.StatusLine(all))
	}
	tail.WriteString("Manage tasks only with task-create, task-list, task-get, task-claim and task-update (plans with plan); never edit .matrixx/tasks or .matrixx/plans directly. Start a task with task-claim <id> --owner <you> right before you work on it, and task-update <id> --status completed when done.")
	lines := make([]string, 0, min(len(q.Items), maxSummary))
	for _, it := range q.Items[:min(len(q.Items), maxSummary)] {
		lines = append(lines, enforce.Line(it))
	}
	return enforce.Fit(enforce.MaxSummaryBytes, head.String(), lines, len(q.Items), tail.String())
}

// appendExport appends `export NAME=<quoted value>` to file unless the last
// export of NAME in it already sets that value. It reports whether it
// appended.
func appendExport(file, name, value string) (bool, error) {
	q, err := syntax.Quote(value, syntax.LangBash)
	if err != nil {
		return false, fmt.Errorf("cannot quote %s for a shell: %w", name, err)
	}
	line := "export " + name + "=" + q
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	last := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "export "+name+"=") || strings.HasPrefix(l, name+"=") {
			last = l
		}
	}
	if last == line {
		return false, nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, err
	}
	defer f.Close()
	prefix := ""
	if len(data) > 0 && data[len(data)-1] != '\n' {
		prefix = "\n"
	}
	if _, err := f.WriteString(prefix + line + "\n"); err != nil {
		return false, err
	}
	return true, nil
}
