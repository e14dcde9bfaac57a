package guard

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// cmdName is the name a command is known by: the base name of argv[0],
// lower case, without ".exe" and without zsh's "=" (=rm is the path of
// rm); "" when it is not known. The unknown parts of a name are taken
// for empty (${UNSET}rm, $(false)rm and \r$X\m run rm): a name that is
// wholly unknown stays unknown.
func cmdName(a string) string {
	if strings.IndexByte(a, unknown) >= 0 {
		a = strings.ReplaceAll(a, string(unknown), "")
	}
	if a == "" {
		return ""
	}
	if i := strings.LastIndexAny(a, `/\`); i >= 0 {
		a = a[i+1:]
	}
	a = strings.ToLower(strings.TrimPrefix(a, "="))
	return strings.TrimSuffix(a, ".exe")
}

// progName is the name the command argv[0] runs as: through the links and
// copies made earlier in the command (ln -s /bin/rm /tmp/task-get;
// /tmp/task-get …), through a symlink on disk when argv[0] is a path,
// and through a link or copy the command put in a directory it added to
// PATH (PATH=/tmp/x:$PATH task-get …). The resolved name is used when the
// guard knows it, else the name as written.
func (s *shell) progName(a string) string {
	name := cmdName(a)
	if name == "" {
		return ""
	}
	var target string
	if strings.ContainsAny(a, `/\`) {
		p := cleanPath(joinPath(s.cwd, slashes(a)))
		target = s.e.throughLinks(p, false)
		if target == "" {
			target = s.e.copies[p]
		}
		if target == "" && isAbs(p) && !strings.ContainsAny(p, "\x00*?[") {
			if r := resolve(p); r != p {
				target = r
			}
		}
	} else if pathVals, ok := s.vars["PATH"]; ok && (len(s.e.links) > 0 || len(s.e.copies) > 0) {
		for _, pv := range pathVals {
			for dir := range strings.SplitSeq(pv, ":") {
				if dir == "" || strings.IndexByte(dir, unknown) >= 0 {
					continue
				}
				p := cleanPath(joinPath(s.cwd, slashes(dir))) + "/" + a
				if t := s.e.throughLinks(p, false); t != "" {
					target = t
				} else if t := s.e.copies[p]; t != "" {
					target = t
				}
				if target != "" {
					break
				}
			}
		}
	}
	if t := cmdName(target); t != "" && t != name && knownCmd(t) {
		return t
	}
	return name
}

// knownCmd reports whether the guard models the command name (it writes,
// runs code or wraps another command).
func knownCmd(name string) bool {
	return mutator(name) || interpreter(name) != "" || shellName(name) || wrapperName(name)
}

// wrapperName reports whether name runs another command (see wrapper).
func wrapperName(name string) bool {
	switch name {
	case "sudo", "doas", "command", "builtin", "exec", "nohup", "setsid", "chronic", "unbuffer",
		"caffeinate", "time", "nice", "ionice", "stdbuf", "timeout", "env", "flock", "strace", "ltrace",
		"valgrind", "busybox", "toybox", "xvfb-run", "dbus-run-session", "catchsegv", "proxychains",
		"proxychains4", "torsocks", "firejail", "bwrap", "unshare", "nsenter", "chroot", "fakeroot",
		"faketime", "script", "systemd-run", "taskset", "chrt", "cgexec", "numactl", "tsp", "sem",
		"noglob", "nocorrect", "eval", "xargs", "find", "git", "parallel", "watch", "su", "runuser":
		return true
	}
	return false
}

// ownBinary reports whether name is one of the toolkit's binaries (the
// command table's): their arguments may name the stores freely (they are
// the sanctioned way in).
func ownBinary(name string) bool {
	return commands.Own(name)
}

// hookSubcommand is the subcommand of a matrixx-hook command line: its
// first argument that is no flag (-C and --dir take the next one).
func hookSubcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "--dir":
			i++
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
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
	if s.denied() || len(argv) == 0 || !s.e.charge(1, 0) {
		return
	}
	s.defined(argv, in)
	name := s.progName(argv[0])
	args := argv[1:]
	if name == "" && strings.Trim(argv[0], string(unknown)) == "" && len(args) > 0 {
		// An unquoted expansion that is empty vanishes: $X rm … runs rm.
		s.call(args, in)
	}
	if name != "find" { // find's output is judged by what its expression selects
		s.mention(args)
	}
	s.dataCode(args)
	if len(args) > 0 {
		defer func() { s.last = args[len(args)-1] }() // $_: the last argument
	}
	f, hashed := s.e.hashed[name]
	if hashed && !strings.ContainsAny(argv[0], `/\`) && f != "" {
		// hash -p PATH NAME: NAME runs PATH.
		if t := cmdName(f); t != "" && t != name {
			s.call(append([]string{f}, args...), in)
			return
		}
	}
	if hashed && f == "" || s.e.madeProg(s, argv[0]) {
		// A program the command itself wrote (cat /bin/rm > x, dd of=x,
		// printf … > x): what it does is not known.
		for _, a := range args {
			s.globs()
			if loc := s.e.locate(s.cwd, a, false); loc.st != outside {
				s.refuse(handedReason("Bash ("+argv[0]+", a program the command wrote)", loc.st, a, loc.resolved), "bash:made program")
				return
			}
		}
	}
	known := false // whether the command's output is known (emit)
	switch name {
	case "echo":
		s.emit(echoText(args))
		known = true
	case "printf":
		if v, rest, ok := printfVar(args); ok {
			// printf -v NAME FORMAT …: the output goes to a variable.
			s.printfVar(v, rest)
			known = true
			break
		}
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
	case "whoami":
		s.emit(selfUser + "\n")
		known = true
	case "id":
		if idSelf(args) {
			s.emit(selfUser + "\n")
			known = true
		}
	case "realpath", "readlink", "dirname", "basename":
		if t, ok := s.pathText(name, args); ok {
			s.emit(t)
			known = true
		}
	case "true", ":", "false", "test", "[", "exit", "return", "wait", "sleep":
		known = true
	case "enable":
		// enable -f FILE NAME: NAME becomes a builtin loaded from FILE,
		// code the guard does not know.
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-f" {
				for _, n := range args[i+2:] {
					s.e.hash(n, "")
				}
				break
			}
		}
		known = true
	case "hash":
		for i := 0; i+2 < len(args); i++ {
			if args[i] == "-p" {
				for _, n := range args[i+2:] {
					s.e.hash(n, args[i+1])
				}
				break
			}
		}
		known = true
	case "shopt":
		s.shopt(args)
		known = true
	case "setopt", "unsetopt":
		on := name == "setopt"
		for _, a := range args {
			if v, ok := zshGlobDots(a); ok {
				s.dotglob = v == on
			}
		}
		known = true
	case "unset":
		fn := false
		for _, a := range args {
			switch {
			case a == "-f":
				fn = true
			case a == "-v":
				fn = false
			case a == "GLOBIGNORE" && !fn:
				s.dotglob = false // bash turns dotglob off with it
			}
		}
		known = true
	case "set":
		s.setPositional(args)
		known = true
	case "shift":
		if len(s.pos) > 1 {
			n := 1
			if len(args) > 0 {
				if k, err := strconv.Atoi(args[0]); err == nil && k >= 0 {
					n = k
				}
			}
			n = min(n, len(s.pos)-1)
			s.pos = append([]string{s.pos[0]}, s.pos[1+n:]...)
		}
		known = true
	case "cd", "pushd", "popd":
		// Builtins are case-sensitive, even where the file system is not.
		if strings.ReplaceAll(argv[0], string(unknown), "") == name {
			s.cd(name, args)
		}
		known = true
	case "export", "declare", "local", "readonly", "typeset":
		ref := false
		exp := name == "export"
		for _, a := range args {
			if strings.HasPrefix(a, "-") && strings.IndexByte(a, 'n') > 0 {
				ref = true
			}
			if strings.HasPrefix(a, "-") && strings.IndexByte(a, 'x') > 0 {
				exp = true
			}
			k, v, ok := strings.Cut(a, "=")
			if exp && k != "" && k[0] != '-' {
				s.e.export(k)
			}
			switch {
			case !ok || k == "" || k[0] == '-':
			case ref:
				if s.e.refs == nil {
					s.e.refs = make(map[string]string)
				}
				s.e.refs[k] = v
			default:
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
			if k, v, ok := strings.Cut(a, "="); ok {
				if s.e.aliases == nil {
					s.e.aliases = make(map[string]string)
				}
				s.e.aliases[k] = v
				s.script(v, s.pos)
			}
		}
		known = true
	case "source", ".":
		if len(args) > 0 {
			if text, ok := s.e.fds[args[0]]; ok { // source <(echo …)
				s.evalScript(text, args)
			} else if stdinFile(args[0]) && in.known {
				s.evalScript(in.text, args)
			}
		}
	case "eval":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		s.evalScript(strings.Join(args, " "), s.pos)
		return
	case "trap":
		if len(args) >= 2 && !strings.HasPrefix(args[0], "-") {
			// A DEBUG trap runs before each later command, in the
			// current shell; the others run once, later.
			if slices.Contains(args[1:], "DEBUG") {
				s.evalScript(args[0], s.pos)
			} else {
				s.script(args[0], s.pos)
			}
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
		s.parallel(args, in)
	case "find":
		s.find(args)
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "fd", "fdfind":
		s.grepTree(name, args)
	case "git":
		s.git(args, in)
	case "ls", "dir", "vdir":
		s.ls(args)
	case "sudo", "doas", "command", "builtin", "exec", "nohup", "setsid", "chronic", "unbuffer",
		"caffeinate", "time", "nice", "ionice", "stdbuf", "timeout", "env", "flock", "strace", "ltrace",
		"valgrind", "busybox", "toybox", "xvfb-run", "dbus-run-session", "catchsegv", "proxychains",
		"proxychains4", "torsocks", "firejail", "bwrap", "unshare", "nsenter", "chroot", "fakeroot",
		"faketime", "script", "systemd-run", "taskset", "chrt", "cgexec", "numactl", "tsp", "sem",
		"noglob", "nocorrect":
		s.wrapper(name, args, in)
		return
	case "uv", "uvx", "poetry", "pipenv", "pdm", "hatch", "rye", "conda", "mamba", "micromamba", "pixi",
		"npx", "bunx", "pnpx", "pnpm", "yarn", "npm", "mise", "rtx", "asdf", "direnv", "devbox",
		"nix-shell", "nix", "pipx", "tox", "nox", "dotenv", "op", "aws-vault", "with-contenv", "gosu",
		"su-exec", "s6-setuidgid", "chpst":
		s.runner(name, args, in)
		return
	default:
		if body, ok := s.e.funcs["command_not_found_handle"]; ok && !ownBinary(name) && !knownCmd(name) &&
			name != "command_not_found_handle" && s.e.calls < maxDepth {
			// bash runs the handler for a command it does not find; the
			// guard cannot tell which names are found.
			s.e.calls++
			c := s.sub()
			c.pos = argv
			c.stmt(body, in)
			s.absorb(c)
			s.e.calls--
		}
		switch {
		case name == commands.BinHook && hookSubcommand(args) == "accept":
			s.refuse(acceptReason, "bash:matrixx-hook accept")
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

// idSelf reports whether id prints the user who runs it: id -u, id -un,
// id -u -n, id --user [--name] without a user operand.
func idSelf(args []string) bool {
	user := false
	for _, a := range args {
		switch a {
		case "-u", "--user", "-un", "-nu", "-ur", "-ru", "-urn", "-unr":
			user = true
		case "-n", "--name", "-r", "--real":
		default:
			return false
		}
	}
	return user
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

// printfText is printf's output when the guard knows all of it.
func printfText(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "-v" {
		return "", true // printf -v with no name: an error, no output
	}
	t, ok := printfOut(args)
	if !ok || strings.IndexByte(t, unknown) >= 0 {
		return "", false
	}
	return t, true
}

// printfVar sets the variable of printf -v NAME FORMAT ARGS… to the text
// printf builds (its unknown parts, if any, stay unknown); when the
// format is not known, to an unknown value and the guarded paths the
// arguments name, as read does with what stdin may hold.
func (s *shell) printfVar(name string, args []string) {
	if t, ok := printfOut(args); ok {
		s.e.charge(0, len(t))
		s.set(name, []string{t})
		return
	}
	vals := []string{string(unknown)}
	wide := len(s.e.extra) > 0 || s.cwdStore() != outside
	for _, a := range args {
		if p, ok := s.guardedArg(a, wide); ok && len(vals) < maxFields {
			vals = append(vals, p)
		}
	}
	s.set(name, vals)
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
		s.setAlts(nil)
		return
	}
	dir, set := "", false
	var more []string // the word's other values (a loop variable's)
	for _, a := range args {
		if a == "--" || (len(a) > 1 && a[0] == '-') {
			continue
		}
		if set {
			more = append(more, a)
			continue
		}
		dir, set = a, true
	}
	bases := append([]string{s.cwd}, s.alts()...)
	switch {
	case !set:
		dir = s.e.home
	case dir == "-":
		dir = s.oldpwd
	}
	if name == "pushd" {
		// The stack is copied when a scope shares it (append to a
		// clipped slice): charge that copy.
		if !s.e.charge(len(s.dirs), 16*len(s.dirs)) {
			return
		}
		s.dirs = append(s.dirs, s.cwd)
	}
	s.oldpwd = s.cwd
	if dir == "" {
		s.cwd = string(unknown)
		s.setAlts(nil)
		return
	}
	if !s.e.charge(1, len(s.cwd)+len(dir)) {
		return
	}
	s.setAlts(s.dirsOf(bases, dir, more))
	s.cwd = cleanPath(joinPath(s.cwd, slashes(s.tilde(dir))))
	// CDPATH set in the command: a relative name may be found in any of
	// its directories; one in a store is taken (the safe side).
	if cdp, ok := s.vars["CDPATH"]; ok && !isAbs(slashes(dir)) && dir != "." && dir != ".." &&
		!strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") {
		for _, v := range cdp {
			for base := range strings.SplitSeq(v, ":") {
				if base == "" || strings.IndexByte(base, unknown) >= 0 {
					continue
				}
				c := cleanPath(joinPath(cleanPath(joinPath(bases[0], slashes(s.tilde(base)))), slashes(dir)))
				s.globs()
				if s.e.classify(c) != outside {
					s.cwd = c
					return
				}
			}
		}
	}
}

// dirsOf are the directories other than the first that a cd (or git -C)
// from any of bases (the current directory and its alternatives) to a
// word whose values are first and more may reach: each value from each
// base, a glob in the first value too (git clean expands the others'),
// at most maxFields. Values not known are left out.
func (s *shell) dirsOf(bases []string, first string, more []string) []string {
	if len(bases) == 1 && len(more) == 0 && !strings.ContainsAny(first, "*?[") {
		return nil
	}
	var out []string
	for k, b := range bases {
		for j, v := range append([]string{first}, more...) {
			if k == 0 && j == 0 || strings.IndexByte(v, unknown) >= 0 || len(out) >= maxFields {
				continue
			}
			out = append(out, cleanPath(joinPath(b, slashes(s.tilde(v)))))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
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

// shell analyses sh/bash/… : the -c string, or the script on stdin, and
// the startup code it runs from the environment the command gave it
// (BASH_ENV or ENV naming a process substitution, PROMPT_COMMAND). A
// script file is not read (docs/guard.md, limits).
func (s *shell) shell(args []string, in input) {
	for _, v := range [...]string{"BASH_ENV", "ENV", "PROMPT_COMMAND"} {
		vals, ok := s.vars[v]
		if !ok {
			continue
		}
		for _, val := range vals {
			if text, ok := s.e.fds[val]; ok {
				s.script(text, nil)
			} else if v == "PROMPT_COMMAND" {
				s.script(val, nil)
			}
		}
	}
	cmd := false
	// bash -O dotglob, zsh -o globdots: the script runs with dotglob.
	saved := s.dotglob
	defer func() { s.dotglob = saved }()
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
					if i+1 < len(args) {
						if v, ok := zshGlobDots(args[i+1]); ok {
							s.dotglob = v == (a[0] == '-')
						}
					}
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
		} else if stdinFile(ops[0]) && in.known { // bash /dev/stdin <<< …
			s.script(in.text, ops)
		} else if fdScript(ops[0]) && s.e.taint {
			s.refuse(writeReason("Bash ("+ops[0]+": a script the guard cannot read)", root, ".matrixx", ""), "bash:fd script")
		}
	}
}

// fdScript reports whether a script path names an open file descriptor
// other than a known stdin (/dev/fd/3, /proc/self/fd/4).
func fdScript(p string) bool {
	return fdPath(cleanPath(slashes(strings.ReplaceAll(p, string(unknown), "x")))) != ""
}

// stdinFile reports whether a script path names the standard input:
// /dev/stdin, /dev/fd/0, /proc/self/fd/0.
func stdinFile(p string) bool {
	return fdPath(cleanPath(slashes(p))) == "0"
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

// defined analyses a call of a shell function or an alias the command
// defined, with the call's arguments: the function body in the current
// scope ($1 … are the arguments; its cd and variables stay, as in bash),
// the alias as its text followed by the arguments. The command is then
// analysed by its name as well: a function defined in a subshell does
// not shadow the command outside it, and analysing both is the safe side.
func (s *shell) defined(argv []string, in input) {
	if s.e.calls >= maxDepth || (len(s.e.funcs) == 0 && len(s.e.aliases) == 0) {
		return
	}
	if body, ok := s.e.funcs[argv[0]]; ok {
		s.e.calls++
		saved := s.pos
		pos0 := "bash"
		if len(saved) > 0 {
			pos0 = saved[0]
		}
		s.pos = append([]string{pos0}, argv[1:]...)
		s.stmt(body, in)
		s.pos = saved
		s.e.calls--
	}
	if v, ok := s.e.aliases[argv[0]]; ok {
		s.e.calls++
		s.evalScript(commandLine(v, argv[1:]), s.pos)
		s.e.calls--
	}
}

// shopt follows shopt -s/-u dotglob.
func (s *shell) shopt(args []string) {
	on, set := false, false
	for _, a := range args {
		switch {
		case a == "-o":
			return // the set -o options: no dotglob among them
		case len(a) > 1 && a[0] == '-':
			if strings.IndexByte(a, 's') > 0 {
				on, set = true, true
			}
			if strings.IndexByte(a, 'u') > 0 {
				on, set = false, true
			}
		case a == "dotglob" && set:
			s.dotglob = on
		}
	}
}

// zshGlobDots reads a zsh option name (case and underscores ignored):
// whether it is globdots (or its alias dotglob), and with which value
// ("noglobdots" is false).
func zshGlobDots(a string) (on, ok bool) {
	n := strings.ToLower(strings.ReplaceAll(a, "_", ""))
	on = true
	if strings.HasPrefix(n, "no") && n != "no" {
		n, on = n[2:], false
	}
	return on, n == "globdots" || n == "dotglob"
}

// setPositional follows set -- ARGS (and set ARGS): the positional
// parameters become ARGS; zsh's set -o globdots turns dotglob on.
func (s *shell) setPositional(args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			s.setPos(args[i+1:])
			return
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if a[0] == '-' && (strings.IndexByte(a, 'a') > 0 || strings.IndexByte(a, 'o') > 0 && i+1 < len(args) && args[i+1] == "allexport") {
				s.e.allExport = true // set -a: every variable set is exported
			}
			if strings.IndexByte(a, 'o') >= 0 && i+1 < len(args) {
				if v, ok := zshGlobDots(args[i+1]); ok {
					s.dotglob = v == (a[0] == '-')
				}
				i++ // set -o pipefail
			}
		default:
			s.setPos(args[i:])
			return
		}
	}
}

func (s *shell) setPos(vals []string) {
	pos0 := "bash"
	if len(s.pos) > 0 {
		pos0 = s.pos[0]
	}
	s.pos = append([]string{pos0}, vals[:min(len(vals), maxFields)]...)
}
