// Command task-sync: see `task-sync --help`, README.md and docs/sync.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

func main() { os.Exit(cli.TaskSync(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
