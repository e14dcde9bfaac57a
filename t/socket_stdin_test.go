package t

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"golang.org/x/sys/unix"
)

// sockwrap runs a command whose stdin is one end of a Unix socket pair
// that it holds open and never closes, like the socket Claude Code gives
// a Bash command whose text holds "<" (it never sends a byte):
//
//	sockwrap [-send TEXT] [-close] [-late TEXT] [-after DUR] [-max DUR] PROG ARGS...
//
// -send writes TEXT at once, -close then shuts the writing side (end of
// file), -late writes TEXT after DUR (default 1s). -max (default 15s) is
// the watchdog: a command still running then is killed and sockwrap exits
// 124 saying it hung. Otherwise sockwrap exits with the command's status;
// the command's stdout and stderr are sockwrap's.
func sockwrap() {
	fs := flag.NewFlagSet("sockwrap", flag.ExitOnError)
	send := fs.String("send", "", "text to send at once")
	closeW := fs.Bool("close", false, "shut the writing side after -send")
	late := fs.String("late", "", "text to send after -after")
	after := fs.Duration("after", time.Second, "delay of -late")
	limit := fs.Duration("max", 15*time.Second, "watchdog")
	_ = fs.Parse(os.Args[1:])
	args := fs.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: sockwrap [-send TEXT] [-close] [-late TEXT] [-after DUR] [-max DUR] PROG ARGS...")
		os.Exit(2)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sockwrap:", err)
		os.Exit(3)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "sock-host"), os.NewFile(uintptr(fds[1]), "sock-child")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "sockwrap:", err)
		os.Exit(3)
	}
	theirs.Close()
	if *send != "" {
		_, _ = ours.WriteString(*send)
	}
	if *closeW {
		_ = unix.Shutdown(fds[0], unix.SHUT_WR)
	}
	if *late != "" {
		go func() {
			time.Sleep(*after)
			_, _ = ours.WriteString(*late)
		}()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ours.Close()
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "sockwrap:", err)
			os.Exit(3)
		}
		os.Exit(0)
	case <-time.After(*limit):
		_ = cmd.Process.Kill()
		fmt.Fprintf(os.Stderr, "sockwrap: %s still waiting on its socket stdin after %s (hung)\n", args[0], *limit)
		os.Exit(124)
	}
}
