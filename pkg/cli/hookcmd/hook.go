package hookcmd

import (
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

const hookHelp = `Example: matrixx-hook install

Claude Code hooks for the matrixx task system (docs/hooks.md).

Without a subcommand, read one hook event on stdin and route it on hook_event_name and tool_name:

  PreToolUse     task-edit-guard: deny raw writes to .matrixx/plans and .matrixx/tasks
                 and generic reads of .matrixx/plans (Bash, Write, Edit, MultiEdit,
                 NotebookEdit, Read, MCP file tools)
  PostToolUse    task-notepad-writer: a notepad per created task (its path told to the
                 agent), a stamp on completion
  Stop           task-continuation-enforcer: keep the agent working while tasks remain
  SubagentStop   the same, for a subagent's own in_progress tasks
  SessionStart   task-session-start: MATRIXX_SESSION_ID into $CLAUDE_ENV_FILE, a task summary
                 (with no active task, a few lines on the task tools and their rules)
  PostToolUse, PostToolUseFailure, Stop, SubagentStop
                 task-integrity-check first: whatever changed in the task store, the plans,
                 the config files or .matrixx/state during the tool call without the
                 toolkit's binaries is put back and reported (docs/integrity.md); after
                 editing those files by hand, run "matrixx-hook accept"

The answer is at most one JSON object on stdout, and the exit status is 0 (never 2).

    matrixx-hook [-C DIR] < event.json

-C DIR sets the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor of the event's cwd holding .matrixx/ or .git); every subcommand below takes it too.

Set up Claude Code with "matrixx-hook install" (see "matrixx-hook install --help"), Codex CLI with "matrixx-hook install --host codex", Gemini CLI with "matrixx-hook install --host gemini": install writes "matrixx-hook --host codex|gemini", which reads and answers that host's events (docs/hosts.md). For hosts without skills, add the output of "matrixx-hook snippet" to CLAUDE.md or AGENTS.md.

Debug: MATRIXX_DEBUG=1 logs each decision on stderr; MATRIXX_HOOK_LOG=/path/file appends the same lines to a file (created mode 0600).

JSON Schemas of the event read and the answer: docs/schemas/matrixx-hook.input.json and
docs/schemas/matrixx-hook.output.json (every binary's documents: docs/schemas/).`

// eventFlags are the flags of the subcommands that handle one event.
type eventFlags struct {
	Dir  string `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else discovered from the event's cwd)."`
	Host string `name:"host" placeholder:"HOST" enum:"auto,claude,codex,gemini" default:"auto" help:"The host whose hook protocol to speak: claude, codex or gemini (default: recognised from the event; docs/hosts.md)."`
}

// hookCmd is matrixx-hook's command line.
type hookCmd struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Dispatch     dispatchCmd     `cmd:"" default:"withargs" hidden:"" help:"Route one event (the default)."`
	Guard        guardCmd        `cmd:"" help:"Run task-edit-guard on a PreToolUse event."`
	Notepad      notepadCmd      `cmd:"" help:"Run task-notepad-writer on a PostToolUse event, or as a filter after task-create/task-update."`
	Continue     continueCmd     `cmd:"" help:"Run task-continuation-enforcer on a Stop or SubagentStop event."`
	SessionStart sessionStartCmd `cmd:"" name:"session-start" help:"Run task-session-start on a SessionStart event."`
	Install      installCmd      `cmd:"" help:"Add the hooks to Claude Code's settings (.claude/settings.local.json by default), with the matrixx-tasks skill and the /task-list, /task-ready and /cleanup-tasks commands."`
	Uninstall    uninstallCmd    `cmd:"" help:"Remove the hooks, the skill and the slash commands that install added."`
	Snippet      snippetCmd      `cmd:"" help:"Print the task rules as a CLAUDE.md / AGENTS.md section (for hosts without skills)."`
	Accept       acceptCmd       `cmd:"" help:"Record the task store, plans, config files and hook state as they are now as good, after you edited them by hand (docs/integrity.md). Refused inside an agent's tool call."`
	Continuation continuationCmd `cmd:"" help:"Turn the continuation enforcer off for one session (its stops are let through), on again, or show it: continuation off|on|status [--session ID]."`

	chosen command
}

// Main is the matrixx-hook binary. While
// handling an event it follows the host's protocol: at most one JSON object
// on stdout and exit status 0; it never exits 2, which the host would read
// as a block. Without arguments it skips command-line parsing
// altogether (it runs before every tool call). Usage errors exit 1.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		r := &hook.Runner{Env: project.OS(), Stdout: stdout, Stderr: stderr}
		return r.Run(hook.Dispatch, stdin)
	}
	// What install writes for Codex CLI and Gemini CLI: no command-line
	// parsing either.
	if h, ok := hostOnly(args); ok {
		r := &hook.Runner{Env: project.OS(), Stdout: stdout, Stderr: stderr, Host: h}
		return r.Run(hook.Dispatch, stdin)
	}
	c := &hookCmd{}
	for _, sub := range []interface{ setRoot(*hookCmd) }{&c.Dispatch, &c.Guard, &c.Notepad, &c.Continue, &c.SessionStart, &c.Install, &c.Uninstall, &c.Snippet, &c.Accept, &c.Continuation} {
		sub.setRoot(c)
	}
	status := app.Run("matrixx-hook", hookHelp, c, c.run, args, stdin, stdout, stderr)
	if status == errcode.ExitStatus(errcode.New(errcode.InvalidArguments, "")) {
		status = 1 // never 2: a host reads 2 as "block"
	}
	return status
}

func (c *hookCmd) run(a *app.App) error {
	if c.chosen == nil {
		return c.Dispatch.run(a)
	}
	return c.chosen.run(a)
}

// command is a subcommand that can run.
type command interface {
	run(a *app.App) error
}

// sub is embedded by every subcommand: it records itself as the chosen one
// when kong applies it.
type sub struct {
	root *hookCmd
	self command
}

func (s *sub) choose() {
	if s.root != nil {
		s.root.chosen = s.self
	}
}

// hostOnly recognises the arguments "--host HOST" and "--host=HOST" for a
// known HOST.
func hostOnly(args []string) (hook.Host, bool) {
	v := ""
	switch {
	case len(args) == 2 && args[0] == "--host":
		v = args[1]
	case len(args) == 1 && strings.HasPrefix(args[0], "--host="):
		v = strings.TrimPrefix(args[0], "--host=")
	default:
		return hook.HostAuto, false
	}
	h, err := hook.ParseHost(v)
	return h, err == nil && v != ""
}

// event runs one hook mode on stdin.
func event(a *app.App, f eventFlags, mode hook.Mode) error {
	host, err := hook.ParseHost(f.Host)
	if err != nil {
		return errcode.New(errcode.InvalidArguments, "%v", err)
	}
	r := &hook.Runner{Env: a.Env, Stdout: a.Stdout, Stderr: a.Stderr, Dir: f.Dir, Host: host}
	a.Exit = r.Run(mode, a.Stdin)
	return nil
}

type dispatchCmd struct {
	sub
	eventFlags
}

func (c *dispatchCmd) setRoot(h *hookCmd)       { c.root, c.self = h, c }
func (c *dispatchCmd) BeforeApply() error       { c.choose(); return nil }
func (c *dispatchCmd) run(a *app.App) error     { return event(a, c.eventFlags, hook.Dispatch) }
func (c *guardCmd) setRoot(h *hookCmd)          { c.root, c.self = h, c }
func (c *guardCmd) BeforeApply() error          { c.choose(); return nil }
func (c *guardCmd) run(a *app.App) error        { return event(a, c.eventFlags, hook.Guard) }
func (c *continueCmd) setRoot(h *hookCmd)       { c.root, c.self = h, c }
func (c *continueCmd) BeforeApply() error       { c.choose(); return nil }
func (c *continueCmd) run(a *app.App) error     { return event(a, c.eventFlags, hook.Continue) }
func (c *notepadCmd) setRoot(h *hookCmd)        { c.root, c.self = h, c }
func (c *notepadCmd) BeforeApply() error        { c.choose(); return nil }
func (c *notepadCmd) run(a *app.App) error      { return event(a, c.eventFlags, hook.Notepad) }
func (c *sessionStartCmd) setRoot(h *hookCmd)   { c.root, c.self = h, c }
func (c *sessionStartCmd) BeforeApply() error   { c.choose(); return nil }
func (c *sessionStartCmd) run(a *app.App) error { return event(a, c.eventFlags, hook.Start) }

type guardCmd struct {
	sub
	eventFlags
}

type notepadCmd struct {
	sub
	eventFlags
}

type continueCmd struct {
	sub
	eventFlags
}

type sessionStartCmd struct {
	sub
	eventFlags
}

type acceptCmd struct {
	sub
	eventFlags
}

type continuationCmd struct {
	sub
	Dir     string `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the working directory's project)."`
	Session string `name:"session" placeholder:"ID" help:"The session (default: $MATRIXX_SESSION_ID, else $CLAUDE_CODE_SESSION_ID, else $CODEX_SESSION_ID: the agent's own session in its shell)."`
	State   string `arg:"" enum:"on,off,status" help:"off: let the session's stops through; on: enforce again; status: show."`
}

func (c *continuationCmd) setRoot(h *hookCmd) { c.root, c.self = h, c }
func (c *continuationCmd) BeforeApply() error { c.choose(); return nil }

// run sets or shows the session's continuation and prints
// {"session":"…","continuation":"on"|"off"}.
func (c *continuationCmd) run(a *app.App) error {
	r := &hook.Runner{Env: a.Env, Stdout: a.Stdout, Stderr: a.Stderr, Dir: c.Dir}
	var set *bool
	if c.State != "status" {
		on := c.State == "on"
		set = &on
	}
	res, err := r.SetContinuation(project.Session(c.Session, a.Env), set)
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}

func (c *acceptCmd) setRoot(h *hookCmd) { c.root, c.self = h, c }
func (c *acceptCmd) BeforeApply() error { c.choose(); return nil }

// run records the current state as good and prints
// {"accepted":{"config":N,"plans":N,"state":N,"tasks":N},"notRecorded":[…]}.
func (c *acceptCmd) run(a *app.App) error {
	r := &hook.Runner{Env: a.Env, Stdout: a.Stdout, Stderr: a.Stderr, Dir: c.Dir}
	res, err := r.Accept()
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}

// Grammar returns a kong parser holding matrixx-hook's command line, for
// shell completion; it is never run.
func Grammar() *kong.Kong {
	k, err := kong.New(&hookCmd{}, kong.Name("matrixx-hook"), kong.Description(hookHelp), kong.Writers(io.Discard, io.Discard),
		kong.Exit(func(int) {}), kong.Vars{"version": "matrixx-hook"})
	if err != nil {
		return nil
	}
	return k
}
