// Command matrixx-mcp: see `matrixx-mcp --help` and docs/mcp.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/mcpserver"
)

func main() { os.Exit(mcpserver.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
