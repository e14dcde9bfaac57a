package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/alecthomas/kong"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

const help = `Example: matrixx-mcp -C ~/src/project

An MCP server (stdio) named "matrixx" whose tools are the task binaries and plan's subcommands:
task_create, task_get, task_list, task_update, task_cleanup, task_claim, task_doctor, plan_create,
plan_read, plan_update, plan_list, plan_delete, plan_tasks, plan_check, plan_sync; with --tools core
only task_create, task_list, task_get, task_update and task_claim (a smaller context for the model).

Each tool takes the binary's stdin document as its arguments (plan tools: the name and options as
members) and answers exactly the binary's JSON document, errors as {"error","message"} with
isError. The project is -C DIR, else the client's first file:// root, else the working directory,
then resolved as the binaries do ($MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, the nearest ancestor
holding .matrixx/ or .git). Register it for Claude Code with "matrixx-hook install --mcp", or a
.mcp.json entry {"mcpServers":{"matrixx":{"command":"matrixx-mcp"}}}. See docs/mcp.md.

JSON Schemas of every document: docs/schemas/ (mcp-tools.json: what tools/list announces).`

type mainCmd struct {
	Dir     string           `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root of every call (default: the client's root, else the working directory)."`
	Session string           `name:"session" placeholder:"ID" help:"Session id stamped as threadID by writes (default: $MATRIXX_SESSION_ID, else \"no-session\")."`
	Tools   string           `name:"tools" enum:"core,all" default:"all" env:"MATRIXX_MCP_TOOLS" placeholder:"TIER" help:"Which tools to announce: core (task_create, task_list, task_get, task_update, task_claim: under 5 KiB of definitions) or all (default; also $MATRIXX_MCP_TOOLS)."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

type exitCode int

// Main is the matrixx-mcp binary: it serves MCP on stdin/stdout until the
// client closes stdin (exit 0). Usage errors exit 2; the server's own log
// (the binaries' warnings) goes to stderr.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			if c, ok := r.(exitCode); ok {
				status = int(c)
				return
			}
			fmt.Fprintf(stderr, "matrixx-mcp: unexpected failure (a bug, please report): %v\n", r)
			status = 1
		}
	}()
	var c mainCmd
	parser, err := kong.New(&c, kong.Name("matrixx-mcp"), kong.Description(help),
		kong.Writers(stdout, stderr), kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.Vars{"version": "matrixx-mcp " + app.Version()},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}))
	if err != nil {
		fmt.Fprintf(stderr, "matrixx-mcp: %v\n", err)
		return 1
	}
	if _, err := parser.Parse(args); err != nil {
		fmt.Fprintf(stderr, "matrixx-mcp: %v (see matrixx-mcp --help)\n", err)
		return errcode.ExitStatus(errcode.New(errcode.InvalidArguments, ""))
	}
	env := project.OS()
	if c.Dir != "" {
		// Check -C once, at start: a typo must not serve a wrong store.
		root, err := project.Root(c.Dir, env)
		if err != nil {
			fmt.Fprintf(stderr, "matrixx-mcp: %v\n", errcode.As(err).Message)
			return errcode.ExitStatus(errcode.New(errcode.InvalidArguments, ""))
		}
		c.Dir = filepath.Clean(root)
	}
	s := New(Options{Dir: c.Dir, Session: c.Session, Env: env, Log: stderr, Tools: c.Tools})
	d := newDrain()
	out := &lockedWriter{w: drainWriter{d, stdout}}
	err = s.MCP().Run(context.Background(), &mcp.IOTransport{
		// A line that is no JSON-RPC message gets its error answer and
		// is not passed on (lineFilter); the rest is served.
		Reader: io.NopCloser(drainReader{d, &lineFilter{r: stdin, w: out}}),
		Writer: nopWriteCloser{out},
	})
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "matrixx-mcp: %v\n", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
