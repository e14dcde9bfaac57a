// Package t runs the end-to-end testscript files (t/*.txtar) against the
// real binaries: testscript.Main registers every binary of the toolkit, so
// scripts call them by name, pipe them through sh, and run many at once.
package t

import (
	"os"
	"testing"

	gojq "github.com/itchyny/gojq/cli"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"task-create":  func() { os.Exit(cli.TaskCreate(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"task-get":     func() { os.Exit(cli.TaskGet(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"task-list":    func() { os.Exit(cli.TaskList(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"task-update":  func() { os.Exit(cli.TaskUpdate(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"task-cleanup": func() { os.Exit(cli.TaskCleanup(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"plan":         func() { os.Exit(cli.Plan(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"task-sync":    func() { os.Exit(cli.TaskSync(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		"matrixx-hook": func() { os.Exit(cli.MatrixxHook(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// jq for pipelines in scripts, so tests need no system jq.
		"jq": func() { os.Exit(gojq.Run()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		Cmds:                commands(),
		Setup:               setup,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// setup isolates every script: a HOME and OpenCode config dir of its own,
// no inherited MATRIXX_* variables.
func setup(env *testscript.Env) error {
	work := env.WorkDir
	env.Setenv("HOME", work+"/home")
	env.Setenv("OPENCODE_CONFIG_DIR", work+"/home/.config/opencode")
	env.Setenv("XDG_CONFIG_HOME", "")
	env.Setenv("MATRIXX_SESSION_ID", "")
	env.Setenv("MATRIXX_PROJECT_DIR", "")
	env.Setenv("CLAUDE_PROJECT_DIR", "")
	env.Setenv("ULTRAWORK_TASK_LIST_ID", "")
	env.Setenv("MATRIXX_LOCK_TIMEOUT_MS", "")
	env.Setenv("MATRIXX_NO_FLOCK", "")
	env.Setenv("MATRIXX_DEBUG", "")
	return os.MkdirAll(work+"/home", 0o755)
}
