package guard

import (
	"strconv"
	"strings"
)

// find analyses find: -delete removes the start points (and the paths
// its -path patterns select), -exec/-execdir/-ok run a command on them,
// -fprint* write a file. A start point that holds a guarded directory the
// expression can select (by its -name, -path, -prune, -maxdepth tests) is
// reached: one path in that directory stands for what find hands to
// -delete, to -exec, or down a pipe (find . -name '*.md' | xargs sed -i).
func (s *shell) find(args []string) {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O")) {
		i++
	}
	if i < len(args) && args[i] == "-D" {
		i += 2
	}
	var starts []string
	for ; i < len(args); i++ {
		a := args[i]
		if a != "" && (a[0] == '-' || a == "(" || a == "!" || a == ")" || a == ",") {
			break
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = append(starts, ".")
	}
	f := treeFilter{maxDepth: -1, hidden: true}
	var patterns []string
	var execs [][]string
	destroy := false
	negated := false
	lastKind := ""
	for ; i < len(args); i++ {
		a := args[i]
		neg := negated
		negated = a == "!" || a == "-not"
		switch a {
		case "-delete":
			destroy = true
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			execs = append(execs, args[i+1:j])
			i = j
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(args) {
				s.write(args[i+1], "find "+a, true)
				i++
			}
			if a == "-fprintf" {
				i++
			}
		case "-path", "-wholename", "-ipath", "-iwholename", "-regex", "-iregex":
			if i+1 >= len(args) {
				continue
			}
			i++
			pat := args[i]
			regex := strings.HasSuffix(a, "regex")
			lastKind = ""
			switch {
			case neg && !regex:
				f.notPaths = append(f.notPaths, pat)
			case neg:
			default:
				patterns = append(patterns, pat)
				if regex {
					f.anyPath = true
				} else {
					f.paths = append(f.paths, pat)
					f.pathFold = append(f.pathFold, a[1] == 'i')
					lastKind = "path"
				}
			}
		case "-name", "-iname":
			if i+1 >= len(args) {
				continue
			}
			i++
			if neg {
				f.notNames = append(f.notNames, args[i])
				lastKind = ""
				continue
			}
			f.names = append(f.names, args[i])
			f.fold = append(f.fold, a == "-iname")
			lastKind = "name"
		case "-prune":
			// The test before -prune names what is cut from the walk.
			switch lastKind {
			case "path":
				if len(patterns) > 0 {
					patterns = patterns[:len(patterns)-1]
				}
				n := len(f.paths) - 1
				f.notPaths = append(f.notPaths, f.paths[n])
				f.paths, f.pathFold = f.paths[:n], f.pathFold[:n]
			case "name":
				n := len(f.names) - 1
				f.prune = append(f.prune, f.names[n])
				f.names, f.fold = f.names[:n], f.fold[:n]
			}
			lastKind = ""
		case "-maxdepth":
			if i+1 < len(args) {
				i++
				if n, err := strconv.Atoi(args[i]); err == nil && n >= 0 {
					f.maxDepth = n
				}
			}
		case "-type", "-xtype", "-newer", "-anewer", "-cnewer",
			"-mindepth", "-size", "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-user",
			"-group", "-uid", "-gid", "-perm", "-lname", "-ilname", "-printf", "-samefile", "-links",
			"-inum", "-used", "-fstype", "-context", "-regextype", "-files0-from":
			i++
		default:
			if strings.HasPrefix(a, "-newer") {
				i++
			}
		}
	}
	targets := append(starts, patterns...)
	walk := destroy || len(execs) > 0 || s.feeds
	if walk {
		for _, st := range starts {
			if len(targets) >= 2*maxFields {
				break
			}
			targets = append(targets, s.reach(st, f)...)
		}
		s.mentionPaths(targets[len(starts)+len(patterns):])
	}
	execTargets := targets[:min(len(targets), maxFields)]
	if destroy {
		for k, t := range targets {
			if k < len(starts) {
				s.unlink(t, "find -delete")
			} else {
				s.write(t, "find -delete", true)
			}
		}
	}
	for _, ex := range execs {
		if len(ex) == 0 {
			continue
		}
		for _, t := range execTargets {
			argv := make([]string, len(ex))
			for k, a := range ex {
				argv[k] = strings.ReplaceAll(a, "{}", t)
			}
			s.call(argv, input{})
		}
	}
}

// grepTree analyses a recursive search (grep -r, rg, ag, ack, fd) whose
// output feeds another command: the guarded paths under its roots that
// it can list stand for its output (grep -rl foo . | xargs sed -i).
func (s *shell) grepTree(name string, args []string) {
	fd := name == "fd" || name == "fdfind"
	if !s.feeds && !fd {
		return
	}
	f := treeFilter{maxDepth: -1}
	recursive := false
	var ops, execCmd []string
	explicitPattern := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			ops = append(ops, a)
			continue
		}
		key, val, hasVal := strings.Cut(a, "=")
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch name {
		case "grep", "egrep", "fgrep":
			switch {
			case key == "--include":
				f.names, f.fold = append(f.names, next()), append(f.fold, false)
			case key == "--exclude":
				f.notNames = append(f.notNames, next())
			case key == "--exclude-dir":
				f.prune = append(f.prune, next())
			case key == "--recursive" || key == "--dereference-recursive":
				recursive = true
			case key == "--regexp" || key == "--file":
				next()
				explicitPattern = true
			case strings.HasPrefix(a, "--"):
				if valuedGrep(key) && !hasVal {
					i++
				}
			default:
				for j := 1; j < len(a); j++ {
					c := a[j]
					if c == 'r' || c == 'R' {
						recursive = true
					}
					if c == 'e' || c == 'f' {
						explicitPattern = true
					}
					if strings.IndexByte("efmABCdD", c) >= 0 {
						if j+1 == len(a) {
							i++
						}
						break
					}
				}
			}
		default: // rg, ag, ack, fd: hidden directories only on request
			recursive = true
			if fd && (a == "-x" || a == "-X" || a == "--exec" || a == "--exec-batch") {
				execCmd = args[i+1:]
				i = len(args)
				continue
			}
			switch {
			case key == "--hidden" || a == "-." || a == "-uu" || a == "-uuu" || a == "-H" && name == "fd" ||
				a == "-u" && (name == "ag" || name == "fd"):
				f.hidden = true
			case strings.HasPrefix(a, "--") && !hasVal && valuedGrep(key):
				i++
			case len(a) == 2 && strings.IndexByte("egtTmAaBCjMdEcxX", a[1]) >= 0 && name != "ag":
				i++
			}
		}
	}
	if name == "grep" || name == "egrep" || name == "fgrep" {
		f.hidden = true
		if !explicitPattern && len(ops) > 0 {
			ops = ops[1:] // the pattern
		}
	} else if name != "fd" && name != "fdfind" && len(ops) > 0 {
		ops = ops[1:]
	} else if len(ops) > 0 {
		ops = ops[1:] // fd PATTERN [PATH…]
	}
	if !recursive || !f.hidden || (!s.feeds && len(execCmd) == 0) {
		return
	}
	if len(ops) == 0 {
		ops = []string{"."}
	}
	var reps []string
	for _, st := range ops[:min(len(ops), maxFields)] {
		reps = append(reps, s.reach(st, f)...)
	}
	s.mentionPaths(reps)
	for _, r := range reps[:min(len(reps), maxFields)] {
		argv := make([]string, 0, len(execCmd)+1)
		replaced := false
		for _, a := range execCmd {
			if strings.Contains(a, "{}") {
				replaced = true
			}
			argv = append(argv, strings.ReplaceAll(a, "{}", r))
		}
		if !replaced {
			argv = append(argv, r)
		}
		s.call(argv, input{})
	}
}

// valuedGrep reports whether a long option of grep/rg/ag/fd takes a value.
func valuedGrep(key string) bool {
	switch key {
	case "--include", "--exclude", "--exclude-dir", "--regexp", "--file", "--max-count", "--after-context",
		"--before-context", "--context", "--devices", "--directories", "--label", "--binary-files",
		"--glob", "--iglob", "--type", "--type-not", "--max-depth", "--maxdepth", "--ignore-file",
		"--extension", "--exec", "--exec-batch", "--search-path", "--base-directory", "--color",
		"--colors", "--max-filesize", "--threads", "--encoding", "--sort", "--sortr", "--replace",
		"--pre", "--pre-glob", "--engine", "--path-separator", "--max-columns", "--field-match-separator",
		"--field-context-separator", "--changed-within", "--changed-before", "--size", "--owner":
		return true
	}
	return false
}

// mentionPaths records guarded paths a command hands on (its output).
func (s *shell) mentionPaths(ps []string) {
	for _, p := range ps {
		if len(s.mentions) >= maxFields {
			return
		}
		if loc := s.e.locate(s.cwd, p, false); loc.st != outside {
			s.mentions = append(s.mentions, cleanPath(joinPath(s.cwd, slashes(p))))
		}
	}
}
