package cli

// TEMPORARY: task-claim, task-doctor (issue 10) and task-sync (issue 15)
// are built on other branches as cli.TaskClaim, cli.TaskDoctor and
// cli.TaskSync; these stubs only let matrixx compile until they land. The
// lead deletes this file at merge.

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func notBuilt(name string, stdout, stderr io.Writer) int {
	a := &app{name: name, stdout: stdout, stderr: stderr}
	return a.fail(errcode.New(errcode.InternalError, "%s is not built yet", name))
}

// TaskClaim is a stub: internal_error "not built yet".
func TaskClaim(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notBuilt("task-claim", stdout, stderr)
}

// TaskDoctor is a stub: internal_error "not built yet".
func TaskDoctor(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notBuilt("task-doctor", stdout, stderr)
}

// TaskSync is a stub: internal_error "not built yet".
func TaskSync(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notBuilt("task-sync", stdout, stderr)
}
