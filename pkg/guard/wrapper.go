package guard

import (
	"strings"
)

// wrapper analyses the command a wrapper (sudo, env, timeout, nice, …)
// runs, after its own options.
func (s *shell) wrapper(name string, args []string, in input) {
	i := 0
	c := s
	// opts skips the wrapper's options (and the values of those valued
	// says take one), leaving i at the command.
	opts := func(valued func(string) bool) {
		for ; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				i++
				return
			}
			if len(a) < 2 || a[0] != '-' {
				return
			}
			if strings.IndexByte(a, '=') < 0 && valued(a) {
				i++
			}
		}
	}
	switch name {
	case "command":
		for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			if args[i] == "--" {
				i++
				break
			}
			if strings.ContainsAny(args[i], "vV") {
				return // a lookup, nothing runs
			}
		}
	case "builtin", "nohup", "chronic", "unbuffer", "catchsegv", "fakeroot", "faketime", "proxychains",
		"proxychains4", "torsocks", "busybox", "toybox", "setsid", "dbus-run-session", "xvfb-run",
		"valgrind", "firejail", "unshare", "tsp", "sem":
		opts(func(string) bool { return false })
		if name == "faketime" && i < len(args) {
			i++ // the time stamp
		}
	case "exec":
		opts(func(a string) bool { return a == "-a" })
	case "caffeinate":
		opts(func(a string) bool { return a == "-t" || a == "-w" })
	case "time":
		opts(func(a string) bool {
			if (a == "-o" || a == "--output") && i+1 < len(args) {
				s.write(args[i+1], "time -o", true)
			}
			return a == "-f" || a == "--format" || a == "-o" || a == "--output"
		})
	case "nice":
		opts(func(a string) bool { return a == "-n" || a == "--adjustment" })
	case "ionice":
		opts(func(a string) bool { return a == "-c" || a == "-n" || a == "-p" || a == "-P" || a == "-u" })
	case "stdbuf":
		opts(func(a string) bool { return a == "-i" || a == "-o" || a == "-e" })
	case "timeout":
		opts(func(a string) bool { return a == "-s" || a == "-k" || a == "--signal" || a == "--kill-after" })
		i++ // the duration
	case "sudo":
		for ; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				i++
				break
			}
			if len(a) < 2 || a[0] != '-' {
				break
			}
			if a == "-e" || a == "--edit" {
				for _, p := range args[i+1:] {
					s.write(p, "sudo -e", true)
				}
				return
			}
			if a == "-l" || a == "--list" || a == "-v" || a == "--validate" || a == "-V" || a == "-k" || a == "-K" {
				return
			}
			switch a {
			case "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group",
				"--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user",
				"--command-timeout", "--chroot":
				if (a == "-D" || a == "--chdir") && i+1 < len(args) {
					c = s.sub()
					c.cwd = cleanPath(joinPath(s.cwd, slashes(args[i+1])))
				}
				i++
			}
		}
	case "doas":
		opts(func(a string) bool { return a == "-u" || a == "-C" })
	case "env":
		// value is the value of option a: attached to --long=, else the
		// next word (false when there is none).
		value := func(a, long string) (string, bool) {
			if v, ok := strings.CutPrefix(a, long+"="); ok {
				return v, true
			}
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		for ; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				i++
			case a == "-u" || a == "--unset":
				i++
				continue
			case a == "-C" || a == "--chdir" || strings.HasPrefix(a, "--chdir="):
				dir, ok := value(a, "--chdir")
				if !ok {
					return
				}
				if c == s {
					c = s.sub()
				}
				c.cwd = cleanPath(joinPath(c.cwd, slashes(dir)))
				continue
			case a == "-S" || a == "--split-string" || strings.HasPrefix(a, "--split-string="):
				str, ok := value(a, "--split-string")
				if !ok {
					return
				}
				rest := append([]string{str}, args[i+1:]...)
				c.script(strings.Join(rest, " "), nil)
				if c != s {
					s.absorb(c)
				}
				return
			case strings.HasPrefix(a, "-"):
				continue
			case strings.IndexByte(a, '=') > 0:
				k, v, _ := strings.Cut(a, "=")
				c.set(k, []string{v})
				s.e.export(k)
				continue
			}
			break
		}
	case "flock":
		opts(func(a string) bool {
			return a == "-E" || a == "-w" || a == "--timeout" || a == "--conflict-exit-code"
		})
		i++ // the lock file or descriptor
		if i+1 < len(args) && (args[i] == "-c" || args[i] == "--command") {
			s.script(args[i+1], nil)
			return
		}
	case "strace", "ltrace":
		for ; i < len(args); i++ {
			a := args[i]
			if a == "--" {
				i++
				break
			}
			if len(a) < 2 || a[0] != '-' {
				break
			}
			if strings.HasPrefix(a, "-o") && len(a) > 2 {
				s.write(a[2:], name+" -o", true)
			} else if len(a) == 2 && valued(name, a[1:]) && i+1 < len(args) {
				if a == "-o" {
					s.write(args[i+1], name+" -o", true)
				}
				i++
			}
		}
	case "script":
		for k := 0; k+1 < len(args); k++ {
			if args[k] == "-c" || args[k] == "--command" {
				s.script(args[k+1], nil)
			}
		}
		return
	case "systemd-run", "bwrap", "nsenter", "chroot", "taskset", "chrt", "cgexec", "numactl":
		// Option syntax too varied: run from the first argument that is
		// a command the guard knows.
		s.runner(name, args, in)
		return
	}
	if i < len(args) {
		c.call(args[i:], in)
	}
	if c != s {
		s.absorb(c)
	}
}

// runner analyses a tool runner (uv run, npx, poetry run, mise exec, …)
// whose own options the guard does not model: the command is taken from
// the first argument that names a command the guard knows (a shell, an
// interpreter, a command that writes, one of ours). nix-shell --run and
// nix … --command take a shell string.
func (s *shell) runner(name string, args []string, in input) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--run" || a == "--command" || a == "-c") && (name == "nix-shell" || name == "nix") && i+1 < len(args) {
			s.script(args[i+1], nil)
			return
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		n := cmdName(a)
		if ownBinary(n) || shellName(n) || interpreter(n) != "" || mutator(n) {
			s.call(args[i:], in)
			return
		}
		switch n {
		case "env", "sudo", "xargs", "find", "git", "eval", "timeout", "nice", "exec", "command":
			s.call(args[i:], in)
			return
		}
	}
}
