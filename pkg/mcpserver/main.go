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
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

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
	var c commands.MCP
	parser, err := kong.New(&c, kong.Name("matrixx-mcp"), kong.Description(commands.Help(commands.BinMCP)),
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
	out := &lockedWriter{w: stdout}
	err = s.MCP().Run(context.Background(), &mcp.IOTransport{
		// A line that is no JSON-RPC message gets its error answer and
		// is not passed on (lineFilter); the rest is served. Only the
		// SDK's responses end calls (drainWriter).
		Reader: io.NopCloser(drainReader{d, &lineFilter{r: stdin, w: out, d: d}}),
		Writer: nopWriteCloser{drainWriter{d, out}},
	})
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "matrixx-mcp: %v\n", err)
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
