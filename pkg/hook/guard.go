package hook

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// guardAndMark runs the guard and, when the call is allowed, records the
// start of the call for the integrity check.
func (r *Runner) guardAndMark(ev *Event, sc *scan) any {
	a := r.preToolUseAll(ev, sc)
	r.beforeCall(ev)
	if _, deny := a.(contract.PreToolUseAnswer); !deny {
		r.markCall(ev) // allowed (a Gemini session stamp is an allowed call too)
	}
	return a
}

// preToolUse is task-edit-guard: it builds a guard.Request
// from the event and denies when the guard does. A tool call with neither a
// command nor a path field gets no opinion without any file access.
func (r *Runner) preToolUse(ev *Event, sc *scan) any {
	in := ev.Input
	if in.Command == "" && len(in.Paths) == 0 && len(in.Argv) == 0 && len(in.Args) == 0 && !in.Truncated {
		r.log.Printf(NameGuard, "no command and no path field: no opinion")
		return nil
	}
	p, err := r.project(ev)
	if err != nil {
		if p == nil {
			return r.guardFailure(ev, sc, err)
		}
		// A broken config file must not switch the guard off: go on with
		// the defaults.
		r.log.Printf(NameGuard, "config ignored: %v", err)
	}
	if p.cfg.HookDisabled(NameGuard) {
		r.log.Printf(NameGuard, "disabled in disabled_hooks: no opinion")
		return nil
	}
	req := guard.Request{Tool: ev.Tool, Cwd: ev.Cwd, Command: in.Command, Paths: in.Paths}
	if len(in.Argv) > 0 || len(in.Args) > 0 {
		req.Args = append(append(req.Args, in.Argv...), in.Args...)
	}
	if req.Cwd == "" {
		req.Cwd = p.root
	}
	if def := filepath.Join(p.root, ".matrixx", "tasks"); filepath.Clean(p.store.Dir) != def {
		req.Extra = append(req.Extra, p.store.Dir)
	}
	// The config files the hooks read and the hooks' state: the agent
	// must not switch a hook off or reset its counters.
	req.Config = append(req.Config, filepath.Join(p.root, ".matrixx", config.FileName), filepath.Join(p.root, ".matrixx", "matrixx.json"))
	if oc := r.openCodeDir(); oc != "" {
		req.Config = append(req.Config, filepath.Join(oc, config.FileName), filepath.Join(oc, "matrixx.json"))
	}
	// The integrity check's own records (ledgers, call markers, session
	// records: docs/integrity.md) are guarded like the hooks' state.
	req.State = append(req.State, StateDir(p.root))
	if !r.off() {
		req.State = append(req.State, r.integrityHome(p.root))
	}
	req.Leased = r.leaseCheck(ev, p)
	cut, cmdCut := trimCut(&req)
	check := r.Check
	if check == nil {
		check = guard.Check
	}
	d := check(req)
	if d.Deny {
		r.log.Printf(NameGuard, "deny (rule %s): %s", d.Rule, d.Reason)
		return deny(d.Reason)
	}
	if cmdCut {
		// The guard saw only the first MiB of the command: what follows
		// runs unseen, whatever it mentions (.matrixx/ta''sks).
		reason := "matrixx-hook: this command is too large to analyse in full (over 1 MiB), so it is refused. Split it, or put long data in a file first. Change tasks only with task-create/task-update and plans only with the plan binary."
		r.log.Printf(NameGuard, "deny (rule oversized): the command was cut")
		return deny(reason)
	}
	if cut && sc.Guarded {
		reason := "matrixx-hook: this tool call is too large to analyse in full (a value over 1 MiB) and mentions .matrixx/plans or .matrixx/tasks, so it is refused. Change tasks only with task-create/task-update and plans only with the plan binary, or split the command."
		r.log.Printf(NameGuard, "deny (rule oversized): a cut value and a guarded path in the raw event")
		return deny(reason)
	}
	if in.Truncated && targetsGuarded(ev, sc) {
		reason := fmt.Sprintf("matrixx-hook: this tool call has more path values than it checks (over %d, or nested deeper than %d levels) and mentions .matrixx/plans or .matrixx/tasks, so it is refused. Change tasks only with task-create/task-update and plans only with the plan binary, or split the call.", maxPaths, maxDepth)
		r.log.Printf(NameGuard, "deny (rule truncated): values left out and a guarded path in the raw event")
		return deny(reason)
	}
	if r.log.Enabled() { // describe formats every path: only when it is logged
		r.log.Printf(NameGuard, "allow: %s", describe(req, d))
	}
	if !cut {
		if a := r.geminiStamp(ev); a != nil {
			return a
		}
	}
	return nil
}

// trimCut strips the cut sentinel from command and paths and reports
// whether any value was cut (see MaxString), and whether the command or
// one of its arguments was.
func trimCut(req *guard.Request) (cut, cmdCut bool) {
	if c, ok := strings.CutSuffix(req.Command, "\x00"); ok {
		req.Command, cut, cmdCut = c, true, true
	}
	for i, v := range req.Args {
		if c, ok := strings.CutSuffix(v, "\x00"); ok {
			req.Args[i], cut, cmdCut = c, true, true
		}
	}
	for k, vs := range req.Paths {
		for i, v := range vs {
			if c, ok := strings.CutSuffix(v, "\x00"); ok {
				req.Paths[k][i], cut = c, true
			}
		}
	}
	return cut, cmdCut
}

// readOnlyTool reports whether a Claude Code tool carries paths but never
// writes; the guard only cares about its reads of .matrixx/plans.
func readOnlyTool(name string) bool {
	switch name {
	case "Read", "Glob", "Grep", "LS",
		// Gemini CLI's
		"read_file", "read_many_files", "glob", "list_directory", "search_file_content", "grep_search":
		return true
	}
	return false
}

// guardFailure is the guard's failure policy: fail closed (deny) only when
// the raw event clearly targets a guarded directory, that is when its
// tool_name was read, the tool may write, and the raw bytes mention
// .matrixx/plans or .matrixx/tasks (for the read-only tools: when they
// mention .matrixx/plans, whose generic reads are denied too); otherwise
// say nothing.
func (r *Runner) guardFailure(ev *Event, sc *scan, err error) any {
	if !targetsGuarded(ev, sc) {
		r.log.Printf(NameGuard, "failed open (the event does not clearly target a guarded path): %v", err)
		return nil
	}
	r.log.Printf(NameGuard, "deny (rule fail-closed): %v", err)
	return deny(fmt.Sprintf("matrixx-hook could not check this tool call (%v) and it mentions .matrixx/plans or .matrixx/tasks, so it is refused to be safe. Change tasks only with task-create/task-update and plans only with the plan binary.", shorten(err.Error(), 200)))
}

// targetsGuarded reports whether the raw event clearly targets a guarded
// path: its tool_name was read, and its raw bytes mention .matrixx/plans
// or .matrixx/tasks (for the read-only tools: .matrixx/plans, whose
// generic reads are denied too).
func targetsGuarded(ev *Event, sc *scan) bool {
	switch {
	case ev.Tool == "":
		return false
	case readOnlyTool(ev.Tool):
		return sc.GuardedPlans
	}
	return sc.Guarded
}

// openCodeDir is the user config directory config.Load reads ("" when
// the environment names none).
func (r *Runner) openCodeDir() string {
	if r.Env.Home != nil || r.Env.Getenv("OPENCODE_CONFIG_DIR") != "" || r.Env.Getenv("XDG_CONFIG_HOME") != "" {
		return project.OpenCodeDir(r.Env)
	}
	return ""
}

// describe summarises a request for the log.
func describe(req guard.Request, d guard.Decision) string {
	var parts []string
	if req.Command != "" {
		parts = append(parts, fmt.Sprintf("command %q", shorten(req.Command, 200)))
	}
	keys := make([]string, 0, len(req.Paths))
	for k := range req.Paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %q", k, req.Paths[k]))
	}
	if d.Rule != "" {
		parts = append(parts, "rule "+d.Rule)
	}
	return strings.Join(parts, ", ")
}
