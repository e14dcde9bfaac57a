package hookcmd

import (
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// hookCmd is matrixx-hook's command line (commands.Hook) and kong's
// context, which names the chosen subcommand.
type hookCmd struct {
	commands.Hook
	ctx *kong.Context `kong:"-"`
}

// AfterApply keeps kong's context so run can find the chosen subcommand.
func (c *hookCmd) AfterApply(ctx *kong.Context) error {
	c.ctx = ctx
	return nil
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
	status := app.Run("matrixx-hook", commands.Help("matrixx-hook"), c, c.run, args, stdin, stdout, stderr)
	if status == errcode.ExitStatus(errcode.New(errcode.InvalidArguments, "")) {
		status = 1 // never 2: a host reads 2 as "block"
	}
	return status
}

func (c *hookCmd) run(a *app.App) error {
	var chosen any
	if c.ctx != nil && c.ctx.Selected() != nil {
		chosen = c.ctx.Selected().Target.Addr().Interface()
	}
	switch s := chosen.(type) {
	case *commands.HookGuard:
		return event(a, s.HookEventFlags, hook.Guard)
	case *commands.HookNotepad:
		return event(a, s.HookEventFlags, hook.Notepad)
	case *commands.HookContinue:
		return event(a, s.HookEventFlags, hook.Continue)
	case *commands.HookSessionStart:
		return event(a, s.HookEventFlags, hook.Start)
	case *commands.HookInstall:
		return (*installCmd)(s).run(a)
	case *commands.HookUninstall:
		return (*uninstallCmd)(s).run(a)
	case *commands.HookSnippet:
		return snippet(a)
	case *commands.HookAccept:
		return accept(a, s)
	case *commands.HookContinuation:
		return continuation(a, s)
	}
	return event(a, c.Dispatch.HookEventFlags, hook.Dispatch)
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
func event(a *app.App, f commands.HookEventFlags, mode hook.Mode) error {
	host, err := hook.ParseHost(f.Host)
	if err != nil {
		return errcode.New(errcode.InvalidArguments, "%v", err)
	}
	r := &hook.Runner{Env: a.Env, Stdout: a.Stdout, Stderr: a.Stderr, Dir: f.Dir, Host: host}
	a.Exit = r.Run(mode, a.Stdin)
	return nil
}

// continuation sets or shows the session's continuation and prints
// {"session":"…","continuation":"on"|"off"}.
func continuation(a *app.App, c *commands.HookContinuation) error {
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

// accept records the current state as good and prints
// {"accepted":{"config":N,"plans":N,"state":N,"tasks":N},"notRecorded":[…]}.
func accept(a *app.App, c *commands.HookAccept) error {
	r := &hook.Runner{Env: a.Env, Stdout: a.Stdout, Stderr: a.Stderr, Dir: c.Dir}
	res, err := r.Accept()
	if err != nil {
		return err
	}
	a.Emit(res)
	return nil
}
