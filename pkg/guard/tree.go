package guard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// entry is a file a tree walk may meet below its start.
type entry struct {
	name   string      // base name
	path   string      // the walk path: start + "/" + rel
	depth  int         // components below the start (the start itself: 0)
	typ    byte        // 'd', 'f', 'l', 'p', 's', 'b', 'c'; 0 when not known
	inArea bool        // an entry of a guarded directory (not one on the way to it)
	anon   bool        // an entry whose name is not known (any entry of path's directory)
	de     fs.DirEntry // the entry as listed, or
	fi     fs.FileInfo // as stat'ed (for -empty)
}

// walkSel is what a tree walk (find, grep -r, rg, fd, rm -r, chmod -R,
// rsync) does with the entries it meets.
type walkSel interface {
	// visits reports whether the walk meets e, given that it went into
	// every directory above e.
	visits(e *entry) bool
	// descends reports whether the walk goes into the directory e.
	descends(e *entry) bool
	// selects reports whether the walk hands e on (to -delete, -exec,
	// its output, the removal).
	selects(e *entry) bool
	// cost is the work of one of the calls above (tests or patterns
	// evaluated).
	cost() int
}

// treeFilter is what a recursive search (grep -r, rg, fd) or a recursive
// change (rm -r, chmod -R) selects.
type treeFilter struct {
	names     []string // --include: one must match (none given: any name)
	fold      []bool   // per name: ignore case
	notNames  []string // --exclude: a matching entry is not selected
	prune     []string // --exclude-dir: a matching directory is not entered
	maxDepth  int      // -1: no limit
	hidden    bool     // the walk enters hidden directories such as .matrixx
	filesOnly bool     // it hands on files only (grep -l): a directory on the way is not selected
}

func (f *treeFilter) cost() int { return 1 + len(f.names) + len(f.notNames) + len(f.prune) }

func (f *treeFilter) visits(e *entry) bool {
	if f.maxDepth >= 0 && e.depth > f.maxDepth {
		return false
	}
	return f.hidden || !strings.HasPrefix(e.name, ".")
}

func (f *treeFilter) descends(e *entry) bool {
	for _, p := range f.prune {
		if shellMatch(p, e.name, false) {
			return false
		}
	}
	return true
}

func (f *treeFilter) selects(e *entry) bool {
	if e.typ == 'd' {
		// A directory stands for what lies in it when the walk goes in.
		if f.filesOnly && !e.inArea || !f.descends(e) {
			return false
		}
	}
	for _, p := range f.notNames {
		if shellMatch(p, e.name, false) {
			return false
		}
	}
	if len(f.names) == 0 {
		return true
	}
	for k, p := range f.names {
		if shellMatch(p, e.name, f.fold[k]) {
			return true
		}
	}
	return false
}

// maxReachEntries bounds the directory entries read to find a
// representative of what a walk selects in a guarded directory.
const maxReachEntries = 64

// reach returns the guarded paths below the walk start that sel can
// select, as the walk would write them (start + "/" + …): one per guarded
// area that exists below start — .matrixx/tasks, .matrixx/plans,
// .matrixx/state, the config files (else the .matrixx directory), and the
// Extra, State and Config paths that lie below start. The file system is
// asked (one stat when start holds no .matrixx). A start that is itself
// in a store is not reached here: it is a target of its own; a start that
// is a .matrixx directory is reached through what it holds.
//
// With rmdirOnly (find -delete) a directory is removed only once it is
// empty: a directory counts only when a file in it can be selected too,
// and the guarded directory itself and those on the way to it never count
// (their entries were judged).
func (s *shell) reach(start string, sel walkSel, rmdirOnly bool) []string {
	abs, subs, ok := s.walkStart(start)
	if !ok {
		return nil
	}
	prefix := strings.TrimSuffix(start, "/")
	var out []string
	exist := false // a guarded area exists below start
	try := func(rel string) {
		if len(out) >= maxFields {
			return
		}
		st, err := os.Stat(filepath.FromSlash(abs + "/" + rel))
		if err != nil {
			return
		}
		exist = true
		if p, ok := s.selectIn(sel, prefix, rel, st, abs, rmdirOnly); ok {
			out = append(out, p)
		}
	}
	if fi, err := os.Stat(filepath.FromSlash(abs + "/" + subs)); err == nil && fi.IsDir() {
		for _, sub := range [...]string{"tasks", "plans", "state", "matrixx.jsonc", "matrixx.json"} {
			try(subs + sub)
		}
		if !exist && subs != "" { // .matrixx without stores: itself
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

// holders returns the directories directly below the walk start that
// hold a store of their own and that sel selects, as the walk writes them:
// the projects next to the one the agent works in (find .. -maxdepth 1 |
// xargs rm -rf from a sibling), which the walk hands on whole like the ls
// rule's entries. At most maxReachEntries entries of start are read, and
// only when the walk goes into start.
func (s *shell) holders(st *entry, sel walkSel) []string {
	if st.anon || !sel.descends(st) {
		return nil
	}
	abs, subs, ok := s.walkStart(st.path)
	if !ok || subs == "" {
		return nil
	}
	d, err := os.Open(filepath.FromSlash(abs))
	if err != nil {
		return nil
	}
	entries, _ := d.ReadDir(maxReachEntries)
	d.Close()
	prefix := strings.TrimSuffix(st.path, "/")
	var out []string
	for _, en := range entries {
		if len(out) >= maxFields || !s.e.charge(1, 0) || !s.e.judge(2*sel.cost()) {
			break
		}
		if !en.IsDir() || en.Name() == ".matrixx" {
			continue // .matrixx itself: reach
		}
		e := entry{name: en.Name(), path: prefix + "/" + en.Name(), depth: 1, typ: 'd', de: en}
		if sel.visits(&e) && sel.selects(&e) && s.holdsGuarded(e.path) {
			out = append(out, e.path)
		}
	}
	return out
}

// walkStart returns the absolute path of a walk's start and where the
// guarded directories lie below it: ".matrixx/" for a start outside the
// stores, "" for a .matrixx directory; not ok for a start in a store or
// not known.
func (s *shell) walkStart(start string) (abs, subs string, ok bool) {
	if start == "" || strings.IndexByte(start, unknown) >= 0 {
		return "", "", false
	}
	abs = cleanPath(joinPath(s.cwd, slashes(s.tilde(start))))
	if !isAbs(abs) || !s.e.charge(1, len(abs)) {
		return "", "", false
	}
	s.globs()
	switch s.e.classify(abs) {
	case outside:
		return abs, ".matrixx/", true
	case root:
		return abs, "", true
	}
	return "", "", false
}

// holdsGuarded reports whether a walk from start may reach a guarded
// directory: start holds a .matrixx directory (or is one), or an Extra,
// State or Config path lies below it.
func (s *shell) holdsGuarded(start string) bool {
	abs, subs, ok := s.walkStart(start)
	if !ok {
		return false
	}
	if fi, err := os.Stat(filepath.FromSlash(abs + "/" + subs)); err == nil && fi.IsDir() {
		return true
	}
	for _, list := range [...][]string{s.e.extra, s.e.state, s.e.config} {
		for _, x := range list {
			if len(x) > len(abs)+1 && hasPathPrefixFold(x, abs) && x[len(abs)] == '/' {
				return true
			}
		}
	}
	return false
}

// selectIn returns a path the walk from prefix selects in the guarded
// entry rel (a directory: one of its entries, else itself or a directory
// on the way to it).
func (s *shell) selectIn(sel walkSel, prefix, rel string, st fs.FileInfo, abs string, rmdirOnly bool) (string, bool) {
	comps := strings.Split(rel, "/")
	var way []entry // the directories on the way and rel itself, as far as the walk meets them
	into := false   // the walk goes into rel
	cost := 3 * sel.cost()
	if !s.e.judge(cost * (len(comps) + maxReachEntries)) {
		// Too costly to judge: it counts as selected.
		return prefix + "/" + rel, true
	}
	for k, c := range comps {
		if !s.e.charge(1, 0) {
			return "", false
		}
		e := entry{name: c, path: prefix + "/" + strings.Join(comps[:k+1], "/"), depth: k + 1, typ: 'd'}
		if k == len(comps)-1 && !st.IsDir() {
			e.typ, e.fi = 'f', st
		}
		if !sel.visits(&e) {
			break
		}
		way = append(way, e)
		if e.typ != 'd' || !sel.descends(&e) {
			break
		}
		into = k == len(comps)-1
	}
	if into {
		if d, err := os.Open(filepath.FromSlash(abs + "/" + rel)); err == nil {
			entries, _ := d.ReadDir(maxReachEntries)
			d.Close()
			top := way[len(way)-1]
			for _, en := range entries {
				if !s.e.charge(1, 0) {
					return "", false
				}
				e := entry{name: en.Name(), path: top.path + "/" + en.Name(), depth: top.depth + 1,
					typ: typeOf(en.Type()), inArea: true, de: en}
				if !sel.visits(&e) || !sel.selects(&e) {
					continue
				}
				if rmdirOnly && e.typ == 'd' {
					// Removed only when emptied: can a file in it go?
					in := entry{path: e.path + "/*", depth: e.depth + 1, typ: 'f', inArea: true, anon: true}
					if !sel.descends(&e) || !sel.visits(&in) || !sel.selects(&in) {
						continue
					}
				}
				return e.path, true
			}
		}
	}
	// The guarded entry itself (find . -name tasks -exec rm -rf {} +), or
	// a directory on the way to it.
	for k := len(way) - 1; k >= 0; k-- {
		if rmdirOnly && way[k].typ == 'd' {
			continue
		}
		if sel.selects(&way[k]) {
			return way[k].path, true
		}
	}
	return "", false
}

// judge counts n tests or patterns about to be evaluated on the
// entries of a walk; false once maxJudged is passed.
func (e *env) judge(n int) bool {
	e.judged += n
	return e.judged <= maxJudged
}

// typeOf is find's -type letter of a directory entry's mode.
func typeOf(m fs.FileMode) byte {
	switch {
	case m&fs.ModeDir != 0:
		return 'd'
	case m&fs.ModeSymlink != 0:
		return 'l'
	case m&fs.ModeNamedPipe != 0:
		return 'p'
	case m&fs.ModeSocket != 0:
		return 's'
	case m&fs.ModeCharDevice != 0:
		return 'c'
	case m&fs.ModeDevice != 0:
		return 'b'
	}
	return 'f'
}
