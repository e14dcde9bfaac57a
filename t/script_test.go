// Package t runs the end-to-end testscript files (t/*.txtar) against the
// real binaries: testscript.Main registers every binary of the toolkit, so
// scripts call them by name, pipe them through sh, and run many at once.
package t

import (
	"fmt"
	"os"
	"testing"

	gojq "github.com/itchyny/gojq/cli"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/matrixx-dev/matrixx-tasks/examples/waves/demo"
	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/hookcmd"
	"github.com/matrixx-dev/matrixx-tasks/pkg/porcelain"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"task-create":  recorded("task-create", cli.TaskCreate),
		"task-get":     recorded("task-get", cli.TaskGet),
		"task-list":    recorded("task-list", cli.TaskList),
		"task-update":  recorded("task-update", cli.TaskUpdate),
		"task-cleanup": recorded("task-cleanup", cli.TaskCleanup),
		"task-claim":   recorded("task-claim", cli.TaskClaim),
		"task-doctor":  recorded("task-doctor", cli.TaskDoctor),
		"plan":         recorded("plan", cli.Plan),
		"task-sync":    recorded("task-sync", cli.TaskSync),
		"task-feed":    recorded("task-feed", cli.TaskFeed),
		"matrixx-hook": recorded("matrixx-hook", hookcmd.Main),
		"matrixx":      recorded("matrixx", porcelain.Main),
		// sockwrap gives a command a socket stdin that never closes
		// (socket_stdin_test.go).
		"sockwrap": sockwrap,
		// waves-demo is make demo (examples/waves) with the binaries on PATH.
		"waves-demo": func() { os.Exit(demo.Main(append([]string{"-bin", ""}, os.Args[1:]...), os.Stdout, os.Stderr)) },
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
		// [listindex]: task-list's list index is used under the test's
		// temp directory (a local disk filesystem, not tmpfs).
		Condition: func(cond string) (bool, error) {
			if cond == "listindex" {
				return store.ListIndexUsable(os.TempDir()), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		// UPDATE_GOLDEN=1 rewrites the cmp files of the scripts run (then
		// review the diff).
		UpdateScripts: os.Getenv("UPDATE_GOLDEN") != "",
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
	env.Setenv("CLAUDE_CODE_SESSION_ID", "")
	env.Setenv("ULTRAWORK_TASK_LIST_ID", "")
	env.Setenv("MATRIXX_LOCK_TIMEOUT_MS", "")
	env.Setenv("MATRIXX_NO_FLOCK", "")
	env.Setenv("MATRIXX_DEBUG", "")
	// The porcelain's output decisions (docs/porcelain.md): no width limit,
	// Unicode, no colour unless a script asks.
	env.Setenv("COLUMNS", "")
	env.Setenv("LANG", "")
	env.Setenv("LC_ALL", "")
	env.Setenv("LC_CTYPE", "")
	env.Setenv("NO_COLOR", "")
	env.Setenv("MATRIXX_OWNER", "")
	if err := recordCalls(env); err != nil {
		return err
	}
	// Scripts change the store directly between hook events (fixtures);
	// the integrity scripts switch the second line back on.
	env.Setenv("MATRIXX_INTEGRITY", "off")
	env.Setenv("XDG_STATE_HOME", "")
	return os.MkdirAll(work+"/home", 0o755)
}
