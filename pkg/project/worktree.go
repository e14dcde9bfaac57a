package project

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// maxGitFile bounds what is read of a .git file, commondir or HEAD: each
// holds one line.
const maxGitFile = 4096

// Worktree is a linked git worktree (git worktree add) whose tasks,
// plans, config and hook state live in the store of its repository
// (docs/worktrees.md): every worktree of a repository shares one queue.
type Worktree struct {
	// Dir is the worktree's top directory (the one holding the .git file).
	Dir string
	// GitDir is its private git directory (<common>/worktrees/<name>),
	// which holds its HEAD.
	GitDir string
	// Common is the repository's common git directory.
	Common string
	// StoreRoot is the directory whose .matrixx/ holds the shared store:
	// the main worktree (the parent of Common when Common is named .git),
	// else, for a bare repository, Common itself.
	StoreRoot string
}

// Bare reports whether the repository has no main worktree (its store
// lives in the common git directory).
func (w *Worktree) Bare() bool { return w.StoreRoot == w.Common }

// LinkedWorktree reports whether dir is the top of a linked worktree: its
// .git is a file "gitdir: PATH" whose git directory holds a commondir
// file. It costs one lstat for a directory whose .git is a directory, and
// two small reads more for a linked worktree; it runs no git. A main
// worktree whose git directory lives elsewhere (git init
// --separate-git-dir) and a submodule have no commondir: they are not
// linked worktrees and keep their own store.
func LinkedWorktree(dir string) (*Worktree, bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotGit)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, ok := readSmall(dotGit)
	if !ok {
		return nil, false
	}
	line, ok := strings.CutPrefix(firstLine(data), "gitdir:")
	if !ok {
		return nil, false
	}
	gitDir := strings.TrimSpace(line)
	if gitDir == "" {
		return nil, false
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(dir, gitDir)
	}
	gitDir = filepath.Clean(gitDir)
	data, ok = readSmall(filepath.Join(gitDir, "commondir"))
	if !ok {
		return nil, false
	}
	common := strings.TrimSpace(firstLine(data))
	if common == "" {
		return nil, false
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	common = Canonical(common)
	w := &Worktree{Dir: dir, GitDir: gitDir, Common: common, StoreRoot: common}
	if filepath.Base(common) == ".git" {
		w.StoreRoot = filepath.Dir(common)
	}
	if w.StoreRoot == dir {
		return nil, false // a .git file that leads back to itself
	}
	return w, true
}

// Branch returns the branch checked out in a git directory (its HEAD
// "ref: refs/heads/NAME"), "" for a detached HEAD or an unreadable one.
func Branch(gitDir string) string {
	data, ok := readSmall(filepath.Join(gitDir, "HEAD"))
	if !ok {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(firstLine(data)), "ref:")
	if !ok {
		return ""
	}
	return strings.TrimPrefix(strings.TrimSpace(ref), "refs/heads/")
}

// Checkout is where a command runs inside a repository: the worktree's
// top directory and its branch. For the main worktree Dir is the project
// root; Branch is "" outside git or on a detached HEAD.
type Checkout struct {
	Dir    string
	Branch string
}

// CheckoutOf returns the checkout of a working directory: the nearest
// ancestor holding .git (a linked worktree, or a main worktree), and its
// branch. Dir is "" outside any git checkout.
func CheckoutOf(wd string) Checkout {
	for d := filepath.Clean(wd); ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			if fi.IsDir() {
				return Checkout{Dir: d, Branch: Branch(dotGit)}
			}
			if w, ok := LinkedWorktree(d); ok {
				return Checkout{Dir: d, Branch: Branch(w.GitDir)}
			}
			if data, ok := readSmall(dotGit); ok {
				if g, ok := strings.CutPrefix(firstLine(data), "gitdir:"); ok {
					g = strings.TrimSpace(g)
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					return Checkout{Dir: d, Branch: Branch(g)}
				}
			}
			return Checkout{Dir: d}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Checkout{}
		}
		d = parent
	}
}

func readSmall(p string) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false // never wait on a FIFO
	}
	buf := make([]byte, maxGitFile)
	n, _ := f.Read(buf)
	return buf[:n], n > 0
}

func firstLine(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return strings.TrimSuffix(string(data), "\r")
}

// OwnStoreVar names the environment variable that, set to "own", turns
// the sharing off: a linked worktree is then a project root of its own,
// as before worktrees shared a store (to export a store made there before:
// docs/worktrees.md).
const OwnStoreVar = "MATRIXX_WORKTREE_STORE"

// LinkedWorktrees returns the top directories of the linked worktrees of
// the repository whose store root is root (the main worktree, or the
// common git directory of a bare repository), read from
// <common>/worktrees/*/gitdir; none when root is no such directory.
func LinkedWorktrees(root string) []string {
	common := filepath.Join(root, ".git")
	if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
		common = root
	}
	ents, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		data, ok := readSmall(filepath.Join(common, "worktrees", e.Name(), "gitdir"))
		if !ok {
			continue
		}
		g := strings.TrimSpace(firstLine(data))
		if filepath.Base(g) != ".git" {
			continue
		}
		out = append(out, filepath.Dir(g))
	}
	return out
}

// CheckoutRoot is Root without the sharing of linked worktrees: the
// checkout a command runs in, where per-checkout files belong (the agent
// hosts' settings that matrixx-hook install writes).
func CheckoutRoot(dirFlag string, env Env) (string, error) {
	get := env.Getenv
	env.Getenv = func(k string) string {
		if k == OwnStoreVar {
			return "own"
		}
		return get(k)
	}
	return Root(dirFlag, env)
}
