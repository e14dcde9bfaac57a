package guard

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// git analyses the git subcommands that change files in the work tree:
// checkout and restore of paths, rm, mv, clean, stash push, apply.
func (s *shell) git(args []string, in input) {
	g := s
	i := 0
	workTree := ""
	var aliases map[string]string // git -c alias.NAME=VALUE
	s.gitEnv()
	if v, ok := s.vars["GIT_WORK_TREE"]; ok && len(v) > 0 {
		workTree = v[0]
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C":
			if i+1 < len(args) {
				if g == s {
					g = s.sub()
				}
				// A word of several values (a loop variable over $(ls))
				// gives them all before the subcommand: each is a
				// directory git may run in.
				var more []string
				j := i + 2
				for ; j < len(args) && !strings.HasPrefix(args[j], "-") && !gitSubcommand(args[j]); j++ {
				}
				if j < len(args) && gitSubcommand(args[j]) {
					more = args[i+2 : j]
				} else {
					j = i + 2
				}
				g.setAlts(g.dirsOf(append([]string{g.cwd}, g.alts()...), args[i+1], more))
				g.cwd = cleanPath(joinPath(g.cwd, slashes(args[i+1])))
				i = j - 1
			}
			continue
		case a == "--work-tree":
			if i+1 < len(args) {
				workTree = args[i+1]
				i++
			}
			continue
		case strings.HasPrefix(a, "--work-tree="):
			workTree = a[len("--work-tree="):]
			continue
		case a == "-c" && i+1 < len(args):
			// git -c core.worktree=DIR: the work tree, like --work-tree.
			if k, v, ok := strings.Cut(args[i+1], "="); ok && strings.EqualFold(k, "core.worktree") {
				workTree = v
			}
			g.gitConfig(args[i+1], &aliases)
			i++
			continue
		case strings.HasPrefix(a, "--config-env=") || a == "--config-env" && i+1 < len(args):
			// --config-env=KEY=ENVVAR: the value of a variable.
			kv := strings.TrimPrefix(a, "--config-env=")
			if a == "--config-env" {
				kv = args[i+1]
				i++
			}
			if k, name, ok := strings.Cut(kv, "="); ok {
				vals, known := g.lookup(name)
				if !known {
					vals = []string{string(unknown)}
				}
				for _, v := range vals {
					g.gitConfig(k+"="+v, &aliases)
				}
			}
			continue
		case a == "-c" || a == "--git-dir" || a == "--namespace" ||
			a == "--config-env" || a == "--super-prefix":
			i++
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		break
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i], args[i+1:]
	if g != s {
		defer s.absorb(g)
	}
	v, ok := aliases[strings.ToLower(sub)]
	if !ok {
		v, ok = s.e.gitAliases[strings.ToLower(sub)]
	}
	if ok && s.e.calls < maxDepth {
		// An alias of git -c: "!CMD" is a shell command run with the
		// arguments, anything else is git's own arguments.
		s.e.calls++
		defer func() { s.e.calls-- }()
		if sh, ok := strings.CutPrefix(v, "!"); ok {
			g.script(sh+` "$@"`, append([]string{"git"}, rest...))
			return
		}
		if words, ok := splitWords(v); ok {
			g.git(append(append(args[:i:i], words...), rest...), in)
			return
		}
	}
	if workTree != "" {
		// Every command that updates the work tree writes into it.
		switch sub {
		case "checkout", "restore", "reset", "clean", "stash", "switch", "merge", "pull", "rebase",
			"cherry-pick", "revert", "am", "apply", "read-tree", "checkout-index", "rm", "mv":
			g.write(workTree, "git --work-tree "+sub, true)
		}
	}
	has := func(flags ...string) bool {
		for _, a := range rest {
			for _, f := range flags {
				if a == f {
					return true
				}
			}
		}
		return false
	}
	if sub == "checkout" || sub == "restore" || sub == "rm" || sub == "stash" || sub == "add" || sub == "reset" {
		g.pathspecFile(rest, in, sub)
	}
	switch sub {
	case "config":
		// git config [--global] KEY VALUE: an alias or a command key set
		// for the git commands that follow.
		var ops []string
		for _, a := range rest {
			if strings.HasPrefix(a, "-") {
				if a == "--get" || a == "--get-all" || a == "--unset" || a == "-l" || a == "--list" {
					return
				}
				continue
			}
			ops = append(ops, a)
		}
		if len(ops) >= 2 {
			if s.e.gitAliases == nil {
				s.e.gitAliases = make(map[string]string)
			}
			m := s.e.gitAliases
			g.gitConfig(ops[0]+"="+ops[1], &m)
		}
	case "rebase":
		for i := 0; i < len(rest); i++ {
			switch a := rest[i]; {
			case (a == "-x" || a == "--exec") && i+1 < len(rest):
				g.script(rest[i+1], nil)
				i++
			case strings.HasPrefix(a, "--exec="):
				g.script(a[len("--exec="):], nil)
			}
		}
	case "filter-branch":
		for i := 0; i+1 < len(rest); i++ {
			if strings.HasSuffix(rest[i], "-filter") || rest[i] == "--setup" {
				g.script(rest[i+1], nil)
				i++
			}
		}
	case "submodule":
		if ops := scan("git-submodule", rest, nil); len(ops) >= 2 && ops[0] == "foreach" {
			g.script(strings.Join(ops[1:], " "), nil)
			return
		}
		if ops := scan("git-submodule", rest, nil); len(ops) >= 3 && ops[0] == "add" {
			g.write(ops[2], "git submodule add", true)
		}
	case "bisect":
		if len(rest) >= 2 && rest[0] == "run" {
			g.call(rest[1:], in)
		}
	case "difftool", "mergetool":
		for i := 0; i < len(rest); i++ {
			switch a := rest[i]; {
			case (a == "-x" || a == "--extcmd") && i+1 < len(rest):
				g.script(rest[i+1], nil)
				i++
			case strings.HasPrefix(a, "--extcmd="):
				g.script(a[len("--extcmd="):], nil)
			}
		}
	case "checkout":
		for _, p := range scan("git-checkout", rest, nil) {
			g.write(p, "git checkout", true)
			g.specGlob(p, "git checkout")
		}
	case "restore":
		if (has("--staged", "-S") && !has("--worktree", "-W")) || has("-h") {
			return
		}
		for _, p := range scan("git-restore", rest, nil) {
			g.write(p, "git restore", true)
			g.specGlob(p, "git restore")
		}
	case "rm":
		if has("--cached") {
			return
		}
		for _, p := range scan("git-rm", rest, nil) {
			g.write(p, "git rm", true)
			g.specGlob(p, "git rm")
		}
	case "checkout-index":
		prefix, all, stdin := "", false, false
		ops := scan("git-checkout-index", rest, func(opt, val string) {
			switch opt {
			case "a", "--all":
				all = true
			case "--stdin":
				stdin = true
			case "--prefix":
				prefix = val
			}
		})
		if prefix != "" {
			g.write(prefix, "git checkout-index --prefix", true)
			for _, p := range ops {
				g.write(prefix+p, "git checkout-index", true)
			}
			return
		}
		for _, p := range ops {
			g.write(p, "git checkout-index", true)
		}
		if all || stdin {
			// Every file of the index (or the list on stdin) is written
			// into the work tree, the stores with them when git tracks
			// them.
			g.write(".matrixx/tasks/", "git checkout-index -a", true)
		}
	case "mv":
		for _, p := range scan("git-mv", rest, nil) {
			g.write(p, "git mv", true)
		}
	case "clean":
		g.gitClean(rest)
	case "worktree":
		ops := scan("git-worktree", rest, nil)
		switch {
		case len(ops) >= 2 && ops[0] == "add":
			g.write(ops[1], "git worktree add", true)
		case len(ops) >= 2 && ops[0] == "remove":
			// It deletes the worktree's directory, its own .matrixx
			// included (each worktree has its store): rm -rf.
			g.unlink(ops[1], "git worktree remove")
			g.writeTree("git worktree remove", ops[1:2])
		}
	case "clone":
		ops := scan("git-clone", rest, nil)
		switch {
		case len(ops) >= 2:
			g.write(ops[1], "git clone", true)
		case len(ops) == 1:
			b := strings.TrimSuffix(path.Base(strings.TrimSuffix(slashes(ops[0]), "/")), ".git")
			g.write(b, "git clone", true)
		}
	case "init":
		if ops := scan("git-init", rest, nil); len(ops) > 0 {
			g.write(ops[0], "git init", false)
		}
	case "archive", "format-patch", "diff", "bundle":
		scan("git-"+sub, rest, func(opt, val string) {
			if opt == "o" || opt == "--output" || opt == "--output-directory" {
				g.write(val, "git "+sub+" "+flagName(opt), true)
			}
		})
	case "stash":
		ops := scan("git-stash", rest, nil)
		switch {
		case len(ops) > 0 && ops[0] == "push":
			ops = ops[1:]
		case len(ops) > 0 && (ops[0] == "save" || gitStashSub(ops[0])):
			ops = nil // a message, a stash, a branch name
		}
		g.writeSpecs(ops, "git stash")
		for _, p := range ops {
			g.specGlob(p, "git stash")
		}
		g.gitStash(rest)
	case "apply", "am":
		if has("--check", "--stat", "--numstat", "--summary", "--cached") {
			return
		}
		dir := ""
		ops := scan("git-apply", rest, func(opt, val string) {
			if opt == "--directory" {
				dir = val
			}
		})
		if dir != "" {
			// --directory=DIR puts every file of the patch below DIR.
			g.write(dir, "git "+sub+" --directory", true)
			g.write(strings.TrimSuffix(dir, "/")+"/x", "git "+sub+" --directory", true)
		}
		if len(ops) == 0 && in.known {
			for _, p := range diffTargets(in.text) {
				if dir != "" {
					p = strings.TrimSuffix(dir, "/") + "/" + p
				}
				g.write(p, "git "+sub, true)
			}
		}
	}
}

// gitClean checks git clean, in each directory it may run in (eachDir):
// its pathspecs, and without a pathspec (or with ".", only exclusions,
// ":/" or a pathspec naming the top of the work tree) the guarded paths
// below the .matrixx directory it would delete (gitLoss), less what the
// exclusions leave out (pathspecTakes): with -x what
// no -e pattern keeps, with -X what the ignore rules and the -e patterns
// ignore, with neither what they do not ignore. -n and --dry-run delete
// nothing.
func (g *shell) gitClean(rest []string) {
	g.eachDir(func() { g.gitClean1(rest) })
}

// eachDir runs check in each directory git may run in: the current one
// and its alternatives (shell.alts), a glob among them expanded against
// the disk (for d in */; do git -C "$d" clean -fdx; done), at most
// maxFields in all; the current directory is restored after.
func (g *shell) eachDir(check func()) {
	alts := g.alts()
	if len(alts) == 0 && !strings.ContainsAny(g.cwd, "*?[") {
		check()
		return
	}
	cwd, n := g.cwd, 0
	defer func() { g.cwd = cwd }()
	for _, d := range append([]string{cwd}, alts...) {
		ds := []string{d}
		if strings.ContainsAny(d, "*?[") {
			if ex := g.expandGlob(d); len(ex) > 0 {
				ds = ex
			}
		}
		for _, x := range ds {
			if n >= maxFields || g.denied() {
				return
			}
			n++
			g.cwd = cleanPath(joinPath(cwd, x))
			check()
		}
	}
}

func (g *shell) gitClean1(rest []string) {
	dry, x, bigX := false, false, false
	var cmdl []gitRule
	opaque := false // an -e pattern the guard cannot read
	ops := scan("git-clean", rest, func(opt, val string) {
		switch opt {
		case "n", "--dry-run":
			dry = true
		case "e", "--exclude":
			if strings.IndexByte(val, unknown) >= 0 {
				opaque = true
			} else if r, ok := gitRuleOf(val, ""); ok && len(cmdl) < maxFields {
				cmdl = append(cmdl, r)
			}
		case "x":
			x = true
		case "X":
			bigX = true
		}
	})
	if dry {
		return
	}
	g.writeSpecs(ops, "git clean")
	// The directories whose .matrixx the pathspecs may reach: the
	// current one (no pathspec, ".", only exclusions), the top (":/",
	// ":(top)", a pathspec climbing to it). Each positive pathspec that
	// names a path is checked as a write above; here the pathspecs that
	// take a whole directory, less what the exclusions leave out.
	dir := g.cwd
	whole := len(ops) == 0
	onlyExcl := len(ops) > 0
	top := gitTop(g.cwd)
	for _, p := range ops {
		pat, exclude, fromTop, _, _ := pathspecMagic(p)
		if exclude {
			continue
		}
		onlyExcl = false
		pat = strings.TrimSuffix(pat, "/")
		if pat == "" && fromTop || p == ":/" {
			whole = true
			if top != "" {
				dir = top
			}
			continue
		}
		if !fromTop {
			if c := cleanPath(joinPath(g.cwd, slashes(pat))); c == g.cwd {
				whole = true
			} else if top != "" && c == top && strings.HasPrefix(g.cwd, top+"/") {
				whole, dir = true, top
			}
		}
	}
	whole = whole || onlyExcl
	if !whole || !isAbs(dir) || g.denied() {
		return
	}
	var keep func(string) bool
	if len(ops) > 0 {
		t := top
		if t == "" {
			t = g.cwd
		}
		keep = func(rel string) bool { return !pathspecTakes(ops, g.cwd, t, rel) }
	}
	mode := byte('u')
	switch {
	case x:
		mode = 'x'
	case bigX:
		mode = 'X'
	}
	if opaque {
		// An unknown -e pattern may keep anything, or take anything
		// (with -X, or a "!" pattern un-ignoring what .gitignore keeps):
		// it counts as taking everything.
		cmdl, mode = nil, 'x'
	}
	if lost, ok := g.gitLoss(dir, mode, cmdl, keep); ok {
		g.refuse(gitCleanReason(lost, mode), "bash:git clean")
	}
}

// gitStash checks git stash push/save (and a bare git stash) with -u
// (--include-untracked) or -a (--all): the stash takes the untracked
// (with -a also the ignored) files out of the work tree, so the guarded
// paths of an untracked .matrixx at the top of the work tree or in the
// current directory go with it, unless a pathspec leaves them out
// (git stash push -u -- src/, -- ':!.matrixx'). Files git tracks are
// not known to the guard (docs/guard.md, limits).
func (g *shell) gitStash(rest []string) {
	g.eachDir(func() { g.gitStash1(rest) })
}

func (g *shell) gitStash1(rest []string) {
	untracked, all, patch := false, false, false
	fromFile := false
	ops := scan("git-stash", rest, func(opt, val string) {
		switch opt {
		case "u", "--include-untracked":
			untracked = true
		case "--no-include-untracked":
			untracked = false
		case "a", "--all":
			all = true
		case "p", "--patch":
			patch = true
		case "--pathspec-from-file":
			fromFile = true
		}
	})
	var specs []string
	switch {
	case len(ops) == 0:
	case ops[0] == "push":
		specs = ops[1:]
	case ops[0] == "save": // the rest is the message
	case gitStashSub(ops[0]):
		return
	default: // git stash -u -- PATHSPEC
		specs = ops
	}
	if !untracked && !all || patch || !isAbs(g.cwd) || g.denied() {
		return
	}
	mode, what := byte('u'), "git stash -u"
	if all {
		mode, what = 'x', "git stash -a"
	}
	top := gitTop(g.cwd)
	if top == "" {
		top = g.cwd
	}
	keep := func(rel string) bool {
		if fromFile {
			return false
		}
		return !pathspecTakes(specs, g.cwd, top, rel)
	}
	dirs := []string{top}
	if g.cwd != top {
		dirs = append(dirs, g.cwd)
	}
	for _, d := range dirs {
		if lost, ok := g.gitLoss(d, mode, nil, keep); ok {
			g.refuse(gitStashReason(lost, what), "bash:git stash")
			return
		}
	}
}

// writeSpecs checks the paths git's pathspecs name as writes: an
// exclusion names nothing, ":/x" and ":(top)x" are from the top of the
// work tree, the other magic is dropped.
func (g *shell) writeSpecs(ops []string, cmd string) {
	for _, p := range ops {
		pat, exclude, fromTop, _, _ := pathspecMagic(p)
		if exclude {
			continue
		}
		if fromTop && pat != p {
			top := gitTop(g.cwd)
			if top == "" {
				top = g.cwd
			}
			if !isAbs(top) {
				g.write(p, cmd, true)
				continue
			}
			pat = top + "/" + pat
		}
		if pat == "" {
			continue
		}
		g.write(pat, cmd, true)
	}
}

// gitSubcommand reports whether name is a git command (the common ones:
// where git -C's word ends).
func gitSubcommand(name string) bool {
	switch name {
	case "clean", "stash", "checkout", "restore", "reset", "switch", "merge", "pull", "rebase",
		"cherry-pick", "revert", "am", "apply", "read-tree", "checkout-index", "rm", "mv",
		"status", "log", "diff", "add", "commit", "push", "fetch", "worktree", "clone", "init",
		"submodule", "archive", "format-patch", "bundle", "branch", "tag", "show", "config",
		"remote", "grep", "ls-files", "rev-parse", "describe", "blame", "gc", "bisect", "notes",
		"sparse-checkout", "lfs", "shortlog", "reflog", "fsck", "prune", "maintenance":
		return true
	}
	return false
}

// gitStashSub reports whether name is a git stash subcommand other than
// push and save (they take no -u).
func gitStashSub(name string) bool {
	switch name {
	case "list", "show", "drop", "pop", "apply", "branch", "clear", "create", "store":
		return true
	}
	return false
}

// gitLoss returns a guarded path below dir/.matrixx that a git command
// taking files out of the work tree would take: mode 'u' the untracked
// files git does not ignore (git clean, git stash -u), 'X' the ignored
// ones (git clean -X), 'x' both (git clean -x, git stash -a). The ignore
// rules are the command line's (cmdl: git clean -e, first), then those of
// the .gitignore files from the top of the work tree down to
// dir/.matrixx, .git/info/exclude and ~/.config/git/ignore (not with
// 'x'), read by gitignore's rules (gitRule). What lies in .matrixx/tasks,
// .matrixx/plans, .matrixx/state and the config files is judged entry by
// entry (up to maxReachEntries each); without any of them the .matrixx
// directory itself. keep (when not nil) leaves out what a pathspec does
// not take (by its path from the top). Files git tracks are taken for
// untracked (the guard cannot know).
func (g *shell) gitLoss(dir string, mode byte, cmdl []gitRule, keep func(rel string) bool) (string, bool) {
	fi, err := os.Stat(filepath.FromSlash(dir + "/.matrixx"))
	if err != nil || !fi.IsDir() {
		return "", false
	}
	top := gitTop(dir)
	if top == "" {
		top = dir
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, top), "/")
	base := ".matrixx"
	if rel != "" {
		base = rel + "/.matrixx"
	}
	ig := gitIgnore{cmdl: cmdl, e: g.e}
	if mode != 'x' {
		ig.load(top, rel, g.e.home)
	}
	taken := func(p string, isDir bool) bool {
		ign := ig.ignored(p, isDir)
		if ig.spent {
			return true // too costly to judge: taken
		}
		return ign == (mode == 'X')
	}
	found := false
	for _, sub := range [...]string{"tasks", "plans", "state", "matrixx.jsonc", "matrixx.json"} {
		area := base + "/" + sub
		st, err := os.Stat(filepath.FromSlash(top + "/" + area))
		if err != nil {
			continue
		}
		found = true
		if keep != nil && keep(area) {
			continue
		}
		if !st.IsDir() {
			if taken(area, false) {
				return top + "/" + area, true
			}
			continue
		}
		d, err := os.Open(filepath.FromSlash(top + "/" + area))
		if err != nil {
			continue
		}
		entries, _ := d.ReadDir(maxReachEntries)
		d.Close()
		if len(entries) == 0 && taken(area, true) {
			return top + "/" + area, true // an empty store directory goes itself
		}
		for _, en := range entries {
			if !g.e.charge(1, 0) {
				return "", false
			}
			if taken(area+"/"+en.Name(), en.IsDir()) {
				return top + "/" + area + "/" + en.Name(), true
			}
		}
		if len(entries) == maxReachEntries && taken(area+"/\x01", false) {
			// More entries than were read: one the rules take may follow.
			return top + "/" + area, true
		}
	}
	if !found && !(keep != nil && keep(base)) && taken(base, true) {
		return top + "/" + base, true
	}
	return "", false
}

// gitTop is the top of the git work tree holding dir ("" if none).
func gitTop(dir string) string {
	for d := dir; d != "/" && d != "." && d != ""; d = path.Dir(d) {
		if _, err := os.Stat(filepath.FromSlash(d + "/.git")); err == nil {
			return d
		}
	}
	return ""
}

// gitRule is a pattern of an ignore file or of git clean -e, by
// gitignore's rules: "!" negates, a trailing "/" matches directories
// only, a "/" at the start or inside anchors the pattern to base (the
// directory of the file, from the top of the work tree), else it matches
// the last component at any depth; "*", "?" and "[…]" stay within a
// component, "**" spans components.
type gitRule struct {
	pat                    string
	neg, dirOnly, anchored bool
	base                   string
}

// gitRuleOf reads one line of an ignore file (false for a blank line or
// a comment).
func gitRuleOf(line, base string) (gitRule, bool) {
	l := strings.TrimRight(line, "\r")
	for strings.HasSuffix(l, " ") && !strings.HasSuffix(l, "\\ ") {
		l = l[:len(l)-1]
	}
	if l == "" || l[0] == '#' {
		return gitRule{}, false
	}
	r := gitRule{base: base}
	switch {
	case l[0] == '!':
		r.neg, l = true, l[1:]
	case strings.HasPrefix(l, "\\!") || strings.HasPrefix(l, "\\#"):
		l = l[1:]
	}
	if strings.HasSuffix(l, "/") {
		r.dirOnly = true
		l = strings.TrimRight(l, "/")
	}
	r.anchored = strings.Contains(l, "/")
	r.pat = strings.TrimLeft(l, "/")
	return r, r.pat != ""
}

// match reports whether the rule matches rel (a path from the top).
func (r *gitRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base != "" {
		if len(rel) <= len(r.base) || rel[:len(r.base)] != r.base || rel[len(r.base)] != '/' {
			return false
		}
		rel = rel[len(r.base)+1:]
	}
	if !r.anchored {
		return shellMatch(r.pat, path.Base(rel), false)
	}
	return gitGlob(strings.Split(r.pat, "/"), strings.Split(rel, "/"))
}

// gitGlob matches pattern components against path components: "**"
// stands for any number of components (at least one at the end).
func gitGlob(pc, rc []string) bool {
	for len(pc) > 0 {
		if pc[0] == "**" {
			if len(pc) == 1 {
				return len(rc) > 0
			}
			for k := 0; k <= len(rc); k++ {
				if gitGlob(pc[1:], rc[k:]) {
					return true
				}
			}
			return false
		}
		if len(rc) == 0 || !shellMatch(pc[0], rc[0], false) {
			return false
		}
		pc, rc = pc[1:], rc[1:]
	}
	return len(rc) == 0
}

// gitIgnore holds the ignore rules in git's order of precedence: the
// command line's, then each .gitignore from the deepest directory up,
// then .git/info/exclude, then the user's file; in each list the last
// matching rule decides.
type gitIgnore struct {
	cmdl  []gitRule
	files [][]gitRule
	rules int
	e     *env
	dirs  map[string]bool // the verdicts on the directories above the entries judged
	spent bool            // the judging budget ran out (env.judge)
}

// load reads the ignore files that apply to dir/.matrixx (dir is rel
// from the top; each file up to 1 MiB).
func (ig *gitIgnore) load(top, rel, home string) {
	read := func(file, base string) {
		b, err := os.ReadFile(filepath.FromSlash(file))
		if err != nil || len(b) > 1<<20 {
			return
		}
		var list []gitRule
		for line := range strings.SplitSeq(string(b), "\n") {
			if r, ok := gitRuleOf(line, base); ok {
				list = append(list, r)
			}
		}
		if len(list) > 0 {
			ig.files = append(ig.files, list)
			ig.rules += len(list)
		}
	}
	// Deepest first: dir/.matrixx, dir, …, the top.
	m := ".matrixx"
	if rel != "" {
		m = rel + "/.matrixx"
	}
	for d := m; ; d = path.Dir(d) {
		if d == "." {
			d = ""
		}
		f := top + "/.gitignore"
		if d != "" {
			f = top + "/" + d + "/.gitignore"
		}
		read(f, d)
		if d == "" {
			break
		}
	}
	read(top+"/.git/info/exclude", "")
	if home != "" {
		read(home+"/.config/git/ignore", "")
	}
}

// verdict is the decision of the rules on p itself.
func (ig *gitIgnore) verdict(p string, isDir bool) bool {
	if !ig.e.judge(1 + len(ig.cmdl) + ig.rules) {
		ig.spent = true
		return false
	}
	last := func(list []gitRule) (bool, bool) {
		for k := len(list) - 1; k >= 0; k-- {
			if list[k].match(p, isDir) {
				return !list[k].neg, true
			}
		}
		return false, false
	}
	if v, ok := last(ig.cmdl); ok {
		return v
	}
	for _, list := range ig.files {
		if v, ok := last(list); ok {
			return v
		}
	}
	return false
}

// ignored reports whether git ignores p (a path from the top): p or a
// directory above it is ignored (a file in an ignored directory cannot
// be re-included).
func (ig *gitIgnore) ignored(p string, isDir bool) bool {
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if i == len(p) {
			return ig.verdict(p, isDir)
		}
		v, ok := ig.dirs[p[:i]]
		if !ok {
			v = ig.verdict(p[:i], true)
			if ig.dirs == nil {
				ig.dirs = make(map[string]bool, 4)
			}
			ig.dirs[p[:i]] = v
		}
		if v {
			return true
		}
	}
	return false
}

// pathspecTakes reports whether git's pathspecs specs (relative to cwd,
// the work tree's top being top) take the path rel (from the top) or
// something in it: no pathspec, or only exclusions, take the whole tree;
// an exclusion (":!x", ":^x", ":(exclude)x") that holds rel leaves it
// out. A pattern (glob characters) takes what its part before them may
// lead to; an exclusion by pattern holds rel when it matches every path
// in it.
func pathspecTakes(specs []string, cwd, top, rel string) bool {
	prefix := strings.TrimPrefix(strings.TrimPrefix(cwd, top), "/")
	positive, taken := false, false
	for _, sp := range specs[:min(len(specs), maxFields)] {
		pat, exclude, fromTop, icase, literal := pathspecMagic(sp)
		if strings.IndexByte(pat, unknown) >= 0 {
			if exclude {
				continue // may leave out anything: counts as leaving out nothing
			}
			positive, taken = true, true
			continue
		}
		if !fromTop && prefix != "" {
			pat = prefix + "/" + pat
		}
		pat = strings.TrimPrefix(cleanPath("/"+pat), "/")
		glob := !literal && strings.ContainsAny(pat, "*?[")
		if exclude {
			if pat == "" || hasPathPrefixFold(rel, pat) && (icase || strings.HasPrefix(rel, pat)) ||
				glob && shellMatch(pat, rel+"/\x01", icase) {
				return false
			}
			continue
		}
		positive = true
		switch {
		case pat == "":
			taken = true
		case glob:
			// The literal part before the first glob character.
			lit := pat[:strings.IndexAny(pat, "*?[")]
			taken = taken || strings.HasPrefix(rel, lit) || strings.HasPrefix(lit, rel)
		default:
			taken = taken || hasPathPrefixFold(rel, pat) || hasPathPrefixFold(pat, rel)
		}
	}
	return taken || !positive
}

// pathspecMagic reads the magic of a git pathspec: ":!x" and ":^x"
// exclude, ":/x" is from the top, ":(exclude,top,icase,literal,glob)x"
// the long forms.
func pathspecMagic(sp string) (pat string, exclude, top, icase, literal bool) {
	if len(sp) < 2 || sp[0] != ':' {
		return sp, false, false, false, false
	}
	if sp[1] == '(' {
		end := strings.IndexByte(sp, ')')
		if end < 0 {
			return sp, false, false, false, false
		}
		for m := range strings.SplitSeq(sp[2:end], ",") {
			switch strings.TrimSpace(m) {
			case "exclude":
				exclude = true
			case "top":
				top = true
			case "icase":
				icase = true
			case "literal":
				literal = true
			}
		}
		return sp[end+1:], exclude, top, icase, literal
	}
	i := 1
	for ; i < len(sp) && strings.IndexByte("/!^", sp[i]) >= 0; i++ {
		switch sp[i] {
		case '/':
			top = true
		default:
			exclude = true
		}
	}
	if i < len(sp) && sp[i] == ':' {
		i++
	}
	return sp[i:], exclude, top, false, false
}

// diffTargets are the files a unified diff changes (+++/--- lines, with
// and without the a/ and b/ prefixes).
func diffTargets(text string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if !strings.HasPrefix(line, "+++ ") && !strings.HasPrefix(line, "--- ") {
			continue
		}
		p := strings.TrimSpace(line[4:])
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		if p == "/dev/null" || p == "" || len(out) >= maxFields {
			continue
		}
		out = append(out, p)
		if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
			out = append(out, p[2:])
		}
	}
	return out
}

// gitConfig reads one git -c KEY=VALUE: an alias is remembered (aliases),
// a key whose value git runs as a shell command (core.fsmonitor,
// core.pager, core.sshCommand, diff.external, filter.*.clean, …) has its
// value analysed as a script, and a key that points git at code or
// configuration the guard cannot read (core.hooksPath, include.path) is
// denied when the command names .matrixx.
func (g *shell) gitConfig(kv string, aliases *map[string]string) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return
	}
	k = strings.ToLower(k)
	if name, ok := strings.CutPrefix(k, "alias."); ok {
		if *aliases == nil {
			*aliases = make(map[string]string)
		}
		(*aliases)[name] = v
		if sh, ok := strings.CutPrefix(v, "!"); ok {
			g.script(sh, nil)
		}
		return
	}
	last := k
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		last = k[i+1:]
	}
	switch {
	case gitCommandKey(k, last):
		g.script(strings.TrimPrefix(v, "!"), nil)
	case last == "hookspath" || k == "include.path" || strings.HasPrefix(k, "includeif.") && last == "path":
		if g.e.taint {
			g.refuse(writeReason("Bash (git -c "+k+": code or settings the guard cannot read)", root, ".matrixx", ""), "bash:git -c")
		}
	}
}

// gitCommandKey reports whether git runs the value of a config key as a
// shell command (or a program).
func gitCommandKey(k, last string) bool {
	switch k {
	case "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass",
		"core.alternaterefscommand", "sequence.editor", "diff.external", "gpg.program",
		"gpg.ssh.program", "gpg.x509.program", "credential.helper", "uploadpack.packobjectshook",
		"interactive.difffilter", "web.browser", "man.viewer", "sendemail.smtpserver",
		"sendemail.tocmd", "sendemail.cccmd", "merge.tool", "diff.tool", "core.gitproxy",
		"remote.origin.uploadpack", "remote.origin.receivepack", "protocol.ext.allow":
		return true
	}
	if strings.HasPrefix(k, "pager.") || strings.HasPrefix(k, "credential.") && last == "helper" {
		return true
	}
	switch last {
	case "clean", "smudge", "process", "textconv", "command", "driver", "cmd", "path", "uploadpack", "receivepack", "proxy":
		return strings.Count(k, ".") >= 2 // filter.X.clean, diff.X.textconv, merge.X.driver, mergetool.X.cmd
	}
	return false
}

// gitEnv analyses the shell commands git takes from its environment when
// the command sets them (GIT_PAGER, GIT_EDITOR, GIT_SSH_COMMAND,
// GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS, GIT_CONFIG_VALUE_N, …).
func (s *shell) gitEnv() {
	for _, name := range [...]string{"GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND",
		"GIT_SSH", "GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "PAGER", "EDITOR", "VISUAL"} {
		if vals, ok := s.vars[name]; ok {
			for _, v := range vals {
				s.script(v, nil)
			}
		}
	}
	for k, vals := range s.vars {
		if k == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			for _, v := range vals {
				if containsFold(v, "matrixx") {
					s.refuse(writeReason("Bash (git configuration from $"+k+")", root, ".matrixx", ""), "bash:git config")
				}
			}
		}
	}
}

// specGlob checks a git pathspec holding glob characters: git matches it
// against every tracked path, "*" across "/" too, so '*.json' takes
// .matrixx/tasks/T-1.json. A pattern whose literal start may lead into a
// store and whose end may end a store file name (.json, .md, nothing) is
// a write of the store.
func (g *shell) specGlob(sp, cmd string) {
	if g.denied() {
		return
	}
	pat, exclude, _, icase, literal := pathspecMagic(sp)
	if exclude || literal || !strings.ContainsAny(pat, "*?[") || strings.HasPrefix(sp, ":(glob") {
		return
	}
	pat = strings.ReplaceAll(slashes(pat), string(unknown), "*")
	first := strings.IndexAny(pat, "*?[")
	lit := strings.TrimPrefix(pat[:first], "./")
	tail := pat[strings.LastIndexAny(pat, "*?]")+1:]
	if icase {
		lit, tail = strings.ToLower(lit), strings.ToLower(tail)
	}
	leads := lit == "" || containsFold(lit, ".matrixx/")
	for _, d := range [...]string{".matrixx/tasks/", ".matrixx/plans/", ".matrixx/state/", ".matrixx/matrixx.json"} {
		leads = leads || strings.HasPrefix(d, lit)
	}
	if !leads || !storeTail(tail) {
		return
	}
	hit := ".matrixx/tasks/T-….json"
	st := tasks
	if strings.HasSuffix(tail, "md") || strings.HasSuffix(tail, "d") && !strings.HasSuffix(tail, "json") {
		hit, st = ".matrixx/plans/….md", plans
	}
	g.refuse(writeReason("Bash ("+cmd+" of the pattern "+sp+")", st, hit, ""), "bash:"+cmd+" pattern")
}

// storeTail reports whether the literal end of a pattern may end the name
// of a store file: T-<uuid>.json, <plan>.md, matrixx.json(c).
func storeTail(t string) bool {
	if t == "" {
		return true
	}
	t = strings.ToLower(t)
	for _, ext := range [...]string{".json", ".jsonc", ".md"} {
		if strings.HasSuffix(ext, t) {
			return true
		}
		if rest, ok := strings.CutSuffix(t, ext); ok {
			if ext == ".md" {
				return true
			}
			if strings.Trim(rest, "0123456789abcdef-t") == "" || rest == "matrixx" {
				return true
			}
		}
	}
	return false
}

// splitWords splits a git alias value into words (quotes honoured).
func splitWords(v string) ([]string, bool) {
	f, err := parse(": " + v)
	if err != nil || len(f.Stmts) != 1 {
		return nil, false
	}
	c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, false
	}
	var out []string
	for _, w := range c.Args[1:] {
		lit := w.Lit()
		if lit == "" {
			return nil, false
		}
		out = append(out, lit)
	}
	return out, true
}

// pathspecFile checks --pathspec-from-file: "-" reads the pathspecs from
// stdin (the guarded paths named upstream, or the known text), a file is
// not read: denied when the command names .matrixx.
func (g *shell) pathspecFile(rest []string, in input, sub string) {
	for i, a := range rest {
		v, ok := strings.CutPrefix(a, "--pathspec-from-file=")
		if !ok && a == "--pathspec-from-file" && i+1 < len(rest) {
			v, ok = rest[i+1], true
		}
		if !ok {
			continue
		}
		cmd := "git " + sub + " --pathspec-from-file"
		if v == "-" {
			for _, p := range in.paths {
				g.write(p, cmd, true)
			}
			if in.known {
				for line := range strings.SplitSeq(in.text, "\n") {
					if line = strings.TrimSpace(line); line != "" {
						g.write(line, cmd, true)
						g.specGlob(line, cmd)
					}
				}
			}
			if !in.known && len(in.paths) == 0 && g.e.taint {
				g.refuse(writeReason("Bash ("+cmd+": pathspecs the guard cannot read)", root, ".matrixx", ""), "bash:"+cmd)
			}
		} else if g.e.taint {
			g.refuse(writeReason("Bash ("+cmd+": pathspecs the guard cannot read)", root, ".matrixx", ""), "bash:"+cmd)
		}
		return
	}
}
