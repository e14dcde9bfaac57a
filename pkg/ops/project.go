package ops

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/tasksync"
)

// Project is a resolved project: root, configuration and task store,
// resolved exactly as every binary resolves them (-C/--dir,
// $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, config, storage layout, lock
// settings).
type Project struct {
	Root   string
	Config *config.Config
	Store  *store.Store
	// Integrity is what the post-call integrity check covers
	// (docs/integrity.md); the stores record their writes in its ledgers.
	// nil when the check is switched off.
	Integrity *integrity.Project
	// Before is the task store's state before a write (NoteNewStore).
	Before StoreState
}

// Plans returns the project's plans store, with the task store's lock
// settings, recording its writes for the integrity check.
func (p *Project) Plans() *plan.Store {
	s := &plan.Store{
		Dir:  plan.DirOf(p.Root),
		Root: p.Root,
		Lock: lock.Options{Timeout: p.Store.Lock.Timeout, NoKernel: p.Store.Lock.NoKernel},
	}
	if p.Integrity != nil {
		s.Record = p.Integrity.Plans().Recorder()
	}
	return s
}

// Project resolves the project root, config and task store (the first
// call; later calls return the same project) and prints config warnings
// on Stderr. Errors carry the binaries' codes (invalid_arguments,
// config_error, internal_error).
func (o *Ops) Project() (*Project, error) {
	if o.opened != nil {
		return o.opened, nil
	}
	env := o.env.Proc
	root, err := project.Root(o.env.Dir, env)
	if err != nil {
		if errcode.Of(err) == errcode.InvalidArguments {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	ocDir := project.OpenCodeDir(env)
	cfg, err := config.Load(ocDir, root)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		o.Warnf("warning: %s", w)
	}
	layout := store.Resolve(root, cfg.Tasks, env.Getenv("ULTRAWORK_TASK_LIST_ID"), ocDir)
	session := project.Session(o.env.Session, env)
	if err := checkSession(session); err != nil {
		return nil, err
	}
	st := &store.Store{
		Dir:          layout.Dir,
		Root:         root,
		Own:          layout.Own,
		Session:      session,
		LegacyDir:    layout.LegacyDir,
		StaleAfter:   time.Duration(cfg.Tasks.StaleAfterHours * float64(time.Hour)),
		PluginSchema: cfg.Tasks.PluginSchema,
		Log:          o.env.Stderr,
	}
	st.Lock.NoKernel = env.Getenv("MATRIXX_NO_FLOCK") == "1"
	st.History = history.Open(layout.Dir)
	st.History.By = actor(session, env.Getenv)
	st.History.Command = o.env.Name
	ip := integrity.NewProject(root, layout.Dir, ocDir, integrity.Home(env.Getenv, env.Home, root))
	if !cfg.HookDisabled(config.IntegrityHook) {
		// Every write is recorded for the post-call check (docs/integrity.md);
		// with the check switched off nothing is.
		st.Record = ip.Tasks().Recorder()
	} else {
		ip = nil
	}
	if o.env.Write {
		if st.Lock.Timeout, err = o.lockTimeout(); err != nil {
			return nil, err
		}
	}
	st.LogDecisions = env.Getenv("MATRIXX_DEBUG") != ""
	o.opened = &Project{Root: root, Config: cfg, Store: st, Integrity: ip,
		Before: NewStoreState("task store", root, st.Dir)}
	return o.opened, nil
}

// actor is who this process's changes are recorded as in the history
// (docs/history.md): the session (none for "no-session"), the host name
// and the operating system's user (history.Here).
func actor(session string, getenv func(string) string) history.Actor {
	if session == project.NoSession {
		session = ""
	}
	a := history.Here(getenv)
	a.Session = session
	return a
}

// checkSession refuses a session id (the threadID to stamp) that is not
// printable UTF-8 or is longer than 256 bytes.
func checkSession(s string) error {
	if len(s) > 256 || !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return errcode.New(errcode.InvalidArguments, "the session id (--session, MATRIXX_SESSION_ID or CLAUDE_CODE_SESSION_ID) must be printable UTF-8 of at most 256 bytes")
	}
	return nil
}

// lockTimeout resolves the lock budget: LockTimeout, else
// $MATRIXX_LOCK_TIMEOUT_MS, else the lock package default (0).
func (o *Ops) lockTimeout() (time.Duration, error) {
	if flag := o.env.LockTimeout; flag != nil {
		if *flag <= 0 {
			return 0, errcode.New(errcode.InvalidArguments, "--lock-timeout must be positive, e.g. 500ms or 30s")
		}
		return *flag, nil
	}
	if v := o.env.Proc.Getenv("MATRIXX_LOCK_TIMEOUT_MS"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return 0, errcode.New(errcode.InvalidArguments, "MATRIXX_LOCK_TIMEOUT_MS=%q is not a positive number of milliseconds", v)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	return 0, nil
}

// SyncOptions is what task-sync and task-claim --remote move and where:
// the store, the plans, their locks and their integrity recorders.
func (o *Ops) SyncOptions(p *Project) tasksync.Options {
	opt := tasksync.Options{
		Root:         p.Root,
		TasksDir:     p.Store.Dir,
		PlansDir:     plan.DirOf(p.Root),
		StateDir:     filepath.Join(p.Root, ".matrixx", "state"),
		Lock:         lock.Options{Timeout: p.Store.Lock.Timeout, NoKernel: p.Store.Lock.NoKernel},
		Log:          o.env.Stderr,
		LogDecisions: p.Store.LogDecisions,
		// Recorded like every write of the toolkit (docs/integrity.md), so
		// the post-call check keeps what a sync in a tool call pulled.
		TasksRecord: p.Store.Record,
	}
	if p.Integrity != nil {
		opt.PlansRecord = p.Integrity.Plans().Recorder()
	}
	return opt
}

// ResetSchedule makes the session's PostToolUse hook look at its claims
// at the next tool call, so a new lease is renewed in time.
func (p *Project) ResetSchedule() {
	session := p.Store.Session
	if session == "" || session == project.NoSession || p.Root == "" {
		return
	}
	_ = claim.Schedule{Dir: claim.ScheduleDir(p.Root)}.Reset(session)
}

// Open resolves the project of dir ("" for the default rule) in the
// process's own environment, as a writing command would (the lock budget
// resolved), with session as the threadID of writes ("" for the default).
// Config warnings go to stderr prefixed with name.
func Open(name, dir, session string, stderr io.Writer) (*Project, error) {
	return New(Env{Name: name, Stderr: stderr, Dir: dir, Session: session, Write: true}).Project()
}
