package hook

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
)

// NameIntegrity is the second line of defence (docs/integrity.md) in
// disabled_hooks: listing it switches the post-call check off, and the
// binaries' recording of their writes with it.
const NameIntegrity = config.IntegrityHook

// maxNamed caps the files named in one report line.
const maxNamed = 5

// integrityHome is where the ledgers and tool-call markers live.
func (r *Runner) integrityHome(root string) string {
	return integrity.Home(r.Env.Getenv, r.Env.Home, root)
}

// off reports whether MATRIXX_INTEGRITY=off switches the second line off
// for this process (test harnesses, debugging; the person's switch is
// disabled_hooks). The agent's commands cannot set the hooks' environment.
func (r *Runner) off() bool {
	return r.Env.Getenv("MATRIXX_INTEGRITY") == "off"
}

// markCall records the start of an allowed tool call (PreToolUse): a
// marker file in the integrity home, never anything in the store.
func (r *Runner) markCall(ev *Event) {
	if ev.ToolUseID == "" || r.off() {
		return
	}
	root, err := r.root(ev)
	if err != nil {
		return
	}
	if err := integrity.CallsOf(r.integrityHome(root), root).Open(ev.SessionID, ev.ToolUseID); err != nil {
		r.log.Printf(NameIntegrity, "cannot record the start of the tool call (the next check counts every change as the agent's): %v", err)
	}
}

// phase is when a check runs.
type phase int

const (
	atSessionStart phase = iota // SessionStart: adopts what changed while no session was live
	beforeCall                  // PreToolUse: only records the session's event (and a baseline)
	afterCall                   // PostToolUse, PostToolUseFailure
	atStop                      // Stop, SubagentStop
	atSessionEnd                // SessionEnd: the last check of the session
)

// checkOutcome is what one check of every area found.
type checkOutcome struct {
	// Agent are the changes made during a live agent session (restored,
	// quarantined, lost or kept and reported).
	Agent []integrity.Change
	// Adopted are the changes made while no session was live (recorded as
	// good).
	Adopted []integrity.Change
	// Unchecked names the areas that could not be checked, with why.
	Unchecked []string
	// incomplete is set when an area could not be checked.
	incomplete bool
	// post is set after a tool call (the report speaks of the call).
	post bool
}

// ourServer reports whether an MCP tool is one of our own server's
// (matrixx-mcp registered as "matrixx", or through the matrixx Claude Code
// plugin as "plugin_matrixx_matrixx"): its writes are recorded like the
// binaries'.
func ourServer(tool string) bool {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return false
	}
	server, _, _ := strings.Cut(rest, "__")
	return strings.EqualFold(server, "matrixx") || strings.EqualFold(server, "plugin_matrixx_matrixx")
}

// otherTaskTool reports whether a tool is a task-writing tool of another
// implementation sharing the store (an MCP tool mcp__<server>__task_create,
// task_update, task_delete or task_cleanup of a server that is not ours):
// the valid records it writes during its own call are adopted. Reading
// tools (task_list, task_get) and our own server's tools open nothing.
func otherTaskTool(tool string) bool {
	if !strings.HasPrefix(tool, "mcp__") || ourServer(tool) {
		return false
	}
	name := strings.ReplaceAll(strings.ToLower(tool[strings.LastIndex(tool, "__")+2:]), "-", "_")
	switch name {
	case "task_create", "task_update", "task_delete", "task_cleanup":
		return true
	}
	return false
}

// sessionEvent records the event in the session's live spans and returns
// them (docs/integrity.md, "Live sessions").
func (r *Runner) sessionEvent(ev *Event, home, root string, ph phase) []integrity.Span {
	s := integrity.SessionsOf(home, root)
	kind := integrity.EventDuring
	switch ph {
	case atSessionStart:
		kind = integrity.EventStart
	case atSessionEnd:
		kind = integrity.EventEnd
	}
	known, err := s.Touch(ev.SessionID, r.Now(), kind)
	if err != nil {
		r.log.Printf(NameIntegrity, "cannot record the session's event (%v): every change counts as the agent's", err)
		return []integrity.Span{{From: math.MinInt64, To: math.MaxInt64}}
	}
	if !known && kind != integrity.EventStart {
		r.log.Printf(NameIntegrity, "no record of session %s before this %s (no SessionStart, or the record was removed): the session counts as live since before every change", ev.SessionID, ev.Name)
	}
	return s.Spans(r.Now())
}

// homeLink puts back an integrity home that was replaced by a symbolic
// link (the ledgers must not live where a link points): the link is
// removed and the directory it points to is moved back into place (the
// ledgers the agent moved away), else the link is moved aside and the
// ledgers start over. Either way it is reported.
func homeLink(home string, now time.Time) *integrity.Change {
	fi, err := os.Lstat(home)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	ch := &integrity.Change{Area: "ledger", File: home, What: integrity.WhatOdd, Action: integrity.ActRestored}
	if target, err := filepath.EvalSymlinks(home); err == nil {
		if ti, err := os.Lstat(target); err == nil && ti.IsDir() && os.Remove(home) == nil {
			if err := os.Rename(target, home); err == nil {
				ch.Error = ""
				return ch
			}
			// Not movable (another filesystem): the link is gone, the
			// ledgers start over.
			ch.Action, ch.Error = integrity.ActLost, "the integrity home was a symbolic link to "+target+", which could not be moved back; the ledgers start over (nothing could be compared)"
			return ch
		}
	}
	aside := fmt.Sprintf("%s.link-%s", home, now.UTC().Format("20060102T150405.000000000"))
	ch.Action, ch.Quarantine = integrity.ActQuarantined, aside
	ch.Error = "the integrity home was a symbolic link; it was moved aside and the ledgers start over (nothing could be compared)"
	if err := os.Rename(home, aside); err != nil {
		ch.Action, ch.Quarantine, ch.Error = integrity.ActKept, "", "the integrity home is a symbolic link and could not be moved aside: "+err.Error()
	}
	return ch
}

// beforeCall records a PreToolUse in the session's live spans; for a
// session whose start was not seen it also takes the baseline.
func (r *Runner) beforeCall(ev *Event) {
	if r.off() {
		return
	}
	root, err := r.root(ev)
	if err != nil {
		return
	}
	known, err := integrity.SessionsOf(r.integrityHome(root), root).Touch(ev.SessionID, r.Now(), integrity.EventDuring)
	if err != nil {
		r.log.Printf(NameIntegrity, "cannot record the session's event: %v", err)
	}
	if !known || err != nil {
		r.baseline(ev)
	}
}

// baseline records the areas no check has run on yet (no ledger, or only
// the journal lines of our binaries' writes) as they are, before the first
// tool call of a session whose start was not seen, so the check after the
// call compares with what was there before it.
func (r *Runner) baseline(ev *Event) {
	if r.off() {
		return
	}
	root, err := r.root(ev)
	if err != nil {
		return
	}
	home := r.integrityHome(root)
	ip := integrity.NewProject(root, "", r.openCodeDir(), home)
	c := r.checker(ip)
	areas := []*integrity.Area{ip.Config()}
	if p, _ := r.project(ev); p != nil && !p.cfg.HookDisabled(NameIntegrity) {
		ip.StoreDir = p.store.Dir
		areas = append(areas, ip.Tasks(), ip.Plans(), ip.State())
	}
	for _, a := range areas {
		if ok, err := c.Baseline(a); err != nil {
			r.log.Printf(NameIntegrity, "%s: no baseline: %v", a.Name, err)
		} else if ok {
			r.log.Printf(NameIntegrity, "%s: first record, taken before the tool call", a.Name)
		}
	}
}

func (r *Runner) checker(ip *integrity.Project) *integrity.Checker {
	c := &integrity.Checker{Quarantine: ip.Quarantine(), Fallback: ip.Fallback(), Now: r.Now}
	c.Lock.NoKernel = r.Env.Getenv("MATRIXX_NO_FLOCK") == "1"
	c.Lock.Timeout = 3 * lock.DefaultTimeout / 10
	return c
}

// integrityCheck checks the project's directories, the config files, then
// (unless disabled) the task store, the plans and the hooks' state. A
// change made while an agent session was live (its live spans, or the
// tool call's window) is put back; one made while no session was live is
// adopted and reported once. After a tool call (afterCall) the call's
// window starts at its marker (none: every change counts as the agent's).
func (r *Runner) integrityCheck(ev *Event, ph phase) *checkOutcome {
	out := &checkOutcome{post: ph == afterCall}
	if r.off() {
		return out
	}
	root, err := r.root(ev)
	if err != nil {
		r.log.Printf(NameIntegrity, "no project: nothing checked (%v)", err)
		return out
	}
	home := r.integrityHome(root)
	if ch := homeLink(home, r.Now()); ch != nil {
		r.log.Printf(NameIntegrity, "%s: %s", ch.File, ch.Error)
		out.Agent = append(out.Agent, *ch)
	}
	calls := integrity.CallsOf(home, root)
	w := integrity.Window{Live: r.sessionEvent(ev, home, root, ph)}
	first, open := calls.Earliest(ev.SessionID, r.Now())
	switch {
	case ph == afterCall:
		start, ok := calls.Start(ev.SessionID, ev.ToolUseID)
		defer func() {
			// An area that could not be checked (its lock busy) keeps the
			// marker open, so the next check still dates the change
			// inside this call (the marker expires after StaleCall).
			if !out.incomplete {
				calls.Close(ev.SessionID, ev.ToolUseID)
			}
		}()
		switch {
		case !ok:
			w.All = true
		case open > 0:
			w.Start = min(start, first)
		default:
			w.Start = start
		}
		w.AdoptValid = otherTaskTool(ev.Tool)
	case open > 0:
		w.Start = first
	default:
		w.None = true
	}
	ip := integrity.NewProject(root, "", r.openCodeDir(), home)
	c := r.checker(ip)
	// The directories first: a .matrixx replaced by a link or a file, or
	// made unreadable, is put right before anything is read through it.
	for _, ch := range c.Dirs(root) {
		r.log.Printf(NameIntegrity, "%s: %s, %s %s %s", ch.File, ch.What, ch.Action, ch.Quarantine, ch.Error)
		out.Agent = append(out.Agent, ch)
	}
	// The config next: a call that switched the check off in the config
	// is undone before the config is read.
	r.checkArea(c, ip.Config(), w, ph, out)
	p, err := r.project(ev)
	if p == nil {
		r.log.Printf(NameIntegrity, "no project: %v", err)
		return out
	}
	if p.cfg.HookDisabled(NameIntegrity) {
		r.log.Printf(NameIntegrity, "disabled in disabled_hooks: only the config files were checked")
		return out
	}
	ip.StoreDir = p.store.Dir
	// A store shared with the published plugin (docs/compat.md) takes
	// its valid records even while a session is live.
	w.SharedValid = p.cfg.Tasks.PluginSchema || p.cfg.Tasks.Scope == "global"
	for _, a := range []*integrity.Area{ip.Tasks(), ip.Plans(), ip.State()} {
		r.checkArea(c, a, w, ph, out)
	}
	return out
}

func (r *Runner) checkArea(c *integrity.Checker, a *integrity.Area, w integrity.Window, ph phase, out *checkOutcome) {
	res, err := c.Check(a, w)
	if err != nil {
		r.log.Printf(NameIntegrity, "%s: not checked: %v", a.Name, err)
		out.incomplete = true
		out.Unchecked = append(out.Unchecked, fmt.Sprintf("%s (%s)", a.Name, shorten(err.Error(), 200)))
	}
	if res == nil {
		return
	}
	if res.FirstRun {
		r.log.Printf(NameIntegrity, "%s: first check, %d file(s) recorded as they are", a.Name, res.Checked)
		if ph != atSessionStart && res.Checked > 0 {
			// The ledger was there before the session's first tool call
			// (baseline): it went missing during the session.
			out.Agent = append(out.Agent, integrity.Change{Area: a.Name, File: "(ledger)", What: "missing", Action: integrity.ActAdopted,
				Error: "the integrity ledger was missing, so nothing could be compared or put back; the files were recorded as they are"})
		}
	}
	for _, ch := range res.Changes {
		r.log.Printf(NameIntegrity, "%s %s: %s, %s %s %s", ch.Area, ch.File, ch.What, ch.Action, ch.Quarantine, ch.Error)
		if ch.Action == integrity.ActAdopted && ch.Error == "" || res.FirstRun && ch.Error == "" {
			out.Adopted = append(out.Adopted, ch)
		} else {
			out.Agent = append(out.Agent, ch)
		}
	}
	if len(res.Changes) == 0 && !res.FirstRun {
		r.log.Printf(NameIntegrity, "%s: %d file(s) as recorded (%d hashed)", a.Name, res.Checked, res.Hashed)
	}
}

// insteadOf says which binary to use instead, per area.
var insteadOf = map[string]string{
	"tasks":  "change tasks only with task-create, task-update or task-cleanup",
	"plans":  "change plans only with plan create, plan update or plan delete",
	"config": "leave the config files to the person (they edit them outside your tool calls)",
	"state":  "leave .matrixx/state to matrixx-hook",
}

// agentLine is the one line that tells the agent what changed without
// the binaries, what was done about it and what to use instead.
func (o *checkOutcome) agentLine() string {
	if len(o.Agent) == 0 && len(o.Unchecked) == 0 {
		return ""
	}
	var named, notBack []string
	areas := map[string]bool{}
	quarantined := false
	back := 0
	for i, ch := range o.Agent {
		if (ch.Action == integrity.ActRestored || ch.Action == integrity.ActQuarantined) && ch.Error == "" {
			back++
		}
		if insteadOf[ch.Area] != "" {
			areas[ch.Area] = true
		}
		quarantined = quarantined || ch.Quarantine != ""
		if i < maxNamed {
			named = append(named, fmt.Sprintf("%s %s %s", ch.Area, filepath.Base(ch.File), ch.What+" → "+ch.Action))
		}
		if (ch.Action != integrity.ActRestored && ch.Action != integrity.ActQuarantined || ch.Error != "") && len(notBack) < maxNamed {
			why := ch.Error
			if why == "" {
				why = ch.Action
			}
			notBack = append(notBack, fmt.Sprintf("%s %s: %s", ch.Area, filepath.Base(ch.File), shorten(why, 200)))
		}
	}
	if n := len(o.Agent) - maxNamed; n > 0 {
		named = append(named, fmt.Sprintf("and %d more", n))
	}
	var use []string
	keys := make([]string, 0, len(areas))
	for a := range areas {
		keys = append(keys, a)
	}
	sort.Strings(keys)
	for _, a := range keys {
		use = append(use, insteadOf[a])
	}
	if len(use) == 0 {
		use = append(use, "leave .matrixx and the integrity records in ~/.local/state/matrixx to the binaries")
	}
	where := ""
	if quarantined {
		where = " (what was found is kept in .matrixx/state/quarantine/)"
	}
	var b strings.Builder
	if len(o.Agent) > 0 {
		who := "your last tool call, or a process of this session,"
		if !o.post {
			who = "a process of this agent session"
		}
		done := "they were put back"
		switch {
		case back == 0:
			done = "none of them could be put back"
		case back < len(o.Agent):
			done = fmt.Sprintf("%d of them were put back", back)
		}
		fmt.Fprintf(&b, "matrixx-hook: %s changed files of the task system without its binaries (%s); %s%s.", who, strings.Join(named, "; "), done, where)
		if len(notBack) > 0 {
			fmt.Fprintf(&b, " Not put back: %s.", strings.Join(notBack, "; "))
		}
		fmt.Fprintf(&b, " Do not edit them directly: %s.", strings.Join(use, "; "))
	}
	if len(o.Unchecked) > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		} else {
			b.WriteString("matrixx-hook: ")
		}
		fmt.Fprintf(&b, "Not checked after this call: %s; the next check will look again.", strings.Join(o.Unchecked, "; "))
	}
	return b.String()
}

// adoptedNote tells the person, once, what changed outside tool calls.
func (o *checkOutcome) adoptedNote() string {
	if len(o.Adopted) == 0 {
		return ""
	}
	var named []string
	for i, ch := range o.Adopted {
		if i == maxNamed {
			named = append(named, fmt.Sprintf("and %d more", len(o.Adopted)-maxNamed))
			break
		}
		named = append(named, fmt.Sprintf("%s %s %s", ch.Area, filepath.Base(ch.File), ch.What))
	}
	return fmt.Sprintf("matrixx-hook: changes made while no agent session was live (or valid records of another writer sharing the store) were recorded as good: %s.", strings.Join(named, "; "))
}

func (o *checkOutcome) postAnswer(event string) any {
	line, note := o.agentLine(), o.adoptedNote()
	if line == "" && note == "" {
		return nil
	}
	a := contract.PostToolUseAnswer{SystemMessage: note}
	if line != "" {
		a.HookSpecificOutput = &contract.ContextOutput{HookEventName: event, AdditionalContext: line}
		if a.SystemMessage == "" {
			a.SystemMessage = line
		}
	}
	return a
}

// afterTool runs on PostToolUse and PostToolUseFailure: the integrity
// check, then (PostToolUse) task-notepad-writer.
//
// Both may have something to tell the agent: the check's line comes first,
// then the notepad writer's context, in one additionalContext.
func (r *Runner) afterTool(ev *Event, sc *scan) any {
	out := r.integrityCheck(ev, afterCall)
	var notes any
	if ev.Name != PostToolUseFailure {
		notes = r.postToolUse(ev, sc)
	}
	return joinPost(out.postAnswer(ev.Name), notes)
}

// joinPost merges the integrity check's answer (a postAnswer or nil) with
// the notepad writer's (a contract.ContextAnswer or nil).
func joinPost(check, notes any) any {
	n, ok := notes.(contract.ContextAnswer)
	if !ok {
		return check
	}
	c, ok := check.(contract.PostToolUseAnswer)
	if !ok {
		return notes
	}
	if c.HookSpecificOutput == nil {
		c.HookSpecificOutput = &contract.ContextOutput{HookEventName: n.HookSpecificOutput.HookEventName}
	}
	ctx := c.HookSpecificOutput.AdditionalContext
	if ctx != "" {
		ctx += "\n"
	}
	c.HookSpecificOutput.AdditionalContext = ctx + n.HookSpecificOutput.AdditionalContext
	return c
}

// Accepted is matrixx-hook accept's answer: how many files of each area
// were recorded as good, and the files that could not be (not regular
// files, unreadable).
type Accepted struct {
	Accepted    map[string]int     `json:"accepted"`
	NotRecorded []integrity.Change `json:"notRecorded"`
}

// Accept records the current task store, plans, config files and hook
// state of the project as good (a person who edited them by hand). It
// refuses inside an agent's tool call: while a tool call of any session is
// open, or when CLAUDECODE is set (Claude Code's shells).
// Errors: invalid_arguments (refused), internal_error, task_lock_unavailable.
func (r *Runner) Accept() (*Accepted, error) {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Env.Getenv("CLAUDECODE") != "" {
		return nil, errcode.New(errcode.InvalidArguments, "accept records hand edits as good and refuses to run inside an agent's shell (CLAUDECODE is set); run it in your own terminal")
	}
	p, err := r.project(nil)
	if p == nil {
		return nil, err
	}
	home := r.integrityHome(p.root)
	if _, n := integrity.CallsOf(home, p.root).Earliest("", r.Now()); n > 0 {
		return nil, errcode.New(errcode.InvalidArguments, "accept refuses to run while an agent's tool call is open in this project (%d open); run it again when the agent is idle", n)
	}
	ip := integrity.NewProject(p.root, p.store.Dir, r.openCodeDir(), home)
	c := r.checker(ip)
	c.Lock.Timeout = 0
	res := &Accepted{Accepted: map[string]int{}, NotRecorded: []integrity.Change{}}
	for _, a := range []*integrity.Area{ip.Config(), ip.Tasks(), ip.Plans(), ip.State()} {
		got, err := c.Accept(a)
		if err != nil {
			return nil, err
		}
		res.Accepted[a.Name] = got.Checked - len(got.Changes)
		res.NotRecorded = append(res.NotRecorded, got.Changes...)
	}
	return res, nil
}
