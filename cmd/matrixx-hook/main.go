// Command matrixx-hook: see `matrixx-hook --help` and README.md.
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/hookcmd"
)

func main() { os.Exit(hookcmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
