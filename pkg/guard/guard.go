// Package guard decides whether a tool call may touch the plan and task
// stores: writes to .matrixx/plans and
// .matrixx/tasks and generic reads of .matrixx/plans are denied, through
// file tools and through Bash (parsed with mvdan.cc/sh/v3/syntax).
//
// The rules, the path normalisation and the known limits are written down
// in docs/guard.md.
package guard

import (
	"os"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
	// mcp__<server>__execute_command, where the dispatcher also takes a
	// cmd or script field).
	Command string
	// Args are the arguments of such an MCP tool given as an array
	// (tool_input.args, or a command given as an array): each is one
	// word after Command.
	Args []string
	// Paths are the path-like string fields of tool_input (see
	// IsPathField), field name → values. Large fields such as a Write's
	// content are never included.
	Paths map[string][]string
	// Extra lists further directories to guard like .matrixx/tasks (for
	// example a task store moved by tasks.storage_path).
	Extra []string
	// Config lists the matrixx config files the hooks read
	// (<root>/.matrixx/matrixx.jsonc and .json, and the user's
	// matrixx.jsonc and .json): writes are denied, reads allowed; the
	// directory holding a user file is guarded like .matrixx itself.
	// Any .matrixx/matrixx.jsonc and .matrixx/matrixx.json is guarded
	// without being listed.
	Config []string
	// State lists the hooks' state directories (<root>/.matrixx/state):
	// writes are denied. Any .matrixx/state is guarded without being
	// listed.
	State []string
	// Home is the user's home directory, for "~" in Bash words and MCP
	// paths. When empty the guard asks the operating system.
	Home string
	// Leased, when set, says whether a write of p (a cleaned absolute
	// slash path; it may hold shell wildcards) would break a path lease
	// another agent holds (docs/leases.md): it returns what to tell the
	// agent (the lease, its holder and task, its end, what to do), or ""
	// when no lease forbids the write. tree says the write removes or
	// moves p with everything below it. Reads never ask.
	Leased func(p string, tree bool) string
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

// Check decides one tool call. It never panics: a
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
	d, _ := analyse(req)
	return d
}

// analyse is check that also returns the per-call context (for the
// tests of the budgets).
func analyse(req Request) (Decision, *env) {
	e := newEnv(req)
	switch k := toolKind(req.Tool, req.Command != "" || len(req.Args) > 0); k {
	case kindBash:
		if base, ok := toolCwd(req.Paths); ok {
			e.cwd = cleanPath(joinPath(e.cwd, slashes(e.tildePath(base))))
		}
		if d := e.tool(req, kindWrite, true); d.Deny {
			return d, e
		}
		return e.bash(commandLine(req.Command, req.Args)), e
	case kindRead, kindWrite:
		return e.tool(req, k, false), e
	}
	return Decision{}, e
}

// failClosed is the answer after a recovered panic: deny only when the
// raw request clearly targets a guarded path.
func failClosed(req Request) (d Decision) {
	defer func() {
		if recover() != nil {
			d = Decision{}
		}
	}()
	e := env{extra: cleanExtra(req.Extra, ""), state: cleanList(req.State, "", false)}
	e.config, e.configDirs = cleanConfig(req.Config, "")
	if cmd := commandLine(req.Command, req.Args); cmd != "" {
		if hit, ok := e.suspicious(cmd); ok {
			return deny(e.rawReason(hit, ""), "panic")
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
// directories are guarded besides .matrixx/{tasks,plans}, what the
// command defined so far, and the budget of the analysis.
type env struct {
	cwd        string              // cleaned slash path of the event's cwd; "" when unknown
	home       string              // slash path of the home directory; "" when unknown
	extra      []string            // cleaned slash paths of Request.Extra (and their targets)
	config     []string            // cleaned config files of Request.Config (and their targets)
	configDirs []string            // the directories holding them
	state      []string            // cleaned slash paths of Request.State
	alts       map[*shell][]string // shell.alts
	// fds holds the known output of process substitutions by the path
	// they expand to (/dev/fd/63, …); fdN numbers them.
	fds map[string]string
	fdN int
	// links maps the links, copies and renames the command made (the
	// cleaned path made → the cleaned path it stands for), so that a
	// later write through the link, or a run of the copy, is seen
	// through.
	links map[string]string
	// copies maps the files cp, mv, install and hard links made to their
	// sources, for the name a copied program runs as.
	copies map[string]string
	// funcs and aliases hold the shell functions and aliases the command
	// defined: a call of one is analysed with its arguments.
	funcs   map[string]*syntax.Stmt
	aliases map[string]string
	refs    map[string]string // namerefs: declare -n r=x
	// exported names the variables the command put in the environment
	// of what it runs (FOO=x cmd, export, declare -x); allExport is set
	// by set -a. Kept for the whole command (the safe side).
	exported map[string]bool
	// opened maps a file descriptor ("0", "3") to the guarded file the
	// command opened on it for reading (<, 3<): a write to /dev/stdin,
	// /dev/fd/3 or /proc/self/fd/3 reaches that file.
	opened map[string]string
	// gitAliases holds the aliases and command keys git config set
	// earlier in the command.
	gitAliases map[string]string
	// hashed holds hash -p PATH NAME: NAME runs PATH.
	hashed map[string]string
	// made holds the files the command wrote by a redirection, dd or
	// tee (cleaned paths), codes the interpreter code that writes: run
	// as a program, such a file's code is not known.
	made      [][2]string // {directory, path as written}
	codes     []string
	allExport bool
	calls     int // nesting of function and alias calls being analysed
	misread   int // comments re-read as code (misreadComments)
	// steps and spent count the work done (statements, commands and
	// words; bytes of expanded values, directories and parsed scripts).
	// Past maxSteps or maxBytes the analysis stops (over) and the raw
	// rule decides.
	steps, spent int
	// judged counts the tests and patterns tree walks evaluated on
	// entries (find expressions, grep filters); past maxJudged every
	// entry counts as selected.
	judged int
	over   bool
	// taint is set when the command names .matrixx somewhere: then a
	// part of a word the guard cannot know (a variable set elsewhere, a
	// command substitution) may stand for any one path component.
	taint bool
	// dotglob is the dotglob setting of the scope being analysed (see
	// shell.dotglob), for classify: a shell method sets it (globs)
	// before it matches paths.
	dotglob bool
	// leased is Request.Leased.
	leased func(p string, tree bool) string
}

const (
	// maxSteps bounds the statements, commands and words analysed in
	// one call (a 1 MiB command holds at most about 500 000).
	maxSteps = 600_000
	// maxBytes bounds the bytes of values the analysis builds: expanded
	// words, directories of cd and pushd, scripts parsed, output kept.
	maxBytes = 16 << 20
	// maxJudged bounds the find tests and grep patterns evaluated on the
	// entries of tree walks in one call (about 50 ms): past it a walk
	// selects every guarded directory it meets, so a huge expression
	// cannot hide one.
	maxJudged = 4_000_000
)

// charge counts work; it reports false (and sets over) once a budget is
// spent.
func (e *env) charge(steps, bytes int) bool {
	e.steps += steps
	e.spent += bytes
	if e.steps > maxSteps || e.spent > maxBytes {
		e.over = true
	}
	return !e.over
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
	e.state = cleanList(req.State, e.cwd, false)
	e.config, e.configDirs = cleanConfig(req.Config, e.cwd)
	e.leased = req.Leased
	return e
}

// tildePath expands a leading "~/" of a tool's path field.
func (e *env) tildePath(p string) string {
	if p != "" && p[0] == '~' && (len(p) == 1 || p[1] == '/' || p[1] == '\\') && e.home != "" {
		return e.home + p[1:]
	}
	return p
}

// commandLine joins a command and its array arguments into one shell
// command line (each argument quoted).
func commandLine(cmd string, args []string) string {
	if len(args) == 0 {
		return cmd
	}
	var b strings.Builder
	b.WriteString(cmd)
	for _, a := range args {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		b.WriteString(q)
	}
	return b.String()
}

// madeProg reports whether the program argv0 (run from s) is a file the
// command wrote (made), or one named in interpreter code that writes.
func (e *env) madeProg(s *shell, argv0 string) bool {
	if len(e.made) == 0 && len(e.codes) == 0 || argv0 == "" {
		return false
	}
	var cands []string
	if strings.ContainsAny(argv0, `/\`) {
		cands = append(cands, cleanPath(joinPath(s.cwd, slashes(argv0))))
	} else if vals, ok := s.vars["PATH"]; ok {
		for _, pv := range vals {
			for dir := range strings.SplitSeq(pv, ":") {
				if dir != "" && strings.IndexByte(dir, unknown) < 0 {
					cands = append(cands, cleanPath(joinPath(s.cwd, slashes(dir)))+"/"+argv0)
				}
			}
		}
	}
	for _, c := range cands {
		for _, m := range e.made {
			if cleanPath(joinPath(m[0], slashes(m[1]))) == c {
				return true
			}
		}
		base := c[strings.LastIndexByte(c, '/')+1:]
		for _, code := range e.codes {
			if strings.Contains(code, c) || strings.Contains(code, argv0) && strings.ContainsAny(argv0, "/") {
				return true
			}
			// The file named by its base name in quotes ('ls', "/tmp/x").
			for _, q := range [...]string{"'", `"`, "/"} {
				if strings.Contains(code, q+base+"'") || strings.Contains(code, q+base+`"`) {
					return true
				}
			}
		}
	}
	return false
}

// hash records hash -p PATH NAME (and BASH_CMDS[NAME]=PATH).
func (e *env) hash(name, path string) {
	if e.hashed == nil {
		e.hashed = make(map[string]string)
	}
	e.hashed[strings.ToLower(name)] = path
}

// export records a variable put in the environment.
func (e *env) export(name string) {
	if e.exported == nil {
		e.exported = make(map[string]bool)
	}
	e.exported[name] = true
}

func deny(reason, rule string) Decision {
	return Decision{Deny: true, Reason: FitReason(reason), Rule: rule}
}
