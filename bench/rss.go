package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Peak memory of a child is its getrusage ru_maxrss, with a catch: Go
// starts children with vfork (the child shares the parent's memory until
// exec), and Linux carries the shared memory's high-water mark into the
// child's ru_maxrss at exec. Measured directly from the harness, which
// holds generated stores, every child would look at least as big as the
// harness. So the harness re-executes itself as a small fresh process
// (rssChildFlag) that starts the command and reports its ru_maxrss; the
// floor of the method is that helper's own size, shown beside the figure.
const rssChildFlag = "-rss-child"

// rssChild runs argv with the inherited stdin/stdout, then prints
// "maxrss <KiB>" on stderr. It exits with the child's status.
func rssChild(argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru != nil {
		fmt.Fprintf(os.Stderr, "maxrss %d\n", ru.Maxrss)
	}
	return cmd.ProcessState.ExitCode()
}

// peakRSS returns the peak resident memory (KiB) of one run of c, and the
// same for readstdin (the floor of the method).
func (b *bench) peakRSS(c *command) (kib, floor int64, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, err
	}
	measure := func(c *command) (int64, error) {
		w := *c
		w.Argv = append([]string{self, rssChildFlag}, c.Argv...)
		x, err := b.r.run(&w)
		if err != nil {
			return 0, err
		}
		for _, line := range strings.Split(string(x.Stderr), "\n") {
			if v, ok := strings.CutPrefix(line, "maxrss "); ok {
				return strconv.ParseInt(v, 10, 64)
			}
		}
		return 0, fmt.Errorf("%s: no maxrss line in %q", filepath.Base(c.Argv[0]), x.Stderr)
	}
	if kib, err = measure(c); err != nil {
		return 0, 0, err
	}
	floor, err = measure(&command{Argv: []string{b.exe("readstdin")}, Stdin: slices.Clone(c.Stdin)})
	return kib, floor, err
}
