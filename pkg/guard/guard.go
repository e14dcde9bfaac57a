// Package guard decides whether a tool call may touch the plan and task
// stores (spec §8.2, DESIGN D13): writes to .matrixx/plans and
// .matrixx/tasks and generic reads of .matrixx/plans are denied, through
// file tools and through Bash (parsed with mvdan.cc/sh/v3/syntax).
//
// The rules, the path normalisation and the known limits are written down
// in docs/guard.md.
package guard

import (
	"os"
)

// Request is what the guard needs from a PreToolUse event.
type Request struct {
	// Tool is tool_name: "Bash", "Write", "Edit", "MultiEdit",
	// "NotebookEdit", "Read", "mcp__<server>__<tool>", …
	Tool string
	// Cwd is the event's cwd (absolute); relative paths resolve from it.
	Cwd string
	// Command is tool_input.command (Bash only; also read for MCP tools
	// whose name says they run a shell command, such as
	// mcp__<server>__execute_command).
	Command string
	// Paths are the path-like string fields of tool_input (see
	// IsPathField), field name → values. Large fields such as a Write's
	// content are never included.
	Paths map[string][]string
	// Extra lists further directories to guard like .matrixx/tasks (for
	// example a task store moved by tasks.storage_path).
	Extra []string
	// Home is the user's home directory, for "~" in Bash words and MCP
	// paths. When empty the guard asks the operating system.
	Home string
}

// Decision is the guard's answer. The zero value means "no opinion".
type Decision struct {
	// Deny is true when the call must be refused.
	Deny bool
	// Reason tells the agent what was refused and which binary to use.
	Reason string
	// Rule names the rule that fired (for MATRIXX_DEBUG logs), for
	// example "bash:redirect", "bash:sed", "tool:Write", "tool:Read",
	// "bash:parse", "panic".
	Rule string
}

// Check decides one tool call (spec §8.2, DESIGN D13). It never panics: a
// panic inside the analysis is recovered and answered like a Bash command
// that does not parse (deny only when the raw input clearly names a
// guarded path together with a write).
func Check(req Request) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = failClosed(req)
		}
	}()
	return check(req)
}

// check is Check without the recover, so that tests and the fuzz target
// see panics.
func check(req Request) Decision {
	e := newEnv(req)
	switch k := toolKind(req.Tool, req.Command != ""); k {
	case kindBash:
		return e.bash(req.Command)
	case kindRead, kindWrite:
		return e.tool(req, k)
	}
	return Decision{}
}

// failClosed is the answer after a recovered panic: deny only when the
// raw request clearly targets a guarded path.
func failClosed(req Request) (d Decision) {
	defer func() {
		if recover() != nil {
			d = Decision{}
		}
	}()
	e := env{extra: cleanExtra(req.Extra, "")}
	if req.Command != "" {
		if hit, ok := e.suspicious(req.Command); ok {
			return deny(rawReason(hit), "panic")
		}
		return Decision{}
	}
	k := toolKind(req.Tool, false)
	for _, vals := range req.Paths {
		for _, v := range vals {
			if st := e.classify(cleanPath(joinPath(slashes(req.Cwd), slashes(v)))); guarded(st, k == kindRead) {
				return deny(toolReason(req.Tool, st, v, "", k == kindRead), "panic")
			}
		}
	}
	return Decision{}
}

// env is the per-call context: where relative paths start, which
// directories are guarded besides .matrixx/{tasks,plans}.
type env struct {
	cwd   string   // cleaned slash path of the event's cwd; "" when unknown
	home  string   // slash path of the home directory; "" when unknown
	extra []string // cleaned slash paths of Request.Extra (and their targets)
	// taint is set when the command names .matrixx somewhere: then a
	// part of a word the guard cannot know (a variable set elsewhere, a
	// command substitution) may stand for any one path component.
	taint bool
	// fds holds the known output of process substitutions by the path
	// they expand to (/dev/fd/63, …); fdN numbers them.
	fds map[string]string
	fdN int
}

func newEnv(req Request) *env {
	e := &env{cwd: slashes(req.Cwd), home: slashes(req.Home)}
	if e.cwd != "" {
		e.cwd = cleanPath(e.cwd)
	}
	if e.home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			e.home = slashes(h)
		}
	}
	e.extra = cleanExtra(req.Extra, e.cwd)
	return e
}

func deny(reason, rule string) Decision {
	return Decision{Deny: true, Reason: reason, Rule: rule}
}
