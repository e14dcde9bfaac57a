// Command task-feed: see `task-feed --help` and docs/board.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

func main() { os.Exit(cli.TaskFeed(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
