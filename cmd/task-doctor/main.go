// Command task-doctor: see `task-doctor --help` and README.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

func main() { os.Exit(cli.TaskDoctor(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
