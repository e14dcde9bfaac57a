// Package project resolves who and where a command runs for:
// the project root, the session id stamped as threadID, and the OpenCode
// config directory.
package project

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// NoSession is the threadID stamped on tasks created outside any agent
// session (no --session flag, no MATRIXX_SESSION_ID). The continuation hook
// never counts such tasks as a session's work.
const NoSession = "no-session"

// Env is the part of the process environment resolution reads. Tests fill
// it by hand; OS returns the real one.
type Env struct {
	Getenv func(string) string
	Getwd  func() (string, error)
	Home   func() (string, error)
}

// OS returns the process's own environment.
func OS() Env {
	return Env{Getenv: os.Getenv, Getwd: os.Getwd, Home: os.UserHomeDir}
}

// Root returns the project root: dirFlag (-C DIR), else
// $MATRIXX_PROJECT_DIR, else $CLAUDE_PROJECT_DIR, else the nearest ancestor
// of the working directory holding .matrixx/ or .git, else the working
// directory. A root that is the top of a linked git worktree (LinkedWorktree)
// is replaced by its repository's store root, the main worktree (or the
// common git directory of a bare repository), so every worktree of a
// repository shares one store (docs/worktrees.md). The result is canonical (docs/design/decisions.md): absolute,
// cleaned and resolved through symbolic links (filepath.EvalSymlinks), so
// a project reached through a link (or macOS /tmp → /private/tmp) has one
// root however it was named; the working directory is resolved before the
// walk up, as git does. A root named by the flag or an environment
// variable must be an existing directory (a typo must not create a new
// store): else invalid_arguments.
func Root(dirFlag string, env Env) (string, error) {
	root, _, err := RootSource(dirFlag, env)
	return root, err
}

// RootSource is Root with why: "-C", "MATRIXX_PROJECT_DIR",
// "CLAUDE_PROJECT_DIR", the marker found ("<root>/.matrixx" or
// "<root>/.git"), or "" when no marker was found and the working directory
// is the root (a write then creates a new store there).
func RootSource(dirFlag string, env Env) (root, source string, err error) {
	wd, err := env.Getwd()
	if err != nil {
		return "", "", err
	}
	for _, src := range []struct{ name, dir string }{
		{"-C", dirFlag},
		{"MATRIXX_PROJECT_DIR", env.Getenv("MATRIXX_PROJECT_DIR")},
		{"CLAUDE_PROJECT_DIR", env.Getenv("CLAUDE_PROJECT_DIR")},
	} {
		d := src.dir
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(wd, d)
		}
		d = filepath.Clean(d)
		if !isDir(d) {
			return "", "", errcode.New(errcode.InvalidArguments, "%s names %s, which is not an existing directory", src.name, d)
		}
		root = Canonical(d)
		if w, ok := LinkedWorktree(root); ok && env.Getenv(OwnStoreVar) != "own" {
			return w.StoreRoot, src.name + " (" + sharedStore(w) + ")", nil
		}
		return root, src.name, nil
	}
	if !filepath.IsAbs(wd) {
		wd, _ = filepath.Abs(wd)
	}
	// Every ancestor of a resolved directory is resolved too.
	root = Discover(Canonical(wd))
	if w, ok := LinkedWorktree(root); ok && env.Getenv(OwnStoreVar) != "own" {
		return w.StoreRoot, filepath.Join(root, ".git") + " (" + sharedStore(w) + ")", nil
	}
	return root, Marker(root), nil
}

// sharedStore says why a linked worktree's root is another directory.
func sharedStore(w *Worktree) string {
	if w.Bare() {
		return "a linked git worktree of the bare repository " + w.Common + ": every worktree shares the store in " + filepath.Join(w.Common, ".matrixx")
	}
	return "a linked git worktree: every worktree of the repository shares the main worktree's store, " + filepath.Join(w.StoreRoot, ".matrixx")
}

// Marker names what makes dir a project root: "<dir>/.matrixx" or
// "<dir>/.git", or "" when it holds neither.
func Marker(dir string) string {
	switch {
	case isDir(filepath.Join(dir, ".matrixx")):
		return filepath.Join(dir, ".matrixx")
	case exists(filepath.Join(dir, ".git")):
		return filepath.Join(dir, ".git")
	}
	return ""
}

// Canonical returns dir cleaned and resolved through symbolic links,
// or dir cleaned when it cannot be resolved (it does not exist, or
// a component is unreadable). dir should be absolute.
func Canonical(dir string) string {
	dir = filepath.Clean(dir)
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// Matcher tells whether a task record belongs to the current project by
// its projectRoot (docs/design/decisions.md). It is meant for one command (its
// cache of resolved roots is never invalidated) and is not safe for
// concurrent use.
type Matcher struct {
	root  string
	own   bool
	canon string          // root resolved again, lazily (roots not from Root)
	seen  map[string]bool // recordRoot → verdict, for roots that differ textually
}

// NewMatcher returns the Matcher of the project at root (Root's canonical
// result). own says the task store is the project's own directory,
// <root>/.matrixx/tasks (store.Layout.Own): every record in it belongs to
// the project whatever its projectRoot says, so a moved, renamed,
// re-linked, cloned or copied project keeps its tasks.
func NewMatcher(root string, own bool) *Matcher {
	return &Matcher{root: root, own: own}
}

// Same reports whether a record whose projectRoot is recordRoot belongs to
// the project: always in the project's own store; in a shared store (scope
// global, a storage_path) when recordRoot is empty (a record that names no
// project counts for whichever project reads it), equals the root, or
// names the same directory once both are resolved through symbolic links.
// A root that no longer exists or is relative names another project. Each
// distinct recordRoot that differs textually is resolved at most once per
// Matcher, so a scan of 10,000 records costs a string compare each, plus
// one EvalSymlinks per other project.
func (m *Matcher) Same(recordRoot string) bool {
	if m.own || recordRoot == "" || m.root == "" || recordRoot == m.root {
		return true
	}
	if v, ok := m.seen[recordRoot]; ok {
		return v
	}
	if m.seen == nil {
		m.seen = map[string]bool{}
		m.canon = Canonical(m.root)
	}
	v := false
	if filepath.IsAbs(recordRoot) {
		if r, err := filepath.EvalSymlinks(recordRoot); err == nil {
			v = r == m.canon
		}
	}
	m.seen[recordRoot] = v
	return v
}

// Discover walks up from dir to the nearest directory holding .matrixx/ or
// .git and returns it, or dir itself when there is none.
func Discover(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if isDir(filepath.Join(d, ".matrixx")) || exists(filepath.Join(d, ".git")) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Session returns the threadID to stamp: the --session flag, else
// $MATRIXX_SESSION_ID, else $CLAUDE_CODE_SESSION_ID (Claude Code puts it
// into every Bash command's environment, so threadIDs are right even
// where the SessionStart hook's CLAUDE_ENV_FILE export was not honoured),
// else $CODEX_SESSION_ID (Codex CLI sets it in the agent's shell, to the
// session_id of its hook events), else NoSession.
func Session(flag string, env Env) string {
	s, _ := SessionSource(flag, env)
	return s
}

// SessionSource is Session with where the id came from: "--session", the
// variable's name, or "" for NoSession.
func SessionSource(flag string, env Env) (id, source string) {
	if s := strings.TrimSpace(flag); s != "" {
		return s, "--session"
	}
	for _, v := range []string{"MATRIXX_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_SESSION_ID"} {
		if s := strings.TrimSpace(env.Getenv(v)); s != "" {
			return s, v
		}
	}
	return NoSession, ""
}

// OpenCodeDir returns the OpenCode config directory:
// $OPENCODE_CONFIG_DIR trimmed as JavaScript's String.prototype.trim does
// (TrimJS) and made absolute against the working directory, as the
// original does, else $XDG_CONFIG_HOME/opencode, else
// ~/.config/opencode. It is "" when none can be determined.
func OpenCodeDir(env Env) string {
	if d := TrimJS(env.Getenv("OPENCODE_CONFIG_DIR")); d != "" {
		// As the original: trimmed, then resolved against the working
		// directory (Node's path.resolve).
		if !filepath.IsAbs(d) {
			if wd, err := env.Getwd(); err == nil {
				d = filepath.Join(wd, d)
			}
		}
		return filepath.Clean(d)
	}
	if d := env.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "opencode")
	}
	home, err := env.Home()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "opencode")
}

// TrimJS trims s as JavaScript's String.prototype.trim does, which is how
// the original trims ULTRAWORK_TASK_LIST_ID, tasks.task_list_id and
// OPENCODE_CONFIG_DIR: white space (Unicode Zs, TAB, VT, FF, U+00A0,
// U+FEFF) and line terminators (LF, CR, U+2028, U+2029). Unlike Go's
// strings.TrimSpace it trims U+FEFF and keeps U+0085 (NEL).
func TrimJS(s string) string {
	return strings.TrimFunc(s, jsSpace)
}

func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}
