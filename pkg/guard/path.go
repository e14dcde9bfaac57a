package guard

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// store says which guarded area a path lies in.
type store uint8

const (
	outside   store = iota
	tasks           // .matrixx/tasks and everything below it
	plans           // .matrixx/plans and everything below it
	root            // the .matrixx directory itself (holds both stores)
	extra           // a directory of Request.Extra (a moved task store)
	config          // a matrixx config file (.matrixx/matrixx.jsonc, Request.Config)
	configDir       // the directory holding a user config file (like root)
	state           // the hooks' state (.matrixx/state, Request.State)
)

// guarded reports whether st must be refused: every store for a write, only
// plans for a read.
func guarded(st store, read bool) bool {
	if read {
		return st == plans
	}
	return st != outside
}

// wholeOnly reports whether st is a directory that only holds guarded
// things (the .matrixx directory, a user config directory): a write
// counts only when it removes, moves, re-permissions or fills it.
func wholeOnly(st store) bool { return st == root || st == configDir }

// unknown stands for a part of a word whose value the guard cannot know
// (a variable set outside the command, a command substitution). It never
// occurs in a real argument (bash cuts words at NUL).
const unknown = '\x00'

// fieldSep marks a field boundary produced by word splitting of an
// unquoted expansion.
const fieldSep = '\x01'

// slashes turns backslashes into slashes and drops a file:// prefix, so
// Windows paths and URIs compare like POSIX paths.
func slashes(p string) string {
	if len(p) >= 5 && strings.EqualFold(p[:5], "file:") {
		// file:///x, file://localhost/x, file:/x, file:x; %2E is "."
		p = p[5:]
		if rest, ok := strings.CutPrefix(p, "//"); ok {
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				p = rest[i:] // the host (localhost, or none) is dropped
			} else {
				p = "/" + rest
			}
		}
		if strings.IndexByte(p, '%') >= 0 {
			if u, err := url.PathUnescape(p); err == nil {
				p = u
			}
		}
		if len(p) > 2 && p[0] == '/' && p[2] == ':' { // file:///C:/x
			p = p[1:]
		}
	}
	if strings.IndexByte(p, '\\') >= 0 {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

// isAbs reports whether a slash path is absolute, POSIX or Windows style
// ("/x", "C:/x").
func isAbs(p string) bool {
	if p != "" && p[0] == '/' {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' && isLetter(p[0])
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// joinPath resolves p against dir without cleaning (so that symlink
// resolution can still see "..").
func joinPath(dir, p string) string {
	if p == "" || isAbs(p) || dir == "" {
		return p
	}
	return dir + "/" + p
}

// cleanPath is path.Clean that keeps a Windows drive absolute.
func cleanPath(p string) string {
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// cleanExtra normalises Request.Extra: slash paths, absolute against cwd,
// cleaned, plus the symlink-resolved form of each.
func cleanExtra(dirs []string, cwd string) []string {
	return cleanList(dirs, cwd, true)
}

// cleanList normalises a list of paths: slash paths, absolute against
// cwd, cleaned, and with resolveLinks the symlink-resolved form of each
// too.
func cleanList(dirs []string, cwd string, resolveLinks bool) []string {
	if len(dirs) == 0 {
		return nil
	}
	out := make([]string, 0, 2*len(dirs))
	for _, d := range dirs {
		d = slashes(d)
		if d == "" {
			continue
		}
		c := cleanPath(joinPath(cwd, d))
		if c == "/" || c == "." {
			continue
		}
		out = append(out, c)
		if !resolveLinks {
			continue
		}
		if r := resolve(c); r != "" && r != c {
			out = append(out, r)
		}
	}
	return out
}

// cleanConfig normalises Request.Config: the files and the directories
// holding them. They are not resolved (that would cost the file system
// calls of every event): a write through a link to a config file is
// seen by the resolution of the written path, which meets the config
// file by its place (.matrixx/matrixx.jsonc, opencode/matrixx.jsonc) or
// as listed.
func cleanConfig(files []string, cwd string) (out, dirs []string) {
	out = cleanList(files, cwd, false)
	for _, f := range out {
		if d := path.Dir(f); d != "/" && d != "." && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return out, dirs
}

// classify says which store a cleaned slash path lies in, comparing
// components case-insensitively (".MATRIXX/Plans" is plans), ignoring the
// trailing dots and spaces Windows ignores, and matching glob patterns
// ("*", "?", "[…]") and, when e.taint is set, unknown parts as patterns.
func (e *env) classify(p string) store {
	if e.taint && strings.IndexByte(p, unknown) >= 0 && !strings.Contains(p, "/"+string(unknown)+"/") {
		// An unknown part may hold a "/" too (${PATH:0:1}).
		if st := e.classify1(strings.ReplaceAll(p, string(unknown), "/")); st != outside && st != root {
			return st
		}
	}
	return e.classify1(p)
}

func (e *env) classify1(p string) store {
	prevMatrixx, prevOpenCode, lastUnknown := false, false, false
	for i := 0; i < len(p); {
		start := i
		j := strings.IndexByte(p[i:], '/')
		var comp string
		if j < 0 {
			comp, i = p[i:], len(p)
		} else {
			comp, i = p[i:i+j], i+j+1
		}
		if comp == "" {
			continue
		}
		if prevMatrixx {
			switch {
			case e.is(comp, "tasks"):
				return tasks
			case e.is(comp, "plans"):
				return plans
			case e.is(comp, "state"):
				return state
			case e.is(comp, "matrixx.jsonc") || e.is(comp, "matrixx.json"):
				return config
			}
		}
		if prevOpenCode && (e.is(comp, "matrixx.jsonc") || e.is(comp, "matrixx.json")) {
			return config // the user's config in its usual place
		}
		// A component the guard knows nothing about may stand for
		// .matrixx on the way to tasks or plans, but is not taken for
		// the .matrixx directory itself.
		prevMatrixx = e.is(comp, ".matrixx") || e.dotglob && e.dotMatch(p[:start], comp)
		prevOpenCode = strings.EqualFold(comp, "opencode")
		lastUnknown = strings.Trim(comp, string(unknown)) == ""
	}
	for _, x := range e.extra {
		if hasPathPrefixFold(p, x) {
			return extra
		}
	}
	for _, x := range e.state {
		if hasPathPrefixFold(p, x) {
			return state
		}
	}
	for _, x := range e.config {
		if hasPathPrefixFold(p, x) {
			return config
		}
	}
	if prevMatrixx && !lastUnknown {
		return root
	}
	for _, x := range e.configDirs {
		if strings.EqualFold(p, x) {
			return configDir
		}
	}
	return outside
}

// is reports whether the path component comp names name.
func (e *env) is(comp, name string) bool {
	if len(comp) > 2 && (comp[len(comp)-1] == '.' || comp[len(comp)-1] == ' ') {
		comp = strings.TrimRight(comp, ". ")
	}
	if strings.EqualFold(comp, name) || shortName(comp, name) {
		return true
	}
	if !strings.ContainsAny(comp, "*?[") && !(e.taint && strings.IndexByte(comp, unknown) >= 0) {
		return false
	}
	return globMatch(comp, name, e.taint, false)
}

// shortName reports whether comp is a Windows 8.3 short name of name
// (MATRIX~1 for .matrixx, MATRIX~1.JSO for matrixx.jsonc): up to six
// characters of the name without its leading dot, "~", digits, and up to
// three characters of the extension.
func shortName(comp, name string) bool {
	i := strings.IndexByte(comp, '~')
	if i < 1 || i > 6 || len(name) <= 8 && name[0] != '.' {
		return false
	}
	stem, ext, _ := strings.Cut(comp[i+1:], ".")
	if stem == "" || strings.Trim(stem, "0123456789") != "" {
		return false
	}
	base, nameExt := strings.TrimPrefix(name, "."), ""
	if name[0] != '.' {
		if j := strings.LastIndexByte(name, '.'); j > 0 {
			base, nameExt = name[:j], name[j+1:]
		}
	}
	base = strings.ReplaceAll(base, ".", "")
	return len(comp[:i]) <= len(base) && strings.EqualFold(comp[:i], base[:i]) &&
		len(ext) <= 3 && len(ext) <= len(nameExt) && strings.EqualFold(ext, nameExt[:len(ext)])
}

// dotMatch reports whether the glob component comp, which does not
// start with a dot, matches the .matrixx directory in dir under bash's
// dotglob (shopt -s dotglob, GLOBIGNORE set, zsh's globdots): "*" then
// matches dot names too. Unlike a pattern that names the dot (".[!.]*",
// matched lexically), it counts only where dir holds a .matrixx (one
// stat), or where dir is not known: "shopt -s dotglob; mv build/* dist/"
// passes.
func (e *env) dotMatch(dir, comp string) bool {
	if comp == "" || comp[0] == '.' || !strings.ContainsAny(comp, "*?[") || !globMatch(comp, ".matrixx", e.taint, true) {
		return false
	}
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "/"
	}
	if !isAbs(dir) || strings.ContainsAny(dir, "\x00*?[") {
		return true
	}
	_, err := os.Lstat(filepath.FromSlash(dir + "/.matrixx"))
	return err == nil
}

// globMatch matches a path component pattern against name the way the
// shell's pathname expansion would (no match of a leading dot by a
// wildcard, unless dot: dotglob), case-insensitively. With taint, unknown
// parts match anything, a leading dot included.
func globMatch(pattern, name string, taint, dot bool) bool {
	if name[0] == '.' && pattern[0] != '.' && !(taint && pattern[0] == unknown) && !dot {
		return false
	}
	pattern = strings.ToLower(pattern)
	if strings.IndexByte(pattern, unknown) >= 0 {
		if !taint {
			return false
		}
		pattern = strings.ReplaceAll(pattern, string(unknown), "*")
	}
	if strings.Contains(pattern, "[!") {
		pattern = strings.ReplaceAll(pattern, "[!", "[^") // the shell's negation
	}
	ok, err := path.Match(pattern, name)
	return ok && err == nil
}

// hasPathPrefixFold reports whether p is dir or lies below it.
func hasPathPrefixFold(p, dir string) bool {
	if len(p) < len(dir) || !strings.EqualFold(p[:len(dir)], dir) {
		return false
	}
	return len(p) == len(dir) || p[len(dir)] == '/' || dir[len(dir)-1] == '/'
}

// located is the outcome of locate: the store and, when a symlink led
// there, the resolved path.
type located struct {
	st       store
	resolved string
}

// locate finds the store a path (as the agent wrote it) lies in: relative
// to dir, with backslashes, ".", "..", duplicate slashes and case
// normalised, through the links and copies made earlier in the same
// command, and through the symlinks that exist (the longest existing
// prefix is resolved with filepath.EvalSymlinks). With nofollow (rm,
// unlink, mv of a source: they act on a link, not on what it points to)
// only the parent directory is resolved, unless the path ends in "/".
func (e *env) locate(dir, raw string, nofollow bool) located {
	p := slashes(raw)
	if p == "" {
		return located{}
	}
	if p[0] == '~' && (len(p) == 1 || p[1] == '/') && e.home != "" {
		p = e.home + p[1:]
	}
	a := joinPath(dir, p)
	c := cleanPath(a)
	if st := e.classify(c); st != outside {
		return located{st: st}
	}
	nofollow = nofollow && !strings.HasSuffix(p, "/") && !strings.HasSuffix(p, "/.")
	if t := e.throughLinks(c, nofollow); t != "" {
		if st := e.classify(t); st != outside {
			return located{st: st, resolved: t}
		}
	}
	if !strings.HasPrefix(c, "/") || strings.HasPrefix(c, "/dev/") || strings.ContainsAny(c, "\x00*?[") {
		return located{}
	}
	var r string
	if nofollow {
		if d, base := path.Split(c); base != "" && base != ".." && d != "" {
			if rd := resolve(strings.TrimSuffix(d, "/")); rd != "" {
				r = strings.TrimSuffix(rd, "/") + "/" + base
			}
		}
	} else {
		r = resolve(a)
	}
	if r != "" && r != c {
		if st := e.classify(r); st != outside {
			return located{st: st, resolved: r}
		}
	}
	return located{}
}

// throughLinks maps a cleaned path through the links (and copies) the
// command made before this point: "" when none applies. With nofollow the
// last component is not mapped.
func (e *env) throughLinks(c string, nofollow bool) string {
	if len(e.links) == 0 {
		return ""
	}
	orig := c
	for range 8 { // links to links
		best := ""
		for l := range e.links {
			if nofollow && strings.EqualFold(c, l) {
				continue
			}
			// The longest link that applies (a link inside a linked
			// directory), the same one whatever the map's order.
			if hasPathPrefixFold(c, l) && (len(l) > len(best) || len(l) == len(best) && l < best) {
				best = l
			}
		}
		if best == "" {
			break
		}
		c = e.links[best] + c[len(best):]
	}
	if c == orig {
		return ""
	}
	return cleanPath(c)
}

// resolve returns the slash path p with the symlinks of its longest
// existing prefix resolved, or "" when nothing of it exists. ".." is
// applied physically (after resolving what precedes it), as the kernel
// does.
func resolve(p string) string {
	native := filepath.FromSlash(p)
	rest := ""
	for range 64 {
		if r, err := filepath.EvalSymlinks(native); err == nil {
			if rest == "" {
				return filepath.ToSlash(r)
			}
			// The first missing component may be a dangling link (its
			// target does not exist yet: a write through it creates
			// the target): follow it by hand.
			first, more, _ := strings.Cut(rest, string(filepath.Separator))
			link := filepath.Join(r, first)
			if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				if t, err := os.Readlink(link); err == nil && t != "" {
					if !filepath.IsAbs(t) {
						t = filepath.Join(r, t)
					}
					native, rest = filepath.Clean(t), more
					if more != "" {
						native = filepath.Join(native, more)
						rest = ""
					}
					continue
				}
			}
			return filepath.ToSlash(filepath.Join(r, rest))
		}
		i := strings.LastIndexByte(native, filepath.Separator)
		if i <= 0 {
			return ""
		}
		if base := native[i+1:]; base != "" {
			if rest == "" {
				rest = base
			} else {
				rest = base + string(filepath.Separator) + rest
			}
		}
		native = native[:i]
	}
	return ""
}
