// Command task-update: see `task-update --help` and README.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

func main() { os.Exit(cli.TaskUpdate(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
