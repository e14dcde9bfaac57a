// Command waves is the README's demo: it runs the wave-planning example
// through the real task binaries in a fresh project directory and prints
// what is runnable after each wave (package demo).
//
//	go run ./examples/waves -bin bin [-dir DIR] [-keep]
package main

import (
	"os"

	"github.com/matrixx-dev/matrixx-tasks/examples/waves/demo"
)

func main() { os.Exit(demo.Main(os.Args[1:], os.Stdout, os.Stderr)) }
