package hook

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
)

// NameIntegrity is the second line of defence (docs/integrity.md) in
// disabled_hooks: listing it switches the post-call check off, and the
// binaries' recording of their writes with it.
const NameIntegrity = "task-integrity-check"

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

// checkOutcome is what one check of every area found.
type checkOutcome struct {
	// Agent are the changes made during the agent's tool call (restored,
	// quarantined or lost).
	Agent []integrity.Change
	// Adopted are the changes made outside tool calls (recorded as good).
	Adopted []integrity.Change
	// incomplete is set when an area could not be checked.
	incomplete bool
}

// otherTaskTool reports whether a tool is the task tool of another
// implementation sharing the store (an MCP task_create/task_update/…):
// the valid records it writes are adopted.
func otherTaskTool(tool string) bool {
	if !strings.HasPrefix(tool, "mcp__") {
		return false
	}
	name := tool[strings.LastIndex(tool, "__")+2:]
	return strings.HasPrefix(name, "task_") || strings.HasPrefix(name, "task-")
}

// integrityCheck checks the config files, then (unless disabled) the task
// store, the plans and the hooks' state. After a tool call (post) the
// window is the call's: from its marker, or everything when the marker is
// missing; at a stop, the open tool calls' (none: every change is adopted).
func (r *Runner) integrityCheck(ev *Event, post bool) *checkOutcome {
	out := &checkOutcome{}
	if r.off() {
		return out
	}
	root, err := r.root(ev)
	if err != nil {
		r.log.Printf(NameIntegrity, "no project: nothing checked (%v)", err)
		return out
	}
	home := r.integrityHome(root)
	calls := integrity.CallsOf(home, root)
	var w integrity.Window
	first, open := calls.Earliest(ev.SessionID, r.Now())
	if post {
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
	} else if open > 0 {
		w.Start = first
	} else {
		w.None = true
	}
	ip := integrity.NewProject(root, "", r.openCodeDir(), home)
	c := &integrity.Checker{Quarantine: ip.Quarantine(), Fallback: ip.Fallback(), Now: r.Now}
	c.Lock.NoKernel = r.Env.Getenv("MATRIXX_NO_FLOCK") == "1"
	c.Lock.Timeout = 3 * lock.DefaultTimeout / 10
	// The config first: a call that switched the check off in the config
	// is undone before the config is read.
	r.checkArea(c, ip.Config(), w, out)
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
	for _, a := range []*integrity.Area{ip.Tasks(), ip.Plans(), ip.State()} {
		r.checkArea(c, a, w, out)
	}
	return out
}

func (r *Runner) checkArea(c *integrity.Checker, a *integrity.Area, w integrity.Window, out *checkOutcome) {
	res, err := c.Check(a, w)
	if err != nil {
		r.log.Printf(NameIntegrity, "%s: not checked: %v", a.Name, err)
		out.incomplete = true
	}
	if res == nil {
		return
	}
	if res.FirstRun {
		r.log.Printf(NameIntegrity, "%s: first check, %d file(s) recorded as they are", a.Name, res.Checked)
	}
	for _, ch := range res.Changes {
		r.log.Printf(NameIntegrity, "%s %s: %s, %s %s %s", ch.Area, ch.File, ch.What, ch.Action, ch.Quarantine, ch.Error)
		if ch.Action == integrity.ActAdopted || res.FirstRun {
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

// agentLine is the one line that tells the agent what its last command
// did and what to use instead.
func (o *checkOutcome) agentLine() string {
	if len(o.Agent) == 0 {
		return ""
	}
	var named []string
	areas := map[string]bool{}
	quarantined := false
	for i, ch := range o.Agent {
		areas[ch.Area] = true
		quarantined = quarantined || ch.Quarantine != ""
		if i < maxNamed {
			named = append(named, fmt.Sprintf("%s %s %s", ch.Area, filepath.Base(ch.File), ch.What+" → "+ch.Action))
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
	where := ""
	if quarantined {
		where = " (what it wrote is kept in .matrixx/state/quarantine/)"
	}
	return fmt.Sprintf("matrixx-hook: your last tool call changed files of the task system without its binaries (%s); they were put back%s. Do not edit them directly: %s.", strings.Join(named, "; "), where, strings.Join(use, "; "))
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
	return fmt.Sprintf("matrixx-hook: changes made outside the agent's tool calls were recorded as good: %s.", strings.Join(named, "; "))
}

// postAnswer reports after a tool call: additionalContext to the agent,
// systemMessage to the person.
//
//	{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"…"},"systemMessage":"…"}
type postAnswer struct {
	HookSpecificOutput *contextOutput `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string         `json:"systemMessage,omitempty"`
}

func (o *checkOutcome) postAnswer(event string) any {
	line, note := o.agentLine(), o.adoptedNote()
	if line == "" && note == "" {
		return nil
	}
	a := postAnswer{SystemMessage: note}
	if line != "" {
		a.HookSpecificOutput = &contextOutput{HookEventName: event, AdditionalContext: line}
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
	out := r.integrityCheck(ev, true)
	var notes any
	if ev.Name != PostToolUseFailure {
		notes = r.postToolUse(ev, sc)
	}
	return joinPost(out.postAnswer(ev.Name), notes)
}

// joinPost merges the integrity check's answer (a postAnswer or nil) with
// the notepad writer's (a contextAnswer or nil).
func joinPost(check, notes any) any {
	n, ok := notes.(contextAnswer)
	if !ok {
		return check
	}
	c, ok := check.(postAnswer)
	if !ok {
		return notes
	}
	if c.HookSpecificOutput == nil {
		c.HookSpecificOutput = &contextOutput{HookEventName: n.HookSpecificOutput.HookEventName}
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
	c := &integrity.Checker{Quarantine: ip.Quarantine(), Fallback: ip.Fallback(), Now: r.Now}
	c.Lock.NoKernel = r.Env.Getenv("MATRIXX_NO_FLOCK") == "1"
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
