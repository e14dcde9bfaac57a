package commands

import "github.com/alecthomas/kong"

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

// Hook is matrixx-hook's command line.
type Hook struct {
	Version kong.VersionFlag `help:"Print the version and exit."`

	Dispatch     HookDispatch     `cmd:"" default:"withargs" hidden:"" help:"Route one event (the default)."`
	Guard        HookGuard        `cmd:"" help:"Run task-edit-guard on a PreToolUse event."`
	Notepad      HookNotepad      `cmd:"" help:"Run task-notepad-writer on a PostToolUse event, or as a filter after task-create/task-update."`
	Continue     HookContinue     `cmd:"" help:"Run task-continuation-enforcer on a Stop or SubagentStop event."`
	SessionStart HookSessionStart `cmd:"" name:"session-start" help:"Run task-session-start on a SessionStart event."`
	Install      HookInstall      `cmd:"" help:"Add the hooks to Claude Code's settings (.claude/settings.local.json by default), with the matrixx-tasks skill and the /task-list, /task-ready and /cleanup-tasks commands."`
	Uninstall    HookUninstall    `cmd:"" help:"Remove the hooks, the skill and the slash commands that install added."`
	Snippet      HookSnippet      `cmd:"" help:"Print the task rules as a CLAUDE.md / AGENTS.md section (for hosts without skills)."`
	Accept       HookAccept       `cmd:"" help:"Record the task store, plans, config files and hook state as they are now as good, after you edited them by hand (docs/integrity.md). Refused inside an agent's tool call."`
	Continuation HookContinuation `cmd:"" help:"Turn the continuation enforcer off for one session (its stops are let through), on again, or show it: continuation off|on|status [--session ID]."`
}

// HookEventFlags are the flags of the subcommands that handle one event.
type HookEventFlags struct {
	Dir  string `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else discovered from the event's cwd)."`
	Host string `name:"host" placeholder:"HOST" enum:"auto,claude,codex,gemini" default:"auto" help:"The host whose hook protocol to speak: claude, codex or gemini (default: recognised from the event; docs/hosts.md)."`
}

// HookDispatch is the flags of matrixx-hook's default command: route one event.
type HookDispatch struct{ HookEventFlags }

// HookGuard is matrixx-hook guard's flags.
type HookGuard struct{ HookEventFlags }

// HookNotepad is matrixx-hook notepad's flags.
type HookNotepad struct{ HookEventFlags }

// HookContinue is matrixx-hook continue's flags.
type HookContinue struct{ HookEventFlags }

// HookSessionStart is matrixx-hook session-start's flags.
type HookSessionStart struct{ HookEventFlags }

// HookAccept is matrixx-hook accept's flags.
type HookAccept struct{ HookEventFlags }

// HookContinuation is matrixx-hook continuation's arguments.
type HookContinuation struct {
	Dir     string `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the working directory's project)."`
	Session string `name:"session" placeholder:"ID" help:"The session (default: $MATRIXX_SESSION_ID, else $CLAUDE_CODE_SESSION_ID, else $CODEX_SESSION_ID: the agent's own session in its shell)."`
	State   string `arg:"" enum:"on,off,status" help:"off: let the session's stops through; on: enforce again; status: show."`
}

// HookSettingsFlags choose the Claude Code settings file.
type HookSettingsFlags struct {
	Dir    string `short:"C" name:"dir" placeholder:"DIR" help:"Project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor holding .matrixx/ or .git)."`
	Shared bool   `xor:"where" help:"Use the project's shared .claude/settings.json (to commit), with the command matrixx-hook looked up on PATH."`
	User   bool   `xor:"where" help:"Use your user settings, ~/.claude/settings.json (every project)."`
	Print  bool   `help:"Print the resulting settings file instead of writing it (uninstall: nothing on stdout when it would remove the file, and a note on stderr)."`
}

// HookHostFlag selects the host install and uninstall write for.
type HookHostFlag struct {
	Host string `name:"host" placeholder:"HOST" enum:"claude,codex,gemini" default:"claude" help:"The agent host to set up: claude (Claude Code, the default), codex (Codex CLI: .codex/hooks.json) or gemini (Gemini CLI: .gemini/settings.json); see docs/hosts.md."`
}

// HookMCPFlag is install's --mcp.
type HookMCPFlag struct {
	MCP bool `name:"mcp" help:"Also register the MCP server matrixx-mcp (from PATH) in the project's .mcp.json and enable it in the settings file (not with --user)."`
}

// HookInstall is matrixx-hook install's flags.
type HookInstall struct {
	HookSettingsFlags
	HookMCPFlag
	HookHostFlag
	Command string `placeholder:"CMD" help:"The command the hooks run (default: this binary's absolute path; \"matrixx-hook\" with --shared)."`
	Force   bool   `help:"Install even when another settings file of this project (or your user settings) already runs matrixx-hook with another command, so every hook would run twice."`
}

// HookUninstall is matrixx-hook uninstall's flags.
type HookUninstall struct {
	HookSettingsFlags
	HookHostFlag
	// MCP is accepted so "uninstall" takes install's flags: uninstall
	// always removes what install --mcp added, with or without it.
	MCP bool `name:"mcp" help:"Accepted like install's --mcp; uninstall always removes the MCP server entry install --mcp added (.mcp.json and enabledMcpjsonServers), with or without this flag."`
}

// HookSnippet is matrixx-hook snippet: no flags.
type HookSnippet struct{}

// The hook subcommands' detailed help: a short example first.

// Help is its --help.
func (*HookGuard) Help() string {
	return "Example: matrixx-hook guard < pretooluse-event.json"
}

// Help is its --help.
func (*HookNotepad) Help() string {
	return "Example: task-create --subject 'Build backend' | matrixx-hook notepad"
}

// Help is its --help.
func (*HookContinue) Help() string {
	return "Example: matrixx-hook continue < stop-event.json"
}

// Help is its --help.
func (*HookSessionStart) Help() string {
	return "Example: matrixx-hook session-start < sessionstart-event.json"
}

// Help is its --help.
func (*HookInstall) Help() string {
	return "Example: matrixx-hook install"
}

// Help is its --help.
func (*HookUninstall) Help() string {
	return "Example: matrixx-hook uninstall"
}

// Help is its --help.
func (*HookSnippet) Help() string {
	return "Example: matrixx-hook snippet >> AGENTS.md"
}

// Help is its --help.
func (*HookAccept) Help() string {
	return "Example: matrixx-hook accept   # in your own terminal, after editing .matrixx/ by hand"
}

// Help is its --help.
func (*HookContinuation) Help() string {
	return "Example: matrixx-hook continuation off --session ses_123   # or, in the agent's shell, without --session"
}
