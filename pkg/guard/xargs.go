package guard

import (
	"path"
	"strings"
)

// xargs analyses the command xargs runs, with the paths named upstream
// (or an unknown argument) as its input.
func (s *shell) xargs(args []string, in input) {
	replace := ""
	i := 0
loop:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i++
			break loop
		case len(a) < 2 || a[0] != '-':
			break loop
		case a == "-I":
			if i+1 < len(args) {
				replace = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "-I"):
			replace = a[2:]
		case a == "-i" || a == "--replace":
			replace = "{}"
		case strings.HasPrefix(a, "--replace="):
			replace = a[len("--replace="):]
		case strings.HasPrefix(a, "-i") && len(a) > 2:
			replace = a[2:]
		case a == "-n" || a == "-P" || a == "-L" || a == "-s" || a == "-d" || a == "-a" || a == "-E":
			i++
		case a == "--max-args" || a == "--max-procs" || a == "--max-lines" || a == "--max-chars" ||
			a == "--delimiter" || a == "--arg-file" || a == "--eof" || a == "--process-slot-var":
			i++
		}
	}
	cmd := args[min(i, len(args)):]
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	inputs := xargsInputs(in)
	if replace == "" {
		argv := append(append(make([]string, 0, len(cmd)+len(inputs)), cmd...), inputs...)
		s.call(argv, input{})
		return
	}
	for _, v := range inputs {
		argv := make([]string, len(cmd))
		for k, a := range cmd {
			argv[k] = strings.ReplaceAll(a, replace, v)
			if i := strings.Index(a, replace); i > 0 && a[i-1] == '/' && isAbs(v) &&
				cleanPath(joinPath(s.cwd, slashes(a[:i]))) == path.Dir(v) {
				// An absolute path handed on for a printed name, joined
				// with a prefix that leads to its directory (ls .. |
				// xargs -I{} rm -rf ../{}): the path itself (the reason
				// shows a clean path).
				argv[k] = v + strings.ReplaceAll(a[i+len(replace):], replace, v)
			}
		}
		s.call(argv, input{})
	}
}

func xargsInputs(in input) []string {
	var vals []string
	if in.known {
		for f := range strings.FieldsSeq(in.text) {
			if len(vals) == maxFields {
				break
			}
			vals = append(vals, f)
		}
	}
	vals = append(vals, in.paths...)
	if len(vals) == 0 {
		vals = append(vals, string(unknown))
	}
	return vals[:min(len(vals), maxFields)]
}

// parallel analyses GNU parallel: the command before ":::" with the
// arguments after it, else (no ::: source) with the lines of stdin as
// xargs reads them (ls -A | parallel rm -rf); "::::" FILE and -a FILE
// give arguments the guard does not know. Like parallel, it joins the
// command's words into one shell command line, puts each argument in,
// quoted, where a replacement string stands ({}, {.}, {/}, {//}, {/.},
// or -I's), else at the end, and runs that line (parallel 'sed -i … {}');
// without a command each argument is a command line of its own.
func (s *shell) parallel(args []string, in input) {
	replace, fromFile := "{}", false
	i := 0
loop:
	for ; i < len(args); i++ {
		a := args[i]
		key, _, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			i++
			break loop
		case len(a) < 2 || a[0] != '-' || sourceMarker(a):
			break loop
		case a == "-I":
			if i+1 < len(args) {
				replace = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "-I"):
			replace = a[2:]
		case a == "-a" || a == "--arg-file" || a == "--af":
			if i+1 < len(args) && args[i+1] != "-" {
				fromFile = true
			}
			i++
		case strings.HasPrefix(a, "--arg-file=") || strings.HasPrefix(a, "-a") && !strings.HasPrefix(a, "--"):
			fromFile = fromFile || !strings.HasSuffix(a, "=-") && a != "-a-"
		case len(a) == 2 && strings.IndexByte("jPnNLSdECsW", a[1]) >= 0:
			i++
		case strings.HasPrefix(a, "--") && !hasVal && valuedParallel(key):
			i++
		}
	}
	cmd := args[min(i, len(args)):]
	var inputs []string
	for k, a := range cmd {
		if !sourceMarker(a) {
			continue
		}
		src := a
		for _, v := range cmd[k+1:] {
			switch {
			case sourceMarker(v):
				src = v
			case strings.HasPrefix(src, "::::"):
				fromFile = true // arguments read from files
			default:
				inputs = append(inputs, v)
			}
		}
		cmd = cmd[:k]
		break
	}
	switch {
	case fromFile:
		inputs = append(inputs, string(unknown))
	case inputs == nil:
		inputs = parallelInputs(in)
	}
	if replace == "" {
		replace = "{}"
	}
	line := strings.Join(cmd, " ")
	for _, v := range inputs[:min(len(inputs), maxFields)] {
		if s.denied() {
			return
		}
		if len(cmd) == 0 {
			s.script(v, nil) // no command: each argument is one
			continue
		}
		s.script(parallelLine(line, replace, v), nil)
	}
}

// parallelInputs are the arguments parallel reads from stdin: its lines.
func parallelInputs(in input) []string {
	var vals []string
	if in.known {
		for l := range strings.SplitSeq(in.text, "\n") {
			if len(vals) == maxFields {
				break
			}
			if l != "" {
				vals = append(vals, l)
			}
		}
	}
	vals = append(vals, in.paths...)
	if len(vals) == 0 {
		vals = append(vals, string(unknown))
	}
	return vals[:min(len(vals), maxFields)]
}

// parallelLine puts the argument v into parallel's command line: at each
// replacement string ({} or -I's, {.} without its extension, {/} its
// base name, {//} its directory, {/.} both), else at the end, quoted.
func parallelLine(line, replace, v string) string {
	noExt := func(p string) string {
		if e := path.Ext(p); e != "" && e != p && !strings.HasSuffix(p, "/"+e) {
			return strings.TrimSuffix(p, e)
		}
		return p
	}
	base := path.Base(v)
	r := strings.NewReplacer(replace, shQuote(v), "{.}", shQuote(noExt(v)), "{/}", shQuote(base),
		"{//}", shQuote(path.Dir(v)), "{/.}", shQuote(noExt(base)))
	out := r.Replace(line)
	if out == line {
		out += " " + shQuote(v)
	}
	return out
}

// shQuote quotes v for a shell command line; an unknown part stays
// outside the quotes, so the analysis still reads it as unknown.
func shQuote(v string) string {
	var b strings.Builder
	for k, part := range strings.Split(v, string(unknown)) {
		if k > 0 {
			b.WriteByte(unknown)
		}
		if part != "" || v == "" {
			b.WriteString("'" + strings.ReplaceAll(part, "'", `'\''`) + "'")
		}
	}
	return b.String()
}

// sourceMarker reports whether a is one of parallel's input source
// separators.
func sourceMarker(a string) bool {
	return a == ":::" || a == "::::" || a == ":::+" || a == "::::+"
}

// valuedParallel reports whether a long option of GNU parallel takes a
// value (given as the next word).
func valuedParallel(key string) bool {
	switch key {
	case "--jobs", "--max-procs", "--max-args", "--max-replace-args", "--max-lines", "--max-chars",
		"--delimiter", "--colsep", "--eof", "--sshlogin", "--sshloginfile", "--slf", "--joblog",
		"--results", "--res", "--tmpdir", "--workdir", "--wd", "--timeout", "--retries", "--delay",
		"--env", "--tag-string", "--tagstring", "--memfree", "--load", "--halt", "--halt-on-error",
		"--basefile", "--bf", "--return", "--transferfile", "--tf", "--block", "--block-size",
		"--recstart", "--recend", "--header", "--termseq", "--limit", "--ssh", "--nice", "--shebang-wrap",
		"--rpl", "--replace", "--extensionreplace", "--er", "--basenamereplace", "--bnr", "--dirnamereplace",
		"--dnr", "--seqreplace", "--joblog-append", "--progress-bar-format", "--retry-failed", "--plain-args",
		"--filter", "--group-by", "--line-buffer-size", "--sqlmaster", "--sqlworker", "--sqlandworker",
		"--files0", "--results-dir", "--ctag-string", "--tmux-length", "--sshdelay", "--cpu-load":
		return true
	}
	return false
}
