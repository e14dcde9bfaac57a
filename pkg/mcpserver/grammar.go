package mcpserver

import (
	"io"

	"github.com/alecthomas/kong"
)

// Grammar returns a kong parser holding matrixx-mcp's command line, for
// shell completion (matrixx completion); it is never run.
func Grammar() *kong.Kong {
	k, _ := kong.New(&mainCmd{}, kong.Name("matrixx-mcp"), kong.Description(help),
		kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) {}), kong.Vars{"version": "matrixx-mcp"})
	return k
}
