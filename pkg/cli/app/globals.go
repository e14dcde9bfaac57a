package app

import (
	"time"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
)

// Globals are the flags every task binary takes.
type Globals struct {
	Dir     string           `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor holding .matrixx/ or .git), resolved through symbolic links."`
	Session string           `name:"session" placeholder:"ID" help:"Session id stamped as threadID by writes (default: $MATRIXX_SESSION_ID, else $CLAUDE_CODE_SESSION_ID, else \"no-session\"); reads ignore it."`
	Pretty  bool             `help:"Indent the JSON answer."`
	Where   bool             `help:"Print what this command would use and why (project root, task store, config files and settings, session id, environment) as JSON, and do nothing else."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

// WhereGlobals gives Run the common flags of a command that embeds them,
// so --where is handled in one place for every binary.
func (g *Globals) WhereGlobals() *Globals { return g }

// WriteFlags are the flags of binaries that take the lock.
type WriteFlags struct {
	LockTimeout *time.Duration `name:"lock-timeout" placeholder:"DUR" help:"Budget for taking the lock (task store or plans), e.g. 500ms, 30s (default: $MATRIXX_LOCK_TIMEOUT_MS, else 10s)."`
}

// Ops returns the operations of this invocation, in its environment with
// the flags g and w (nil: a command that takes no lock). The first call
// decides: one command, one project.
func (a *App) Ops(g *Globals, w *WriteFlags) *ops.Ops {
	if a.ops == nil {
		env := ops.Env{Name: a.Name, Proc: a.Env, Stderr: a.Stderr, Dir: g.Dir, Session: g.Session}
		if w != nil {
			env.Write, env.LockTimeout = true, w.LockTimeout
		}
		a.ops = ops.New(env)
	}
	return a.ops
}

// Open resolves the project (ops.Ops.Project) and takes --pretty.
func (a *App) Open(g *Globals, w *WriteFlags) (*ops.Project, error) {
	a.Pretty = g.Pretty
	return a.Ops(g, w).Project()
}

// Where prints ops.Ops.Where's answer for the flags g (the --where flag).
func (a *App) Where(g *Globals) error {
	a.Pretty = g.Pretty
	ans, err := a.Ops(g, nil).Where()
	if err != nil {
		return err
	}
	a.Emit(ans)
	return nil
}

// NoteNewStore says where a write created a new store
// (ops.Ops.NoteNewStore).
func (a *App) NoteNewStore(s ops.StoreState) {
	if a.ops != nil {
		a.ops.NoteNewStore(s)
	}
}
