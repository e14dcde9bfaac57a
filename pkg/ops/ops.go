// Package ops holds the operations every front end calls: the task
// binaries, plan, the porcelain (matrixx) and the MCP server
// (matrixx-mcp). An operation takes a typed request and returns a typed
// answer; it reads nothing from the process itself. What it needs of its
// environment (the environment variables, the working directory, the home
// directory, where diagnostics go, the -C and --session values) comes in
// an Env value, so a server can run many operations at once for different
// projects without touching process state.
//
// Front ends are leaves: they turn their input (flags and a stdin
// document, MCP arguments, a person's command line) into a request, call
// an operation, and render the answer. docs/design/operations.md says where
// a new command or flag goes.
package ops

import (
	"fmt"
	"io"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// Env is the environment of one front-end call.
type Env struct {
	// Name is the command's name, the prefix of its diagnostics on Stderr
	// ("task-update: warning: …").
	Name string
	// Proc is the process environment: variables, working directory, home.
	Proc project.Env
	// Stderr receives the human diagnostics (warnings, notes); nil
	// discards them.
	Stderr io.Writer
	// Dir is the project root asked for (-C DIR); "" for the default rule
	// (project.Root).
	Dir string
	// Session is the session id asked for (--session); "" for the default
	// (project.Session).
	Session string
	// Write says the call may take the lock: its budget is resolved
	// (LockTimeout, else $MATRIXX_LOCK_TIMEOUT_MS, else the lock's
	// default) and a bad value is refused.
	Write bool
	// LockTimeout is the lock budget asked for (--lock-timeout); nil for
	// the default.
	LockTimeout *time.Duration
}

// Ops runs operations in one Env. The project is resolved on first use and
// kept: one call, one project (config warnings print once).
type Ops struct {
	env    Env
	opened *Project
}

// New returns the operations of env.
func New(env Env) *Ops {
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	osEnv := project.OS()
	if env.Proc.Getenv == nil {
		env.Proc.Getenv = osEnv.Getenv
	}
	if env.Proc.Getwd == nil {
		env.Proc.Getwd = osEnv.Getwd
	}
	if env.Proc.Home == nil {
		env.Proc.Home = osEnv.Home
	}
	return &Ops{env: env}
}

// Env returns the environment the operations run in.
func (o *Ops) Env() Env { return o.env }

// Warnf prints a human diagnostic on Stderr, prefixed with the command's
// name.
func (o *Ops) Warnf(format string, args ...any) {
	fmt.Fprintf(o.env.Stderr, "%s: "+format+"\n", append([]any{o.env.Name}, args...)...)
}
