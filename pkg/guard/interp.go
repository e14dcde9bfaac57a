package guard

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// interpreter returns the language family of an interpreter command ("" if
// name is none).
func interpreter(name string) string {
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		return "python"
	}
	switch name {
	case "node", "nodejs", "ts-node", "tsx":
		return "node"
	case "bun":
		return "bun"
	case "deno":
		return "deno"
	case "perl":
		return "perl"
	case "ruby":
		return "ruby"
	case "php":
		return "php"
	case "lua", "luajit":
		return "lua"
	case "rscript", "julia", "osascript", "groovy":
		return "eflag"
	case "pwsh", "powershell":
		return "pwsh"
	case "awk", "gawk", "mawk", "nawk":
		return "awk"
	case "tclsh", "wish":
		return "stdin"
	}
	return ""
}

// program is what an interpreter is asked to run.
type program struct {
	code    string   // inline code (-c, -e, …) or the script read on stdin
	known   bool     // code is known (not a script file or module)
	script  string   // the script file, when the code comes from one
	module  string   // the module run (python -m NAME)
	args    []string // the program's arguments (files for perl -n/-p, sys.argv, …)
	inplace bool     // perl -i, ruby -i, gawk -i inplace: args are edited in place
	loads   bool     // an option loads code from files (node -r, perl -I, lua -l, php -d)
}

// interp checks an interpreter run: in-place editing of its file
// arguments, and inline code that writes (open(…, 'w'), write_text,
// unlink, os.system, …) while naming a guarded path (in the code or in
// its arguments) or running inside a store. A script file is not read
// (docs/guard.md, limits).
func (s *shell) interp(family, name string, args []string, in input) {
	p := parseProgram(family, args, in)
	if !p.known && p.script != "" {
		p.code, p.known = s.e.fds[p.script]  // python3 <(echo …)
		if !p.known && stdinFile(p.script) { // python3 /dev/stdin <<< …
			p.code, p.known = in.text, in.known
		}
	}
	if p.inplace {
		for _, a := range p.args {
			if !strings.HasPrefix(a, "-") {
				s.write(a, name+" -i", true)
			}
		}
	}
	if s.denied() {
		return
	}
	if family != "awk" {
		if s.magicArgs(name, p.args) {
			return
		}
		// A store path handed to the program (an argument after its code,
		// script or module, or an exported variable) is denied unless the
		// guard can see that the program only reads: inline code with no
		// write intent and nothing that hides code or writes its
		// arguments in place (readingCode), or a module known to read
		// (readingModule). A script file's code is not read, so a script
		// handed a store path is denied whatever it does.
		switch {
		case p.known && !p.loads && readingCode(family, p.code) && !s.codeEnv():
		case p.module != "" && s.readingModule(name, p.module, p.args):
			if s.denied() {
				return
			}
		default:
			if s.interpArgs(name, p.args) || s.interpEnv(name) {
				return
			}
		}
	}
	if p.known && s.stdinReopen(name, p.code, in) {
		return
	}
	if !p.known || !writeIntent(p.code, family == "awk") {
		return
	}
	if len(s.e.codes) < maxFields && len(p.code) <= maxOut {
		s.e.codes = append(s.e.codes, p.code)
	}
	via := "Bash (" + name + " code that writes)"
	if hit := stdinStore(in); hit != "" {
		// Paths that arrive on stdin (a pipe, a here-string) reach code
		// that writes.
		s.refuse(writeReason(via, s.e.classify(hit), hit, ""), "bash:"+name)
		return
	}
	if hit, st := s.e.codeMention(p.code); st != outside {
		s.refuse(writeReason(via, st, hit, ""), "bash:"+name)
		return
	}
	for _, a := range p.args {
		if strings.HasPrefix(a, "-") {
			if i := strings.IndexByte(a, '='); i >= 0 {
				a = a[i+1:]
			} else {
				continue
			}
		}
		s.globs()
		if loc := s.e.locate(s.cwd, a, false); loc.st != outside {
			s.refuse(writeReason(via, loc.st, a, loc.resolved), "bash:"+name)
			return
		}
		if s.e.leased != nil {
			if why := s.e.leaseHit(cleanPath(joinPath(s.cwd, slashes(s.tilde(a)))), false); why != "" {
				s.refuse(leaseReason(via, a, why), "lease:"+name)
				return
			}
		}
	}
	if st := s.cwdStore(); st != outside {
		s.refuse(writeReason(via, st, s.cwd, ""), "bash:"+name)
	}
}

// readingCode reports whether inline code only reads the paths it is
// handed: no write intent (writeIntent), and none of what writes a
// program's arguments without naming them or hides what the code does:
// an in-place switch set from the code (Perl $^I, Ruby $-i, Python's
// fileinput inplace=True), a shell-out by backticks or qx/%x, code built
// and run at run time (eval, exec, decoded bytes, names looked up by
// string), or a hard link made into a store.
func readingCode(family, code string) bool {
	if writeIntent(code, false) {
		return false
	}
	low := strings.ToLower(code)
	for _, w := range [...]string{
		"$^i", "$-i", "inplace", "eval", "compile(", "__import__", "importlib", "getattr(",
		"chr(", "pack(", "fromhex", "b64decode", "base64", "fromcharcode", "atob(", "buffer.from(",
		"linksync", "link_to", "mkdtemp", "qx", "%x", "syscall", "ffi", "ctypes", "dlopen",
	} {
		if strings.Contains(low, w) {
			return false
		}
	}
	switch family {
	case "perl", "ruby", "php":
		if strings.ContainsRune(code, '`') {
			return false // a shell-out
		}
	}
	return true
}

// codeEnv reports whether the command puts in the environment of what it
// runs a variable that makes an interpreter load code or switch modes
// (PERL5OPT=-i, NODE_OPTIONS=--require, PYTHONPATH, RUBYOPT, LD_PRELOAD,
// …): the code on the command line is then not all that runs.
func (s *shell) codeEnv() bool {
	codeVar := func(k string) bool {
		u := strings.ToUpper(k)
		for _, pre := range [...]string{"PERL", "RUBY", "NODE_", "PYTHON", "LD_", "DYLD_", "LUA_", "PHP", "BUN_", "DENO_", "BASH_ENV", "ENV"} {
			if strings.HasPrefix(u, pre) {
				return true
			}
		}
		return false
	}
	for k := range s.e.exported {
		if codeVar(k) {
			return true
		}
	}
	if s.e.allExport {
		for k := range s.vars {
			if codeVar(k) {
				return true
			}
		}
	}
	return false
}

// readingModule reports whether python -m module only reads the paths it
// is handed, checking the ones it writes as writes. json.tool reads its
// first file operand and writes its second (python -m json.tool IN OUT:
// OUT is written, so a store path there is denied).
func (s *shell) readingModule(name, module string, args []string) bool {
	if module != "json.tool" {
		return false
	}
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, b := range args[i+1:] {
				if n++; n > 1 {
					s.write(b, name+" -m json.tool", true)
				}
			}
			return true
		case len(a) > 1 && a[0] == '-':
			// --indent N (or an abbreviation of it) takes a value.
			if len(a) >= 4 && strings.HasPrefix("--indent", a) {
				i++
			}
			continue
		}
		if n++; n > 1 {
			s.write(a, name+" -m json.tool", true)
		}
	}
	return true
}

// magicArgs denies a program argument that a two-argument open (Perl's
// <> over its file arguments and open(F, $ARGV[0]), Ruby's Kernel#open)
// takes as a mode or a command rather than a file name: '>FILE',
// '>>FILE', '+<FILE', '|CMD' or 'CMD|', when it names .matrixx.
func (s *shell) magicArgs(name string, args []string) bool {
	for _, a := range args {
		t := strings.TrimSpace(a)
		if t == "" || !containsFold(t, "matrixx") {
			continue
		}
		if t[0] != '>' && t[0] != '+' && t[0] != '|' && !strings.HasSuffix(t, "|") {
			continue
		}
		target := strings.TrimSpace(strings.TrimLeft(t, ">+<|"))
		if t[0] != '|' && !strings.HasSuffix(t, "|") {
			s.globs()
			if loc := s.e.locate(s.cwd, target, false); loc.st == outside {
				continue
			}
		}
		s.refuse(handedReason("Bash ("+name+", as an argument a two-argument open writes or runs)", s.e.classify(cleanPath(joinPath(s.cwd, slashes(target)))), a, ""), "bash:"+name+" argument")
		return true
	}
	return false
}

// interpArgs denies an interpreter run whose program arguments name a
// guarded path (or the .matrixx directory itself).
func (s *shell) interpArgs(name string, args []string) bool {
	for _, a := range args {
		if i := strings.IndexByte(a, '='); i >= 0 && (strings.HasPrefix(a, "-") || !containsFold(a[:i], "matrixx")) {
			a = a[i+1:] // --file=PATH, KEY=PATH
		} else if strings.HasPrefix(a, "-") {
			continue
		}
		s.globs()
		if loc := s.e.locate(s.cwd, a, false); loc.st != outside {
			s.refuse(handedReason("Bash ("+name+", as an argument)", loc.st, a, loc.resolved), "bash:"+name+" argument")
			return true
		}
	}
	return false
}

// interpEnv denies an interpreter run when a variable the command put in
// its environment (FOO=x cmd, export, declare -x, set -a) names a guarded
// path or the .matrixx directory.
func (s *shell) interpEnv(name string) bool {
	if len(s.e.exported) == 0 && !s.e.allExport {
		return false
	}
	for k, vals := range s.vars {
		if !s.e.allExport && !s.e.exported[k] {
			continue
		}
		for _, v := range vals {
			for part := range strings.SplitSeq(v, ":") {
				if part == "" || strings.IndexByte(part, unknown) >= 0 && !containsFold(part, "matrixx") {
					continue
				}
				s.globs()
				if loc := s.e.locate(s.cwd, part, false); loc.st != outside {
					s.refuse(handedReason("Bash ("+name+", in its environment as $"+k+")", loc.st, part, loc.resolved), "bash:"+name+" environment")
					return true
				}
			}
		}
	}
	return false
}

// stdinStore is a guarded path that reaches a program on stdin: named
// upstream in a pipe, or in the known text of a pipe or here-string.
func stdinStore(in input) string {
	if in.from != "" {
		return "" // stdin is the file's content, not its name (stdinReopen)
	}
	if len(in.paths) > 0 {
		return in.paths[0]
	}
	if in.known && in.text != "" {
		if hit := mentioned(normText(in.text), nil); hit != "" {
			return hit
		}
	}
	return ""
}

// stdinReopen denies code that reopens a stdin redirected from a guarded
// file for writing (open('/dev/stdin', 'w'), os.ftruncate(0, 0),
// /proc/self/fd/0): the code names no store, its stdin does.
func (s *shell) stdinReopen(name, code string, in input) bool {
	from := in.from
	if from == "" {
		from = s.e.openedOn("*")
	}
	if from == "" || !writeIntent(code, false) {
		return false
	}
	low := strings.ToLower(code)
	for _, w := range [...]string{"/dev/stdin", "/dev/fd", "/proc/", "fileno", "ftruncate", "truncate", "stdin", "fd 0", "(0", "0,"} {
		if strings.Contains(low, w) {
			s.refuse(writeReason("Bash ("+name+" code that writes to its stdin)", s.e.classify(cleanPath(joinPath(s.cwd, slashes(from)))), from, ""), "bash:"+name+" stdin")
			return true
		}
	}
	return false
}

// openedOn is the guarded file open on descriptor fd ("*": on any).
func (e *env) openedOn(fd string) string {
	if fd != "*" {
		return e.opened[fd]
	}
	best := ""
	for k := range e.opened {
		if best == "" || k < best {
			best = k
		}
	}
	return e.opened[best]
}

// parseProgram reads an interpreter's command line.
func parseProgram(family string, args []string, in input) program {
	var p program
	stdin := func(rest []string) program {
		p.code, p.known, p.args = in.text, in.known, rest
		return p
	}
	switch family {
	case "python":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-":
				return stdin(args[i+1:])
			case a == "--":
				if i+1 < len(args) {
					p.script, p.args = args[i+1], args[i+2:]
					return p // a script file
				}
				return stdin(nil)
			case len(a) < 2 || a[0] != '-':
				p.script, p.args = a, args[i+1:]
				return p // a script file
			case strings.HasPrefix(a, "--"):
				if a == "--check-hash-based-pycs" {
					i++
				}
				continue
			}
			for j := 1; j < len(a); j++ {
				switch a[j] {
				case 'c':
					code, rest := optValue(a[j+1:], args[i+1:])
					p.code, p.known, p.args = code, true, rest
					return p
				case 'm':
					mod, rest := optValue(a[j+1:], args[i+1:])
					p.module, p.args = mod, rest
					return p // a module
				case 'W', 'X', 'Q':
					if j+1 == len(a) {
						i++
					}
					j = len(a)
				}
			}
		}
		return stdin(nil)
	case "node", "bun":
		for i := 0; i < len(args); i++ {
			a := args[i]
			name, val, hasVal := strings.Cut(a, "=")
			switch {
			case a == "-":
				return stdin(args[i+1:])
			case name == "-e" || name == "--eval" || name == "-p" || name == "--print":
				if !hasVal {
					if i+1 >= len(args) {
						return p
					}
					i++
					val = args[i]
				}
				p.code, p.known, p.args = val, true, args[i+1:]
				return p
			case (a == "-r" || a == "--require" || a == "--import" || a == "--loader" ||
				a == "--experimental-loader"):
				p.loads = true
				i++
			case strings.HasPrefix(a, "--require=") || strings.HasPrefix(a, "--import=") || strings.HasPrefix(a, "--loader=") || strings.HasPrefix(a, "--experimental-loader="):
				p.loads = true
			case a == "-C" || a == "--conditions":
				i++
			case family == "bun" && (a == "run" || a == "x"):
			case strings.HasPrefix(a, "-"):
			default:
				p.script, p.args = a, args[i+1:]
				return p // a script file
			}
		}
		return stdin(nil)
	case "deno":
		for i := 0; i < len(args); i++ {
			a := args[i]
			if strings.HasPrefix(a, "-") {
				continue
			}
			switch a {
			case "eval":
				for k := i + 1; k < len(args); k++ {
					if !strings.HasPrefix(args[k], "-") {
						p.code, p.known, p.args = args[k], true, args[k+1:]
						return p
					}
				}
				return p
			case "run":
				for k := i + 1; k < len(args); k++ {
					if args[k] == "-" {
						return stdin(args[k+1:])
					}
					if !strings.HasPrefix(args[k], "-") {
						p.script, p.args = args[k], args[k+1:]
						return p
					}
				}
			}
			return p
		}
		return p
	case "perl", "ruby":
		var codes []string
		i := 0
	flags:
		for ; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				i++
				break flags
			case a == "-":
				if len(codes) == 0 {
					return stdin(args[i+1:])
				}
				break flags
			case len(a) < 2 || a[0] != '-' || strings.HasPrefix(a, "--"):
				if strings.HasPrefix(a, "--") {
					continue
				}
				break flags
			}
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch {
				case c == 'e' || c == 'E' && family == "perl":
					code, _ := optValue(a[j+1:], args[i+1:])
					if a[j+1:] == "" {
						i++
					}
					codes = append(codes, code)
					j = len(a)
				case c == 'i':
					p.inplace = true
					j = len(a)
				case family == "perl" && strings.IndexByte("IMmxdDCVF", c) >= 0,
					family == "ruby" && strings.IndexByte("IrCEKxF", c) >= 0:
					if c == 'I' || c == 'x' || c == 'd' {
						p.loads = true // code from a directory, the file or a debugger module
					}
					if j+1 == len(a) && family == "ruby" && strings.IndexByte("IrCE", c) >= 0 {
						i++
					}
					j = len(a)
				case c == 'l' || c == '0':
					for j+1 < len(a) && a[j+1] >= '0' && a[j+1] <= '7' {
						j++
					}
				}
			}
		}
		rest := args[min(i, len(args)):]
		if len(codes) == 0 {
			if len(rest) == 0 {
				return stdin(nil)
			}
			p.script, p.args = rest[0], rest[1:] // a script file
			return p
		}
		p.code, p.known, p.args = strings.Join(codes, "\n"), true, rest
		return p
	case "php":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-r" || a == "-B" || a == "-R" || a == "-E":
				if i+1 < len(args) {
					p.code, p.known, p.args = args[i+1], true, args[i+2:]
				}
				return p
			case a == "-f":
				if i+1 < len(args) {
					p.script, p.args = args[i+1], args[i+2:]
				}
				return p
			case a == "-d" || a == "-c" || a == "-z":
				p.loads = true // ini settings (auto_prepend_file), an ini file, an extension
				i++
			case a == "--":
				return p
			case strings.HasPrefix(a, "-"):
			default:
				p.script, p.args = a, args[i+1:]
				return p
			}
		}
		return stdin(nil)
	case "lua", "eflag":
		var codes []string
		i := 0
		for ; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "-e" || a == "--eval" || a == "-E" || a == "--print":
				if i+1 < len(args) {
					codes = append(codes, args[i+1])
					i++
				}
			case strings.HasPrefix(a, "-e") && family == "lua":
				codes = append(codes, a[2:])
			case a == "-l" || a == "-L" || a == "--load" || a == "-p" || a == "-t":
				p.loads = p.loads || a != "-p" && a != "-t"
				i++
			case a == "-":
				return stdin(args[i+1:])
			case strings.HasPrefix(a, "-"):
			default:
				if len(codes) == 0 {
					p.script, p.args = a, args[i+1:]
					return p // a script file
				}
				p.code, p.known, p.args = strings.Join(codes, "\n"), true, args[i:]
				return p
			}
		}
		if len(codes) == 0 {
			return stdin(nil)
		}
		p.code, p.known = strings.Join(codes, "\n"), true
		return p
	case "pwsh":
		for i := 0; i < len(args); i++ {
			a := strings.ToLower(args[i])
			switch a {
			case "-command", "-c", "/command", "/c":
				p.code, p.known = strings.Join(args[i+1:], " "), true
				if p.code == "-" {
					return stdin(nil)
				}
				return p
			case "-encodedcommand", "-e", "-ec", "-en", "-enc", "-encodedcommand:":
				if i+1 < len(args) {
					p.code, p.known = decodeUTF16Base64(args[i+1])
				}
				return p
			case "-file", "-f":
				return p
			case "-executionpolicy", "-ex", "-ep", "-workingdirectory", "-wd", "-outputformat", "-of",
				"-inputformat", "-if", "-configurationname", "-windowstyle", "-w", "-version", "-v",
				"-custompipename", "-settingsfile", "-psconsolefile":
				i++
			default:
				if !strings.HasPrefix(a, "-") {
					p.code, p.known = strings.Join(args[i:], " "), true
					return p
				}
			}
		}
		return stdin(nil)
	case "awk":
		i := 0
		fromFile := false
		var codes []string
	awkFlags:
		for ; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				i++
				break awkFlags
			case a == "-i" || a == "--include":
				if i+1 < len(args) {
					if strings.TrimSuffix(args[i+1], ".awk") == "inplace" {
						p.inplace = true
					}
					i++
				}
			case strings.HasPrefix(a, "-i") && len(a) > 2:
				if strings.TrimSuffix(a[2:], ".awk") == "inplace" {
					p.inplace = true
				}
			case a == "-f" || a == "--file" || a == "-E" || a == "--exec":
				fromFile = true
				if i+1 < len(args) {
					p.script = args[i+1]
				}
				i++
			case a == "-e" || a == "--source":
				if i+1 < len(args) {
					codes = append(codes, args[i+1])
					i++
				}
			case a == "-F" || a == "-v" || a == "--field-separator" || a == "--assign":
				i++
			case len(a) >= 2 && a[0] == '-':
			default:
				break awkFlags
			}
		}
		rest := args[min(i, len(args)):]
		if len(codes) == 0 && !fromFile && len(rest) > 0 {
			codes, rest = append(codes, rest[0]), rest[1:]
		}
		p.args = rest
		if len(codes) > 0 {
			p.code, p.known = strings.Join(codes, "\n"), true
		}
		return p
	case "stdin":
		if len(args) == 0 {
			return stdin(nil)
		}
		return p
	}
	return p
}

// optValue is the value of a short option: the rest of its cluster, or
// the next argument; rest is what follows.
func optValue(attached string, next []string) (val string, rest []string) {
	if attached != "" {
		return attached, next
	}
	if len(next) == 0 {
		return "", nil
	}
	return next[0], next[1:]
}

// decodeUTF16Base64 decodes a PowerShell -EncodedCommand.
func decodeUTF16Base64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// writeIntent reports whether interpreter code looks like it writes
// files: a write/remove/rename API, a shell-out, or an open mode that
// writes ('w', "a+", '>' in Perl, …). For awk: print > "file", a pipe to
// a command, system().
func writeIntent(code string, awk bool) bool {
	low := strings.ToLower(code)
	if awk {
		return awkWrites(low)
	}
	for _, w := range [...]string{
		"write", "append", "unlink", "remove", "rmtree", "rmdir", "rmsync", "rm_rf", "rm_r", "rename",
		"truncate", "touch", "mkdir", "makedirs", "chmod", "chown", "symlink", "link(", "copy", "move",
		"put_contents", "os.replace", "system", "subprocess", "popen", "spawn", "exec", "shutil",
		"fileutils", "delete", "to_csv", "to_json", "save", "set-content", "add-content", "out-file",
		"remove-item", "move-item", "copy-item", "new-item", "clear-content", "sed -i", "tee ",
		"o_wronly", "o_rdwr", "o_trunc", "o_creat", "o_append", "extract", "cpsync", "fs.cp", "sysopen",
		".rm(", "ftruncate", "mmap", "dump(", "tofile", "savetxt", "unpack_archive", "utime",
	} {
		if strings.Contains(low, w) {
			return true
		}
	}
	if strings.Contains(low, ".replace(") && strings.Contains(low, "path") {
		return true // pathlib's Path.replace(target) renames onto target
	}
	return writeMode(low)
}

// writeMode finds an open mode that writes: a quoted mode string of
// r/w/a/b/x/t/+ holding w, a, x or + ("w", 'a+', "rb+"), or a Perl mode
// prefix ('>', ">>", '+<', ">$file"), given as an argument (after "(",
// "," or "=": open(p, 'w'), mode="a", open(F, ">$f"); not d['a'] or
// print "> x").
func writeMode(c string) bool {
	for i := 0; i+1 < len(c); i++ {
		q := c[i]
		if q == 'q' && perlQuoteMode(c, i) {
			return true
		}
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		p := i - 1
		for p >= 0 && (c[p] == ' ' || c[p] == '\t') {
			p--
		}
		if p < 0 || (c[p] != ',' && c[p] != '(' && c[p] != '=') {
			continue
		}
		j := i + 1
		if c[j] == '>' || (c[j] == '+' && j+1 < len(c) && (c[j+1] == '<' || c[j+1] == '>')) {
			return true
		}
		k := j
		for k < len(c) && k-j < 4 && strings.IndexByte("rwabxtu+", c[k]) >= 0 {
			k++
		}
		if k > j && k < len(c) && c[k] == q && strings.ContainsAny(c[j:k], "wax+") {
			return true
		}
	}
	return false
}

// perlQuoteMode reports whether c[i:] is a Perl q()/qq() quoted mode that
// writes, given as an argument: open(my $f, q(>), $p), open(F, qq{+<}, …).
func perlQuoteMode(c string, i int) bool {
	p := i - 1
	for p >= 0 && (c[p] == ' ' || c[p] == '\t') {
		p--
	}
	if p < 0 || (c[p] != ',' && c[p] != '(') {
		return false
	}
	j := i + 1
	if j < len(c) && c[j] == 'q' {
		j++
	}
	for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
		j++
	}
	if j+1 >= len(c) || strings.IndexByte("([{</|!#'\"~^", c[j]) < 0 {
		return false
	}
	j++
	return c[j] == '>' || (c[j] == '+' && j+1 < len(c) && (c[j+1] == '<' || c[j+1] == '>'))
}

// awkWrites finds awk output redirections (print > "f", print >> f),
// pipes to commands (print | "cmd") and system().
func awkWrites(c string) bool {
	if strings.Contains(c, "system") {
		return true
	}
	for i := 0; i < len(c); i++ {
		if c[i] != '>' && c[i] != '|' {
			continue
		}
		j := i + 1
		for j < len(c) && (c[j] == '>' || c[j] == ' ' || c[j] == '\t') {
			j++
		}
		if j < len(c) && (c[j] == '"' || c[j] == '_' || isLetter(c[j]) || c[j] == '$' || c[j] == '(') {
			return true
		}
	}
	return false
}

// codeMention finds a guarded path named in interpreter code:
// ".matrixx/tasks", ".matrixx/plans", ".matrixx/matrixx.json(c)",
// ".matrixx/state" (any case, either slash, the slash escaped or
// doubled), an Extra, Config or State path, or ".matrixx" as a string
// next to "tasks"/"plans"/"matrixx.json" (os.path.join('.matrixx',
// 'tasks'), Path('.matrixx') / 'plans') or next to a recursive removal
// (shutil.rmtree('.matrixx')).
func (e *env) codeMention(code string) (string, store) {
	norm := normText(code)
	hit := mentioned(norm, e.extra)
	if hit == "" {
		hit = mentioned(norm, e.config)
	}
	if hit == "" {
		hit = mentioned(norm, e.state)
	}
	if hit != "" {
		switch {
		case indexFold(hit, ".matrixx/tasks") == 0:
			return hit, tasks
		case indexFold(hit, ".matrixx/plans") == 0:
			return hit, plans
		case indexFold(hit, ".matrixx/state") == 0:
			return hit, state
		case containsFold(hit, "matrixx.json"):
			return hit, config
		}
		for _, x := range e.state {
			if strings.EqualFold(hit, x) {
				return hit, state
			}
		}
		for _, x := range e.config {
			if strings.EqualFold(hit, x) {
				return hit, config
			}
		}
		return hit, extra
	}
	low := strings.ToLower(norm)
	for i := 0; ; {
		j := strings.Index(low[i:], ".matrixx")
		if j < 0 {
			return "", outside
		}
		i += j + len(".matrixx")
		if i+1 < len(low) && low[i] == '/' && strings.IndexByte("*?[{", low[i+1]) >= 0 {
			return ".matrixx/" + low[i+1:i+2], tasks // a pattern over the stores: .matrixx/*/T-*.json
		}
		if i < len(low) && (low[i] == '/' || wordByte(low[i])) {
			continue
		}
		switch {
		case strings.Contains(low, "tasks"):
			return ".matrixx … tasks", tasks
		case strings.Contains(low, "plans"):
			return ".matrixx … plans", plans
		case strings.Contains(low, "matrixx.json"):
			return ".matrixx … matrixx.json", config
		}
		for _, w := range [...]string{"rmtree", "rm_rf", "rm_r", "rmsync", "rmdir", "remove", "unlink", "rename", "move", "delete", "rm -r",
			".rm(", "recursive", "extract", "copytree", "cpsync", "copy", "unpack", "sync"} {
			if strings.Contains(low, w) {
				return ".matrixx", root
			}
		}
	}
}
