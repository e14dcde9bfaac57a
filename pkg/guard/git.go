package guard

import (
	"os"
	"path/filepath"
	"strings"
)

// git analyses the git subcommands that change files in the work tree:
// checkout and restore of paths, rm, mv, clean, stash push, apply.
func (s *shell) git(args []string, in input) {
	g := s
	i := 0
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
		case a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" ||
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
		if has("-n", "--dry-run") {
			return
		}
		excluded := false
		ops := scan("git-clean", rest, func(opt, val string) {
			if (opt == "e" || opt == "--exclude") && containsFold(val, "matrixx") {
				excluded = true
			}
		})
		for _, p := range ops {
			g.write(p, "git clean", true)
		}
		// Without a pathspec git clean empties the whole directory, the
		// stores too when git does not track them.
		whole := len(ops) == 0
		for _, p := range ops {
			whole = whole || p == "." || p == "./" || p == ":/"
		}
		if whole && !excluded && isAbs(g.cwd) {
			if fi, err := os.Stat(filepath.FromSlash(g.cwd + "/.matrixx")); err == nil && fi.IsDir() {
				g.write(".matrixx", "git clean without -e .matrixx", true)
			}
		}
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
