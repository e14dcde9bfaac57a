package cli

import (
	"io"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// Project is a resolved project for callers outside the binaries (the
// porcelain): root, configuration, task store and plans store, resolved
// exactly as every binary resolves them (-C/--dir, $MATRIXX_PROJECT_DIR,
// $CLAUDE_PROJECT_DIR, config, storage layout, lock settings).
type Project struct {
	Root   string
	Config *config.Config
	Store  *store.Store
	Plans  *plan.Store
}

// OpenProject resolves the project of dir ("" for the default rule) with
// session as the threadID of writes ("" for $MATRIXX_SESSION_ID, else
// "no-session"). Config warnings go to stderr prefixed with name. Errors
// carry the binaries' codes (invalid_arguments, config_error,
// internal_error).
func OpenProject(name, dir, session string, stderr io.Writer) (*Project, error) {
	a := &app{name: name, stderr: stderr, stdout: io.Discard, env: project.OS()}
	e, err := a.open(&globals{Dir: dir, Session: session}, &writeFlags{})
	if err != nil {
		return nil, err
	}
	return &Project{
		Root: e.root, Config: e.cfg, Store: e.store,
		Plans: &plan.Store{Dir: plan.DirOf(e.root), Root: e.root, Lock: lock.Options{Timeout: e.store.Lock.Timeout, NoKernel: e.store.Lock.NoKernel}},
	}, nil
}
