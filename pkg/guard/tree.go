package guard

import (
	"os"
	"path/filepath"
	"strings"
)

// treeFilter is what a recursive walk (find, grep -r, rg, rm -r) selects.
type treeFilter struct {
	names    []string // -name, -iname, --include: one must match (none given: any name)
	fold     []bool   // per name: ignore case (-iname)
	notNames []string // ! -name, --exclude: a matching entry is not selected
	prune    []string // -name X -prune, --exclude-dir: a matching directory is not entered
	paths    []string // -path, -ipath: one must match the walk path (none given: any path)
	pathFold []bool
	notPaths []string // ! -path, -path X -prune: the walk path and what lies below is left out
	anyPath  bool     // a -regex test: paths cannot be judged, any may match
	maxDepth int      // -1: no limit
	hidden   bool     // the walk enters hidden directories such as .matrixx
}

// maxReachEntries bounds the directory entries read to find a
// representative of what a walk selects in a guarded directory.
const maxReachEntries = 64

// reach returns the guarded paths below the walk start that f can
// select, as the walk would write them (start + "/" + …): one per guarded
// area that exists below start — the .matrixx directory, .matrixx/tasks,
// .matrixx/plans, .matrixx/state, the config files, and the Extra, State
// and Config paths that lie below start. The file system is asked (one
// stat when start holds no .matrixx). A start that is itself in a store is
// not reached here: it is a target of its own.
func (s *shell) reach(start string, f treeFilter) []string {
	if !f.hidden || start == "" || strings.IndexByte(start, unknown) >= 0 {
		return nil
	}
	abs := cleanPath(joinPath(s.cwd, slashes(s.tilde(start))))
	if !isAbs(abs) || s.e.classify(abs) != outside || !s.e.charge(1, len(abs)) {
		return nil
	}
	prefix := strings.TrimSuffix(start, "/")
	var out []string
	try := func(rel string) {
		if len(out) >= maxFields {
			return
		}
		st, err := os.Stat(filepath.FromSlash(abs + "/" + rel))
		if err != nil {
			return
		}
		if p, ok := f.selectIn(prefix, rel, st.IsDir(), abs); ok {
			out = append(out, p)
		}
	}
	if fi, err := os.Stat(filepath.FromSlash(abs + "/.matrixx")); err == nil && fi.IsDir() {
		for _, sub := range [...]string{"tasks", "plans", "state", "matrixx.jsonc", "matrixx.json"} {
			try(".matrixx/" + sub)
		}
		if len(out) == 0 {
			try(".matrixx")
		}
	}
	for _, list := range [...][]string{s.e.extra, s.e.state, s.e.config} {
		for _, x := range list {
			if len(x) > len(abs)+1 && hasPathPrefixFold(x, abs) && x[len(abs)] == '/' {
				try(x[len(abs)+1:])
			}
		}
	}
	return out
}

// selectIn returns a path the walk from prefix selects in the guarded
// entry rel (a directory: one of its entries, or itself).
func (f *treeFilter) selectIn(prefix, rel string, dir bool, abs string) (string, bool) {
	if !f.enters(prefix, rel) {
		return "", false
	}
	if dir {
		if d, err := os.Open(filepath.FromSlash(abs + "/" + rel)); err == nil {
			entries, _ := d.ReadDir(maxReachEntries)
			d.Close()
			for _, en := range entries {
				r := rel + "/" + en.Name()
				if f.selects(prefix, r) && (!en.IsDir() || f.enters(prefix, r)) {
					return prefix + "/" + r, true
				}
			}
		}
	}
	// The directory itself (find . -name tasks -exec rm -rf {} +), or
	// any of its parents on the way.
	for r := rel; r != "." && r != ""; r = filepath.ToSlash(filepath.Dir(r)) {
		if f.selects(prefix, r) {
			return prefix + "/" + r, true
		}
	}
	return "", false
}

// enters reports whether the walk reaches rel at all: within maxDepth
// (for what lies in it), through no pruned directory and no left-out
// path.
func (f *treeFilter) enters(prefix, rel string) bool {
	comps := strings.Split(rel, "/")
	if f.maxDepth >= 0 && len(comps) > f.maxDepth {
		return false
	}
	for k, c := range comps {
		if !f.hidden && strings.HasPrefix(c, ".") {
			return false
		}
		for _, p := range f.prune {
			if shellMatch(p, c, false) {
				return false
			}
		}
		walk := prefix + "/" + strings.Join(comps[:k+1], "/")
		for _, p := range f.notPaths {
			if shellMatch(p, walk, false) {
				return false
			}
		}
	}
	return true
}

// selects reports whether the tests select the entry rel.
func (f *treeFilter) selects(prefix, rel string) bool {
	comps := strings.Split(rel, "/")
	if f.maxDepth >= 0 && len(comps) > f.maxDepth {
		return false
	}
	base := comps[len(comps)-1]
	for _, p := range f.notNames {
		if shellMatch(p, base, false) {
			return false
		}
	}
	walk := prefix + "/" + rel
	for _, p := range f.notPaths {
		if shellMatch(p, walk, false) {
			return false
		}
	}
	if len(f.names) > 0 {
		ok := false
		for k, p := range f.names {
			ok = ok || shellMatch(p, base, f.fold[k])
		}
		if !ok {
			return false
		}
	}
	if len(f.paths) > 0 && !f.anyPath {
		ok := false
		for k, p := range f.paths {
			ok = ok || shellMatch(p, walk, f.pathFold[k])
		}
		if !ok {
			return false
		}
	}
	return true
}
