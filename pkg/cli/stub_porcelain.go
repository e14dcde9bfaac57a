package cli

// TEMPORARY: task-sync (issue 15) is built on another branch as
// cli.TaskSync; this stub only lets matrixx compile until it lands. The
// lead deletes this file at merge.

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func notBuilt(name string, stdout, stderr io.Writer) int {
	a := &app{name: name, stdout: stdout, stderr: stderr}
	return a.fail(errcode.New(errcode.InternalError, "%s is not built yet", name))
}

// TaskSync is a stub: internal_error "not built yet".
func TaskSync(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return notBuilt("task-sync", stdout, stderr)
}
