package guard

import (
	"path"
	"slices"
	"strings"
)

// cmdName is the name a command is known by: the base name of argv[0],
// lower case, without ".exe" ("" when it is not known).
func cmdName(a string) string {
	if a == "" || strings.IndexByte(a, unknown) >= 0 {
		return ""
	}
	if i := strings.LastIndexAny(a, `/\`); i >= 0 {
		a = a[i+1:]
	}
	a = strings.ToLower(a)
	return strings.TrimSuffix(a, ".exe")
}

// ownBinary reports whether name is one of the toolkit's binaries: their
// arguments may name the stores freely (they are the sanctioned way in).
func ownBinary(name string) bool {
	switch name {
	case "task-create", "task-get", "task-list", "task-update", "task-cleanup", "plan", "matrixx-hook":
		return true
	}
	return false
}

// shellName reports whether name is a shell that runs a script.
func shellName(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh", "rbash", "fish", "ksh93", "pdksh":
		return true
	}
	return false
}

// call analyses one simple command after expansion.
func (s *shell) call(argv []string, in input) {
	if s.denied() || len(argv) == 0 {
		return
	}
	name := cmdName(argv[0])
	args := argv[1:]
	s.mention(args)
	known := false // whether the command's output is known (emit)
	switch name {
	case "echo":
		s.emit(echoText(args))
		known = true
	case "printf":
		if t, ok := printfText(args); ok {
			s.emit(t)
			known = true
		}
	case "pwd":
		if s.cwd != "" && strings.IndexByte(s.cwd, unknown) < 0 {
			s.emit(s.cwd + "\n")
			known = true
		}
	case "cat":
		if len(scan(name, args, nil)) == 0 && in.known {
			s.emit(in.text)
			known = true
		}
	case "realpath", "readlink", "dirname", "basename":
		if t, ok := s.pathText(name, args); ok {
			s.emit(t)
			known = true
		}
	case "true", ":", "false", "set", "shopt", "unset", "test", "[", "exit", "return", "wait", "sleep":
		known = true
	case "cd", "pushd", "popd":
		// Builtins are case-sensitive, even where the file system is not.
		if argv[0] == name {
			s.cd(name, args)
		}
		known = true
	case "export", "declare", "local", "readonly", "typeset":
		for _, a := range args {
			if k, v, ok := strings.Cut(a, "="); ok && k != "" && k[0] != '-' {
				s.set(k, []string{v})
			}
		}
		known = true
	case "read":
		s.read(args, in)
		known = true
	case "mapfile", "readarray":
		s.mapfile(name, args, in)
		known = true
	case "alias":
		for _, a := range args {
			if _, v, ok := strings.Cut(a, "="); ok {
				s.script(v, s.pos)
			}
		}
		known = true
	case "source", ".":
		if len(args) > 0 {
			if text, ok := s.e.fds[args[0]]; ok { // source <(echo …)
				s.script(text, args)
			}
		}
	case "eval":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		s.script(strings.Join(args, " "), s.pos)
		return
	case "trap":
		if len(args) >= 2 && !strings.HasPrefix(args[0], "-") {
			s.script(args[0], s.pos)
		}
	case "watch":
		s.watch(args)
	case "su", "runuser":
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case (a == "-c" || a == "--command") && i+1 < len(args):
				s.script(args[i+1], nil)
				i++
			case strings.HasPrefix(a, "--command="):
				s.script(a[len("--command="):], nil)
			}
		}
	case "xargs":
		s.xargs(args, in)
	case "parallel":
		s.parallel(args)
	case "find":
		s.find(args)
	case "git":
		s.git(args, in)
	case "sudo", "doas", "command", "builtin", "exec", "nohup", "setsid", "chronic", "unbuffer",
		"caffeinate", "time", "nice", "ionice", "stdbuf", "timeout", "env", "flock", "strace", "ltrace",
		"valgrind", "busybox", "toybox", "xvfb-run", "dbus-run-session", "catchsegv", "proxychains",
		"proxychains4", "torsocks", "firejail", "bwrap", "unshare", "nsenter", "chroot", "fakeroot",
		"faketime", "script", "systemd-run", "taskset", "chrt", "cgexec", "numactl", "tsp", "sem":
		s.wrapper(name, args, in)
		return
	case "uv", "uvx", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "mamba", "micromamba", "pixi",
		"npx", "bunx", "pnpx", "pnpm", "yarn", "npm", "mise", "rtx", "asdf", "direnv", "devbox",
		"nix-shell", "nix", "pipx", "tox", "nox", "dotenv", "op", "aws-vault", "with-contenv", "gosu",
		"su-exec", "s6-setuidgid", "chpst":
		s.runner(name, args, in)
		return
	default:
		switch {
		case ownBinary(name):
		case shellName(name):
			s.shell(args, in)
		case interpreter(name) != "":
			s.interp(interpreter(name), name, args, in)
		default:
			s.mutate(name, args, in)
		}
	}
	if !known {
		s.outKnown = false
	}
}

// echoText is echo's output (escapes decoded with -e).
func echoText(args []string) string {
	nl, esc := true, false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'n':
				nl = false
			case 'e':
				esc = true
			case 'E':
				esc = false
			}
		}
	}
	t := strings.Join(args[i:], " ")
	if esc {
		t = ansiC(t)
	}
	if nl {
		t += "\n"
	}
	return t
}

// printfText is printf's output for the simple cases: a format without
// conversions, or "%s" and "%s\n" applied to the arguments.
func printfText(args []string) (string, bool) {
	if len(args) == 0 || args[0] == "-v" {
		return "", len(args) > 0
	}
	if args[0] == "--" {
		args = args[1:]
		if len(args) == 0 {
			return "", false
		}
	}
	f := args[0]
	switch {
	case strings.IndexByte(f, '%') < 0:
		return printfEscapes(f), true
	case f == "%s":
		return strings.Join(args[1:], ""), true
	case f == `%s\n`:
		return strings.Join(args[1:], "\n") + "\n", true
	}
	return "", false
}

func printfEscapes(f string) string {
	if strings.IndexByte(f, '\\') < 0 {
		return f
	}
	return ansiC(f)
}

// pathText is the output of realpath, readlink, dirname and basename.
func (s *shell) pathText(name string, args []string) (string, bool) {
	ops := scan(name, args, nil)
	if len(ops) != 1 || strings.IndexByte(ops[0], unknown) >= 0 {
		return "", false
	}
	p := slashes(ops[0])
	switch name {
	case "dirname":
		return path.Dir(p) + "\n", true
	case "basename":
		return path.Base(p) + "\n", true
	}
	if s.cwd == "" && !isAbs(p) {
		return "", false
	}
	return cleanPath(joinPath(s.cwd, p)) + "\n", true
}

// cd follows cd, pushd and popd.
func (s *shell) cd(name string, args []string) {
	if name == "popd" {
		s.oldpwd = s.cwd
		if n := len(s.dirs); n > 0 {
			s.cwd, s.dirs = s.dirs[n-1], slices.Clip(s.dirs[:n-1]) // shared with the parent scope
		} else {
			s.cwd = string(unknown)
		}
		return
	}
	dir, set := "", false
	for _, a := range args {
		if a == "--" || (len(a) > 1 && a[0] == '-') {
			continue
		}
		dir, set = a, true
		break
	}
	switch {
	case !set:
		dir = s.e.home
	case dir == "-":
		dir = s.oldpwd
	}
	if name == "pushd" {
		s.dirs = append(s.dirs, s.cwd)
	}
	s.oldpwd = s.cwd
	if dir == "" {
		s.cwd = string(unknown)
		return
	}
	s.cwd = cleanPath(joinPath(s.cwd, slashes(s.tilde(dir))))
}

// stdinValues are the candidate values of a line read from stdin: the
// first line when stdin is known, else unknown, and the guarded paths
// named upstream.
func stdinValues(in input) []string {
	vals := make([]string, 0, 1+len(in.paths))
	if in.known {
		line, _, _ := strings.Cut(in.text, "\n")
		vals = append(vals, strings.TrimSpace(line))
	} else {
		vals = append(vals, string(unknown))
	}
	return append(vals, in.paths...)
}

// read sets the variables of read from what stdin may hold.
func (s *shell) read(args []string, in input) {
	vals := stdinValues(in)
	for _, n := range scan("read", args, func(name, val string) {
		if name == "a" {
			s.set(val, vals)
		}
	}) {
		s.set(n, vals)
	}
}

// mapfile sets the array of mapfile/readarray from what stdin may hold.
func (s *shell) mapfile(name string, args []string, in input) {
	var vals []string
	if in.known {
		for l := range strings.SplitSeq(in.text, "\n") {
			if l != "" && len(vals) < maxFields {
				vals = append(vals, l)
			}
		}
	}
	vals = append(vals, in.paths...)
	if len(vals) == 0 {
		vals = append(vals, string(unknown))
	}
	ops := scan(name, args, nil)
	arr := "MAPFILE"
	if len(ops) > 0 {
		arr = ops[len(ops)-1]
	}
	s.set(arr, vals)
}

// shell analyses sh/bash/… : the -c string, or the script on stdin.
// A script file is not read (docs/guard.md, limits).
func (s *shell) shell(args []string, in input) {
	cmd := false
	i := 0
loop:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			i++
			break loop
		case len(a) < 2 || (a[0] != '-' && a[0] != '+'):
			break loop
		case a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--"):
		default:
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'c':
					cmd = true
				case 'o', 'O':
					i++
				}
			}
		}
	}
	ops := args[min(i, len(args)):]
	switch {
	case cmd:
		if len(ops) > 0 {
			s.script(ops[0], ops[1:])
		}
	case len(ops) == 0 && in.known:
		s.script(in.text, nil)
	case len(ops) > 0:
		if text, ok := s.e.fds[ops[0]]; ok { // bash <(echo …)
			s.script(text, ops)
		}
	}
}

// watch analyses watch's command (a shell string unless -x).
func (s *shell) watch(args []string) {
	execMode := false
	ops := scan("watch", args, func(name, _ string) {
		if name == "x" || name == "--exec" {
			execMode = true
		}
	})
	// -n SECS: the value is taken for an operand by scan; drop it.
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-n" || args[i] == "--interval" {
			for k, o := range ops {
				if o == args[i+1] {
					ops = append(ops[:k:k], ops[k+1:]...)
					break
				}
			}
			break
		}
	}
	if len(ops) == 0 {
		return
	}
	if execMode {
		s.call(ops, input{})
		return
	}
	s.script(strings.Join(ops, " "), nil)
}
