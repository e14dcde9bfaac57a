// Command task-list: see `task-list --help` and README.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

func main() { os.Exit(cli.TaskList(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
