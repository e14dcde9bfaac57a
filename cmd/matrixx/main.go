// Command matrixx is the porcelain: the task store for people (see
// pkg/porcelain and docs/porcelain.md).
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/pkg/porcelain"
)

func main() { os.Exit(porcelain.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
