package t

import (
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func boardCommands() map[string]scriptCmd {
	return map[string]scriptCmd{"waitfile": cmdWaitFile}
}

// waitfile FILE REGEXP: wait until FILE (written by a background command)
// matches REGEXP, for up to 60 seconds (a loaded machine is slow, a
// broken feed never gets there).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s does not match %q after 60s; it holds:\n%s", args[0], args[1], b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
