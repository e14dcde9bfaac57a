package cli

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/go-json-experiment/json"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// globals are the flags every task binary takes.
type globals struct {
	Dir     string           `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor holding .matrixx/ or .git), resolved through symbolic links."`
	Session string           `name:"session" placeholder:"ID" help:"Session id stamped as threadID by writes (default: $MATRIXX_SESSION_ID, else $CLAUDE_CODE_SESSION_ID, else \"no-session\"); reads ignore it."`
	Pretty  bool             `help:"Indent the JSON answer."`
	Where   bool             `help:"Print what this command would use and why (project root, task store, config files and settings, session id, environment) as JSON, and do nothing else."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

// whereGlobals gives run the common flags of a command that embeds them,
// so --where is handled in one place for every binary.
func (g *globals) whereGlobals() *globals { return g }

// writeFlags are the flags of binaries that take the lock.
type writeFlags struct {
	LockTimeout *time.Duration `name:"lock-timeout" placeholder:"DUR" help:"Budget for taking the lock (task store or plans), e.g. 500ms, 30s (default: $MATRIXX_LOCK_TIMEOUT_MS, else 10s)."`
}

// env is the resolved context of one command.
type env struct {
	root  string
	cfg   *config.Config
	store *store.Store
	// before is the store's state before a write (noteNewStore).
	before storeState
	// integrity is what the second line covers (docs/integrity.md); the
	// stores record their writes in its ledgers.
	integrity *integrity.Project
}

// open resolves project root, config and store (D11, D12, spec §3.3) and
// prints config warnings on stderr.
func (a *app) open(g *globals, w *writeFlags) (*env, error) {
	a.pretty = g.Pretty
	if a.opened != nil {
		return a.opened, nil
	}
	root, err := project.Root(g.Dir, a.env)
	if err != nil {
		if errcode.Of(err) == errcode.InvalidArguments {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	ocDir := project.OpenCodeDir(a.env)
	cfg, err := config.Load(ocDir, root)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		a.warnf("warning: %s", w)
	}
	layout := store.Resolve(root, cfg.Tasks, a.env.Getenv("ULTRAWORK_TASK_LIST_ID"), ocDir)
	session := project.Session(g.Session, a.env)
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
		Log:          a.stderr,
	}
	st.Lock.NoKernel = a.env.Getenv("MATRIXX_NO_FLOCK") == "1"
	st.History = history.Open(layout.Dir)
	st.History.By = actor(session, a.env.Getenv)
	st.History.Command = a.name
	if a.env.Getenv("MATRIXX_FAULT_STOP_AFTER_LOCK_CHECK") == "1" {
		// Fault injection for the fencing tests (t/fault): the process
		// stops itself (SIGSTOP) between each write's last lock check and
		// its replace, the moment a late write would come from.
		st.AfterLockCheck = stopSelf
	}
	ip := integrity.NewProject(root, layout.Dir, ocDir, integrity.Home(a.env.Getenv, a.env.Home, root))
	if !cfg.HookDisabled(hook.NameIntegrity) {
		// Every write is recorded for the post-call check (docs/integrity.md);
		// with the check switched off nothing is.
		st.Record = ip.Tasks().Recorder()
	} else {
		ip = nil
	}
	if w != nil {
		if st.Lock.Timeout, err = a.lockTimeout(w.LockTimeout); err != nil {
			return nil, err
		}
	}
	if a.env.Getenv("MATRIXX_DEBUG") != "" {
		st.Debug = true
		st.OnLock = func(s lock.Stats) {
			b, _ := json.Marshal(s)
			fmt.Fprintf(a.stderr, "%s: debug: lock %s\n", a.name, b)
		}
	}
	a.opened = &env{root: root, cfg: cfg, store: st, before: newStoreState("task store", root, st.Dir), integrity: ip}
	return a.opened, nil
}

// actor is who this process's changes are recorded as in the history
// (docs/history.md): the session (none for "no-session"), the host name
// and the operating system's user ($USER, else $LOGNAME).
func actor(session string, getenv func(string) string) history.Actor {
	if session == project.NoSession {
		session = ""
	}
	host, _ := os.Hostname()
	user := getenv("USER")
	if user == "" {
		user = getenv("LOGNAME")
	}
	return history.Actor{Session: session, Host: host, User: user}
}

// checkSession refuses a session id (the threadID to stamp) that is not
// printable UTF-8 or is longer than 256 bytes.
func checkSession(s string) error {
	if len(s) > 256 || !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return errcode.New(errcode.InvalidArguments, "the session id (--session, MATRIXX_SESSION_ID or CLAUDE_CODE_SESSION_ID) must be printable UTF-8 of at most 256 bytes")
	}
	return nil
}

// stopSelf stops this process with SIGSTOP before it returns (fault
// injection only). The signal is sent to the calling thread (tgkill, with
// the goroutine locked to it), not to the process: a process-directed
// SIGSTOP may be taken by another thread, and the caller then keeps
// running until the group stop reaches it — on a loaded machine long
// enough to finish the very write the stop was meant to hold back.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
}
