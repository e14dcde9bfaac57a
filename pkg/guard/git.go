package guard

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// git analyses the git subcommands that change files in the work tree:
// checkout and restore of paths, rm, mv, clean, stash push, apply.
func (s *shell) git(args []string, in input) {
	g := s
	i := 0
	workTree := ""
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
				g.cwd = cleanPath(joinPath(g.cwd, slashes(args[i+1])))
				i++
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
			i++
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
	switch sub {
	case "checkout":
		for _, p := range scan("git-checkout", rest, nil) {
			g.write(p, "git checkout", true)
		}
	case "restore":
		if (has("--staged", "-S") && !has("--worktree", "-W")) || has("-h") {
			return
		}
		for _, p := range scan("git-restore", rest, nil) {
			g.write(p, "git restore", true)
		}
	case "rm":
		if has("--cached") {
			return
		}
		for _, p := range scan("git-rm", rest, nil) {
			g.write(p, "git rm", true)
		}
	case "mv":
		for _, p := range scan("git-mv", rest, nil) {
			g.write(p, "git mv", true)
		}
	case "clean":
		g.gitClean(rest)
	case "worktree":
		if ops := scan("git-worktree", rest, nil); len(ops) >= 2 && ops[0] == "add" {
			g.write(ops[1], "git worktree add", true)
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
	case "submodule":
		if ops := scan("git-submodule", rest, nil); len(ops) >= 3 && ops[0] == "add" {
			g.write(ops[2], "git submodule add", true)
		}
	case "archive", "format-patch", "diff", "bundle":
		scan("git-"+sub, rest, func(opt, val string) {
			if opt == "o" || opt == "--output" || opt == "--output-directory" {
				g.write(val, "git "+sub+" "+flagName(opt), true)
			}
		})
	case "stash":
		ops := scan("git-stash", rest, nil)
		if len(ops) > 0 && (ops[0] == "push" || ops[0] == "save") {
			ops = ops[1:]
		}
		for _, p := range ops {
			g.write(p, "git stash", true)
		}
	case "apply", "am":
		if has("--check", "--stat", "--numstat", "--summary", "--cached") {
			return
		}
		ops := scan("git-apply", rest, nil)
		if len(ops) == 0 && in.known {
			for _, p := range diffTargets(in.text) {
				g.write(p, "git "+sub, true)
			}
		}
	}
}

// gitClean checks git clean: its pathspecs, and without a pathspec (or
// with ".", or ":/" from the top of the work tree) the .matrixx directory
// it would delete: untracked stores go with -x; with neither -x nor -X
// unless git ignores .matrixx; with -X only if it does. -n and
// --dry-run delete nothing, -e .matrixx keeps it.
func (g *shell) gitClean(rest []string) {
	dry, excluded, x, bigX := false, false, false, false
	ops := scan("git-clean", rest, func(opt, val string) {
		switch {
		case opt == "n" || opt == "--dry-run":
			dry = true
		case (opt == "e" || opt == "--exclude") && containsFold(val, "matrixx"):
			excluded = true
		case opt == "x":
			x = true
		case opt == "X":
			bigX = true
		}
	})
	if dry {
		return
	}
	for _, p := range ops {
		g.write(p, "git clean", true)
	}
	dir := g.cwd
	whole := len(ops) == 0
	for _, p := range ops {
		whole = whole || p == "." || p == "./"
		if p == ":/" {
			whole = true
			if top := gitTop(g.cwd); top != "" {
				dir = top
			}
		}
	}
	if !whole || excluded || !isAbs(dir) || g.denied() {
		return
	}
	fi, err := os.Stat(filepath.FromSlash(dir + "/.matrixx"))
	if err != nil || !fi.IsDir() {
		return
	}
	if !x {
		ignored := gitIgnores(dir, g.e.home)
		if ignored != bigX {
			return
		}
	}
	g.refuse(gitCleanReason(dir), "bash:git clean")
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

// gitIgnores reports whether git ignores the directory dir/.matrixx, as
// far as a plain reading of the ignore files tells: a line ".matrixx",
// ".matrixx/", "/.matrixx", "/.matrixx/", "**/.matrixx" or
// "**/.matrixx/" in dir/.gitignore (anchored ones only there), an
// unanchored one in the .gitignore of a directory above it up to the
// top of the work tree, in .git/info/exclude of the top, or in the
// user's git ignore file; and no later "!" line naming .matrixx. Any
// other form counts as not ignored (the stricter answer for git clean
// without -x).
func gitIgnores(dir, home string) bool {
	ignored := false
	read := func(file string, anchoredOK bool) {
		b, err := os.ReadFile(filepath.FromSlash(file))
		if err != nil || len(b) > 1<<20 {
			return
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			l := strings.TrimSpace(line)
			neg := strings.HasPrefix(l, "!")
			l = strings.TrimPrefix(l, "!")
			switch l {
			case ".matrixx", ".matrixx/", "**/.matrixx", "**/.matrixx/":
				ignored = !neg
			case "/.matrixx", "/.matrixx/":
				if anchoredOK {
					ignored = !neg
				}
			default:
				if neg && strings.Contains(l, ".matrixx") {
					ignored = false
				}
			}
		}
	}
	if home != "" {
		read(home+"/.config/git/ignore", false)
	}
	top := gitTop(dir)
	if top == "" {
		return false
	}
	read(top+"/.git/info/exclude", top == dir)
	var chain []string
	for d := dir; ; d = path.Dir(d) {
		chain = append(chain, d)
		if d == top || d == "/" || d == "." {
			break
		}
	}
	for k := len(chain) - 1; k >= 0; k-- {
		read(chain[k]+"/.gitignore", chain[k] == dir)
	}
	return ignored
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
