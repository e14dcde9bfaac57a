package cli

// TEMPORARY: task-claim and task-doctor are built on another branch (issue
// 10) as cli.TaskClaim and cli.TaskDoctor; these stubs only let matrixx-mcp
// compile until they land. The lead deletes this file at merge.

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// TaskClaim is a stub: it answers invalid_arguments "not built yet".
func TaskClaim(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{name: "task-claim", stdin: stdin, stdout: stdout, stderr: stderr}
	return a.fail(errcode.New(errcode.InvalidArguments, "task-claim is not built yet"))
}

// TaskDoctor is a stub: it answers invalid_arguments "not built yet".
func TaskDoctor(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{name: "task-doctor", stdin: stdin, stdout: stdout, stderr: stderr}
	return a.fail(errcode.New(errcode.InvalidArguments, "task-doctor is not built yet"))
}
