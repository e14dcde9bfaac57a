package app

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
)

// Ops returns the operations of this invocation, in its environment with
// the flags g and w (nil: a command that takes no lock). The first call
// decides: one command, one project.
func (a *App) Ops(g *commands.Globals, w *commands.WriteFlags) *ops.Ops {
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
func (a *App) Open(g *commands.Globals, w *commands.WriteFlags) (*ops.Project, error) {
	a.Pretty = g.Pretty
	return a.Ops(g, w).Project()
}

// Where prints ops.Ops.Where's answer for the flags g (the --where flag).
func (a *App) Where(g *commands.Globals) error {
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
