package app

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// Main is the signature every binary's function has (TaskCreate, TaskList,
// Plan, …): the arguments without the program name, the three streams, and
// the exit status it returns (0 ok, 1 tool error, 2 usage error, 3 partial
// create; pkg/errcode).
type Main func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// RunIn runs one binary's main in this process as if it had been started in
// env: project root discovery, MATRIXX_* and CLAUDE_PROJECT_DIR, the config
// directory and the home directory are read from env (project.Env) instead of
// the process, so a host such as matrixx-mcp can run many commands at once for
// different directories without touching process state (no os.Chdir, no
// os.Setenv). stdin is read as the binary would read a pipe: a document is
// read to its end, never peeked at for a terminal. The answer on stdout and
// the exit status are exactly the binary's; nothing of the process is changed
// (task-list's garbage-collector tuning, meant for a short-lived process, is
// skipped).
//
// Only binaries whose function goes through this package's command-line
// runner honour env (every task binary and plan; matrixx-hook's event mode
// does not).
func RunIn(main Main, env project.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdin == nil {
		stdin = eofReader{}
	}
	return main(args, &inProcess{Reader: stdin, env: env}, stdout, stderr)
}

// inProcess carries RunIn's environment through a binary's main to run: the
// functions keep the signature of a process's main, so the environment rides
// on the stdin they already take.
type inProcess struct {
	io.Reader
	env project.Env
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
