package hook

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"os"
	"path/filepath"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// proj is the project an event belongs to.
type proj struct {
	root  string
	cfg   *config.Config
	store *store.Store
}

// root resolves the event's project root: -C DIR, else
// $MATRIXX_PROJECT_DIR, else $CLAUDE_PROJECT_DIR, else the nearest ancestor
// of the event's cwd (of the process's working directory when the event
// has no absolute cwd) holding .matrixx/ or .git.
func (r *Runner) root(ev *Event) (string, error) {
	if r.roots.ev == ev && r.roots.ok {
		return r.roots.root, r.roots.err
	}
	root, err := r.findRoot(ev)
	r.roots = rootMemo{ev: ev, ok: true, root: root, err: err}
	return root, err
}

// rootMemo is root's answer for one event.
type rootMemo struct {
	ev   *Event
	ok   bool
	root string
	err  error
}

// findRoot is root without the memo.
func (r *Runner) findRoot(ev *Event) (string, error) {
	env := r.Env
	if ev != nil && filepath.IsAbs(ev.Cwd) {
		cwd := ev.Cwd
		env.Getwd = func() (string, error) { return cwd, nil }
	}
	if env.Getwd == nil {
		env.Getwd = os.Getwd
	}
	return project.Root(r.Dir, env)
}

// project resolves root, config and store. A config error is returned
// together with a usable project on defaults, so each hook can decide
// whether a broken config file stops it.
func (r *Runner) project(ev *Event) (*proj, error) {
	root, err := r.root(ev)
	if err != nil {
		return nil, err
	}
	ocDir := ""
	if r.Env.Home != nil || r.Env.Getenv("OPENCODE_CONFIG_DIR") != "" || r.Env.Getenv("XDG_CONFIG_HOME") != "" {
		ocDir = project.OpenCodeDir(r.Env)
	}
	cfg, cfgErr := config.Load(ocDir, root)
	if cfgErr != nil {
		cfg = &config.Config{Tasks: config.Defaults(), DisabledHooks: []string{}}
	}
	layout := store.Resolve(root, cfg.Tasks, r.Env.Getenv("ULTRAWORK_TASK_LIST_ID"), ocDir)
	st := &store.Store{
		Dir:        layout.Dir,
		Root:       root,
		Own:        layout.Own,
		Session:    project.NoSession,
		StaleAfter: time.Duration(cfg.Tasks.StaleAfterHours * float64(time.Hour)),
		Now:        r.Now,

		PluginSchema: cfg.Tasks.PluginSchema,
	}
	st.Lock.NoKernel = r.Env.Getenv("MATRIXX_NO_FLOCK") == "1"
	// The Stop and SessionStart hooks read every task: through the list
	// index, as task-list does.
	st.ListIndex = store.ListIndexFor(r.integrityHome(root), integrity.ProjectHome(root), layout.Dir, r.Env.Getenv("MATRIXX_NO_LIST_INDEX") == "1")
	st.History = history.Open(layout.Dir)
	st.History.Command = "matrixx-hook"
	st.History.By = history.Here(r.Env.Getenv)
	st.History.Now = r.Now
	if !r.off() && !cfg.HookDisabled(NameIntegrity) {
		// The hooks' own store writes (lease renewals) are recorded like
		// the binaries', so the integrity check never takes them for a
		// change made behind the toolkit's back (docs/integrity.md).
		st.Record = integrity.NewProject(root, layout.Dir, ocDir, r.integrityHome(root)).Tasks().Recorder()
	}
	return &proj{root: root, cfg: cfg, store: st}, cfgErr
}
