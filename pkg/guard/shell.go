package guard

import (
	"errors"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxDepth bounds the nested scripts (sh -c, eval, here-documents fed
	// to a shell, …) analysed inside one command.
	maxDepth = 8
	// maxFields bounds the strings one word may stand for (brace
	// expansion, variables with several candidate values).
	maxFields = 32
	// maxCommand is the longest command that is parsed; a longer one is
	// decided by the raw fallback (suspicious).
	maxCommand = 1 << 20
	// maxNesting bounds the nesting of brackets in a script that is
	// parsed: deeper nesting costs the parser time (( is tried as
	// arithmetic first) and stack; such a script goes to the raw
	// fallback.
	maxNesting = 128
	// maxOut bounds the known output of a command kept for a pipe or a
	// command substitution.
	maxOut = 64 << 10
	// maxMisread bounds the comments re-read as code (misreadComments)
	// in one call.
	maxMisread = 256
	// parseSteps is what one parse counts against maxSteps (at most about
	// 9 000 parses in one call).
	parseSteps = 64
)

// input is what a command reads on stdin, as far as the guard knows it.
type input struct {
	text  string   // the text, when known (here-document, here-string, echo in a pipe)
	known bool     // text is the whole of stdin
	paths []string // guarded paths named upstream (ls .matrixx/tasks | xargs rm)
	from  string   // the guarded file stdin is redirected from (< .matrixx/tasks/T-1.json)
}

// shell is the analysis state of one shell scope: a subshell, a pipeline
// side or a command substitution gets a copy, so that cd and variables
// stay where they belong.
type shell struct {
	e       *env
	verdict *Decision // the first denial, shared by every scope of the command
	cwd     string    // cleaned slash path; "" when unknown
	oldpwd  string
	dirs    []string            // pushd stack
	vars    map[string][]string // variables set in this command: candidate values
	// sharedVars is set while vars is the parent's map (a child scope
	// runs to its end before the parent goes on, so sharing is safe
	// until the child sets a variable).
	sharedVars bool
	pos        []string // positional parameters of a nested sh -c ($0, $1, …)
	// feeds is set in a scope whose output another command reads (the
	// left of a pipe, a command or process substitution): recursive
	// searches then name the guarded paths they would list.
	feeds    bool
	depth    int      // nesting of scripts
	mentions []string // guarded paths named as arguments so far
	out      string   // output of the commands so far, when known
	outKnown bool
	// dotglob is set where "*" matches names starting with a dot: after
	// shopt -s dotglob, an assignment of a non-empty GLOBIGNORE (bash
	// turns dotglob on then), zsh's setopt globdots, bash -O dotglob;
	// shopt -u, unset GLOBIGNORE and unsetopt turn it off.
	dotglob bool
	last    string // the last argument of the previous command ($_)
}

// alts are the other directories the current one of s may be, when a cd
// or git -C took a word of several values (a loop variable over $(ls), a
// glob): git clean and git stash -u are checked in each. They are kept
// in the env (rarely set), so that a scope stays small.
func (s *shell) alts() []string { return s.e.alts[s] }

func (s *shell) setAlts(v []string) {
	if len(v) == 0 {
		if s.e.alts != nil {
			delete(s.e.alts, s)
		}
		return
	}
	if s.e.alts == nil {
		s.e.alts = make(map[*shell][]string)
	}
	s.e.alts[s] = v
}

// bash decides a Bash command.
func (e *env) bash(cmd string) Decision {
	// The shell never sees what follows a NUL byte (a C string ends
	// there); inside the analysis NUL stands for an unknown value.
	if i := strings.IndexByte(cmd, 0); i >= 0 {
		cmd = cmd[:i]
	}
	if strings.TrimSpace(cmd) == "" {
		return Decision{}
	}
	if containsFold(cmd, "matrixx") {
		e.taint = true
	}
	var d Decision
	s := &shell{e: e, verdict: &d, cwd: e.cwd, outKnown: true}
	s.script(cmd, nil)
	if e.over && !d.Deny {
		// A budget was spent: what was analysed found nothing, the rest
		// is decided on the raw text.
		if hit, ok := e.suspicious(cmd); ok {
			return deny(e.rawReason(hit, "it is too large or too repetitive to analyse"), "bash:budget")
		}
	}
	return d
}

// denied reports whether the analysis is over: the command has been
// refused, or a budget is spent.
func (s *shell) denied() bool { return s.verdict.Deny || s.e.over }

// refuse records a denial (the first one wins).
func (s *shell) refuse(reason, rule string) {
	if !s.verdict.Deny {
		*s.verdict = deny(reason, rule)
	}
}

// sub returns a copy of the scope for a subshell.
func (s *shell) sub() *shell {
	c := &shell{
		e: s.e, verdict: s.verdict, cwd: s.cwd, oldpwd: s.oldpwd, pos: s.pos, depth: s.depth,
		outKnown: true, feeds: s.feeds, dotglob: s.dotglob,
	}
	if a := s.alts(); a != nil {
		c.setAlts(a)
	}
	if len(s.vars) > 0 {
		c.vars, c.sharedVars = s.vars, true // copied on the child's first set
	}
	if len(s.dirs) > 0 {
		c.dirs = slices.Clip(s.dirs) // an append copies
	}
	return c
}

// absorb takes what a finished child scope found: mentioned paths and
// output.
func (s *shell) absorb(c *shell) {
	s.addMentions(c.mentions)
	s.emitFrom(c)
}

// addMentions records guarded paths named in a child scope (at most
// maxFields in all: they stand for what a pipe or a substitution may
// carry, not for a count).
func (s *shell) addMentions(ps []string) {
	if n := maxFields - len(s.mentions); n > 0 {
		s.mentions = append(s.mentions, ps[:min(n, len(ps))]...)
	}
}

func (s *shell) emit(text string) {
	if len(s.out)+len(text) > maxOut || !s.e.charge(0, len(text)) {
		s.outKnown = false
		return
	}
	s.out += text
}

func (s *shell) emitFrom(c *shell) {
	if !c.outKnown {
		s.outKnown = false
		return
	}
	s.emit(c.out)
}

// parse parses a script as Bash, falling back to zsh syntax. Comments are
// kept for misreadComments.
func parse(src string) (*syntax.File, error) {
	f, _, err := parseAs(src)
	return f, err
}

// parseAs is parse that also says whether the zsh fallback was used. A
// panic inside the parser (mvdan.cc/sh v3.14.1 panics on some
// here-documents: "<<$+A[" closed by a line) counts as a parse error.
func parseAs(src string) (f *syntax.File, zsh bool, err error) {
	defer func() {
		if recover() != nil {
			f, zsh, err = nil, false, errors.New("the shell parser failed")
		}
	}()
	f, err = syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err == nil {
		return f, false, nil
	}
	if f2, err2 := syntax.NewParser(syntax.Variant(syntax.LangZsh), syntax.KeepComments(true)).Parse(strings.NewReader(src), ""); err2 == nil {
		return f2, true, nil
	}
	return nil, false, err
}

// misreadComments analyses as code the "comments" whose '#' does not
// start a word: mvdan.cc/sh v3.14.1 reads a line like ”#x; rm y inside
// ( … ) or { … } as a comment, where bash runs the word #x and then rm
// y. A '#' starts a comment in bash only at the start of a word.
func (s *shell) misreadComments(f *syntax.File, src string) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if s.denied() {
			return false
		}
		cm, ok := n.(*syntax.Comment)
		if !ok {
			return true
		}
		off := int(cm.Hash.Offset())
		if off <= 0 || off > len(src) {
			return true
		}
		switch src[off-1] {
		case ' ', '\t', '\n', ';', '&', '|', '(', '<', '>':
			return true
		}
		// "#…" goes on the word before it. The same script level: it
		// does not count as a nested script (its text is shorter; the
		// budgets and maxMisread bound the re-parsing).
		if s.e.misread < maxMisread {
			s.e.misread++
			s.depth--
			// A comment that swallowed a backslash-newline ends there.
			s.script("_#"+strings.TrimRight(cm.Text, "\r\n"), s.pos)
			s.depth++
		}
		return true
	})
}

// parseScript is parseAs, closing the here-documents left open at the
// end of src as bash does (it runs them to the end of the script, with a
// warning); it returns the source it parsed.
func parseScript(src string) (*syntax.File, string, bool, error) {
	f, zsh, err := parseAs(src)
	for range 4 {
		if err == nil {
			break
		}
		delim, ok := unclosedHdoc(err)
		if !ok || f != nil {
			break
		}
		if !strings.HasSuffix(src, "\n") {
			src += "\n"
		}
		src += delim + "\n"
		f, zsh, err = parseAs(src)
	}
	return f, src, zsh, err
}

// unclosedHdoc returns the delimiter of the here-document a parse error
// says is left open.
func unclosedHdoc(err error) (string, bool) {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return "", false
	}
	rest, ok := strings.CutPrefix(pe.Text, "unclosed here-document `")
	if !ok {
		return "", false
	}
	delim, ok := strings.CutSuffix(rest, "`")
	return delim, ok && delim != "" && strings.IndexByte(delim, '\n') < 0
}

// parsedPrefix is the part of src before the line of a syntax error
// ("" when there is none, or the error is on the first line): bash reads
// and runs a script one line at a time, so the complete commands before
// the error run.
func parsedPrefix(src string, err error) string {
	var pe syntax.ParseError
	if !errors.As(err, &pe) || pe.Pos.Line() <= 1 {
		return ""
	}
	line := int(pe.Pos.Line())
	i := 0
	for n := 1; n < line; n++ {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			return ""
		}
		i += j + 1
	}
	if i >= len(src) {
		return ""
	}
	return src[:i]
}

// shortLines is src with every line longer than 64 KiB replaced by ":".
func shortLines(src string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(src, "\n") {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if len(line) > 64<<10 {
			line = ":"
		}
		b.WriteString(line)
	}
	return b.String()
}

// nesting is the deepest nesting of ( and { in src, counted without
// regard to quotes (an over-estimate).
func nesting(src string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// script analyses shell source (the command itself, or a string given to
// sh -c, trap, …) in a child scope with positional parameters pos.
// Source that does not parse is refused only when it clearly names a
// guarded path together with a write (suspicious).
func (s *shell) script(src string, pos []string) {
	s.run(src, pos, false)
}

// evalScript is script for source that runs in the current shell (eval,
// source, an alias): its cd, variables and functions stay.
func (s *shell) evalScript(src string, pos []string) {
	s.run(src, pos, true)
}

func (s *shell) run(src string, pos []string, here bool) {
	if s.denied() {
		return
	}
	if strings.IndexByte(src, unknown) >= 0 {
		src = strings.ReplaceAll(src, string(unknown), "${__guard_unknown}")
	}
	// A parse costs tens of microseconds however short the script:
	// charge it as parseSteps steps.
	if !s.e.charge(parseSteps, len(src)) {
		return
	}
	orig := src
	var f *syntax.File
	var err error
	zsh := false
	if s.depth < maxDepth && len(src) <= maxCommand && nesting(src) <= maxNesting {
		f, src, zsh, err = parseScript(src)
	}
	if f == nil {
		if hit, ok := s.e.suspicious(src); ok {
			s.refuse(s.e.rawReason(hit, ""), "bash:parse")
			return
		}
		if len(src) > maxCommand {
			if s.e.oversized(src) {
				s.refuse(s.e.rawReason(".matrixx", "it is too large to analyse (over 1 MiB) and hides its paths"), "bash:oversized")
				return
			}
			// bash runs the script line by line: analyse its lines with
			// each very long one (a huge word) replaced by a no-op.
			if short := shortLines(src); len(short) <= maxCommand {
				s.run(short, pos, here)
			}
			return
		}
		// bash runs the lines before a syntax error: analyse them (a
		// prefix of the source as written, so each round is shorter).
		if prefix := parsedPrefix(orig, err); prefix != "" && len(prefix) < len(orig) {
			s.run(prefix, pos, here)
		}
		return
	}
	// Where bash may read the text otherwise than the parser did, the
	// raw rule decides too (see divergence).
	if why := divergence(src, f, zsh); why != "" {
		if hit, ok := s.e.suspicious(src); ok {
			s.refuse(s.e.rawReason(hit, why), "bash:ambiguous")
			return
		}
	}
	if here {
		saved := s.pos
		if pos != nil {
			s.pos = pos
		}
		s.depth++
		s.stmts(f.Stmts, input{})
		if strings.IndexByte(src, '#') >= 0 {
			s.misreadComments(f, src)
		}
		s.depth--
		s.pos = saved
		return
	}
	c := s.sub()
	c.depth++
	if pos != nil {
		c.pos = pos
	}
	c.stmts(f.Stmts, input{})
	if strings.IndexByte(src, '#') >= 0 {
		c.misreadComments(f, src)
	}
	s.absorb(c)
}

func (s *shell) stmts(list []*syntax.Stmt, in input) {
	for _, st := range list {
		if s.denied() {
			return
		}
		if st.Background || st.Coprocess || st.Disown {
			// cmd & runs in a subshell: its cd and variables stay there.
			c := s.sub()
			c.stmt(st, in)
			s.addMentions(c.mentions)
			s.outKnown = false
			continue
		}
		s.stmt(st, in)
	}
}

func (s *shell) stmt(st *syntax.Stmt, in input) {
	if st == nil || !s.e.charge(1, 0) {
		return
	}
	in = s.redirs(st.Redirs, in)
	if s.denied() || st.Cmd == nil {
		return
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		s.callExpr(c, in)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			left := s.sub()
			left.feeds = true
			left.stmt(c.X, in)
			pin := input{paths: left.mentions}
			if left.outKnown {
				pin.text, pin.known = left.out, true
			}
			right := s.sub()
			right.stmt(c.Y, pin)
			s.addMentions(left.mentions)
			s.absorb(right)
		default:
			s.stmt(c.X, in)
			s.stmt(c.Y, in)
		}
	case *syntax.Subshell:
		c2 := s.sub()
		c2.stmts(c.Stmts, in)
		s.absorb(c2)
	case *syntax.Block:
		s.stmts(c.Stmts, in)
	case *syntax.IfClause:
		for cl := c; cl != nil; cl = cl.Else {
			s.stmts(cl.Cond, in)
			s.stmts(cl.Then, in)
		}
	case *syntax.WhileClause:
		s.stmts(c.Cond, in)
		s.stmts(c.Do, in)
	case *syntax.ForClause:
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			var vals []string
			for _, w := range wi.Items {
				vals = s.appendFields(vals, w)
			}
			if len(wi.Items) == 0 && !wi.InPos.IsValid() {
				vals = append(vals, s.positional()...)
			}
			if len(vals) == 0 {
				vals = append(vals, "")
			}
			if wi.Name != nil {
				s.set(wi.Name.Value, vals)
			}
		} else {
			s.nested(c.Loop)
		}
		s.stmts(c.Do, in)
	case *syntax.CaseClause:
		s.fields(c.Word)
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				s.fields(p)
			}
			s.stmts(it.Stmts, in)
		}
	case *syntax.FuncDecl:
		// A function body is analysed where it is defined, as if it ran,
		// and again at each call with the call's arguments.
		if c.Name != nil {
			if s.e.funcs == nil {
				s.e.funcs = make(map[string]*syntax.Stmt)
			}
			s.e.funcs[c.Name.Value] = c.Body
		}
		c2 := s.sub()
		c2.stmt(c.Body, input{})
		s.addMentions(c2.mentions)
	case *syntax.DeclClause:
		ref := false // declare -n r=x: r names x
		exp := c.Variant != nil && c.Variant.Value == "export"
		for _, a := range c.Args {
			if a.Naked && a.Name == nil && a.Value != nil {
				if f := s.fields(a.Value); len(f) == 1 && strings.HasPrefix(f[0], "-") {
					ref = ref || strings.IndexByte(f[0], 'n') > 0
					exp = exp || strings.IndexByte(f[0], 'x') > 0
				}
				continue
			}
			if exp && a.Name != nil {
				s.e.export(a.Name.Value)
			}
			if a.Naked {
				continue
			}
			if ref && a.Name != nil && a.Value != nil {
				if v := s.quotedFields(a.Value); len(v) == 1 {
					if s.e.refs == nil {
						s.e.refs = make(map[string]string)
					}
					s.e.refs[a.Name.Value] = v[0]
					continue
				}
			}
			s.assign(a)
		}
	case *syntax.TimeClause:
		s.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		s.stmt(c.Stmt, in)
	default: // ArithmCmd, TestClause, LetClause, TestDecl
		s.nested(c)
	}
}

// nested analyses the command substitutions hidden in a node the guard
// does not otherwise look into (arithmetic, [[ tests ]], …).
func (s *shell) nested(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			s.substStmts(n.Stmts)
			return false
		case *syntax.ProcSubst:
			s.substStmts(n.Stmts)
			return false
		}
		return true
	})
}

// substStmts analyses the statements of a command or process
// substitution in a child scope and returns it.
func (s *shell) substStmts(list []*syntax.Stmt) *shell {
	c := s.sub()
	c.feeds = true
	c.stmts(list, input{})
	s.addMentions(c.mentions)
	return c
}

// callExpr analyses a simple command.
func (s *shell) callExpr(c *syntax.CallExpr, in input) {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			s.assign(a)
		}
		return
	}
	// FOO=x cmd: the values reach cmd's environment (and nested shells).
	// bash expands cmd's words before it makes the assignments, which
	// last only for cmd: GLOBIGNORE=. rm * does not match .matrixx.
	dotglob := s.dotglob
	for _, a := range c.Assigns {
		s.assign(a)
		if a.Name != nil {
			s.e.export(a.Name.Value)
		}
	}
	s.dotglob = dotglob
	argv := make([]string, 0, len(c.Args)+2)
	for _, w := range c.Args {
		argv = s.appendFields(argv, w)
	}
	s.call(argv, in)
}

// globs hands the scope's dotglob setting to the matching of paths
// (env.classify).
func (s *shell) globs() { s.e.dotglob = s.dotglob }

// cwdStore is the store the current directory lies in.
func (s *shell) cwdStore() store {
	if s.cwd == "" {
		return outside
	}
	s.globs()
	return s.e.classify(s.cwd)
}

// write checks one path the command writes (cmd names the command for
// the reason). rootToo also guards the .matrixx directory itself (rm -rf
// .matrixx), which plain creation (mkdir, cp into it) does not touch.
func (s *shell) write(p, cmd string, rootToo bool) {
	s.writeLoc(p, cmd, rootToo, false)
}

// unlink checks one path the command removes or renames: a symlink is
// removed itself, not what it points to (rm link), unless the path ends
// in "/".
func (s *shell) unlink(p, cmd string) {
	s.writeLoc(p, cmd, true, true)
}

func (s *shell) writeLoc(p, cmd string, rootToo, nofollow bool) {
	if s.denied() || p == "" || p == "-" {
		return
	}
	s.globs()
	if len(s.e.opened) > 0 {
		fp := cleanPath(joinPath(s.cwd, slashes(strings.ReplaceAll(p, string(unknown), "x"))))
		fd := fdPath(fp)
		if t := s.e.throughLinks(fp, false); fd == "" && t != "" {
			fd = fdPath(t) // ln -s /dev/stdin x; truncate -s0 x < FILE
		}
		if fd != "" {
			if f := s.e.openedOn(fd); f != "" {
				s.refuse(writeReason("Bash ("+cmd+" through "+p+", opened on "+f+")", s.e.classify(cleanPath(joinPath(s.cwd, slashes(f)))), f, ""), "bash:"+cmd+" reopen")
				return
			}
		}
	}
	if (strings.HasPrefix(cmd, "redirection") || cmd == "dd of=" || cmd == "tee" || cmd == "sponge" ||
		strings.HasPrefix(cmd, "curl") || strings.HasPrefix(cmd, "wget")) && len(s.e.made) < maxFields {
		s.e.made = append(s.e.made, [2]string{s.cwd, p}) // cleaned when a program is run (madeProg)
	}
	loc := s.e.locate(s.cwd, p, nofollow)
	if loc.st == outside || (wholeOnly(loc.st) && !rootToo) {
		if s.e.leased != nil {
			if why := s.e.leaseHit(cleanPath(joinPath(s.cwd, slashes(s.tilde(p)))), nofollow); why != "" {
				s.refuse(leaseReason("Bash ("+cmd+")", p, why), "lease:"+cmd)
			}
		}
		return
	}
	shownPath := p
	if !isAbs(slashes(p)) && !containsFold(p, "matrixx") && s.cwd != "" {
		shownPath = p + " in " + s.cwd
	}
	s.refuse(writeReason("Bash ("+cmd+")", loc.st, shownPath, loc.resolved), "bash:"+cmd)
}

// guardedLex reports whether an argument names a guarded path, lexically
// (no file system access); p is the cleaned path.
func (s *shell) guardedLex(arg string) (string, bool) {
	return s.guardedArg(arg, len(s.e.extra) > 0 || s.cwdStore() != outside)
}

// guardedArg is guardedLex with the cheap pre-check precomputed (wide:
// any argument may name a store when there are Extra directories or the
// current directory is in a store); otherwise only one naming .matrixx.
func (s *shell) guardedArg(arg string, wide bool) (string, bool) {
	if strings.HasPrefix(arg, "-") {
		if i := strings.IndexByte(arg, '='); i >= 0 {
			if containsFold(arg[:i], "exclude") || containsFold(arg[:i], "ignore") {
				return "", false // --exclude-dir=.matrixx names what is left out
			}
			arg = arg[i+1:]
		}
	}
	if arg == "" || (!wide && !containsFold(arg, "matrixx")) {
		return "", false
	}
	p := cleanPath(joinPath(s.cwd, slashes(arg)))
	s.globs()
	if st := s.e.classify(p); st != outside {
		return p, true
	}
	return "", false
}

// mention records the guarded paths a command names, for the commands it
// feeds (xargs, a shell reading a pipe, a command substitution).
func (s *shell) mention(args []string) {
	if len(args) == 0 {
		return
	}
	wide := len(s.e.extra) > 0 || s.cwdStore() != outside
	for _, a := range args {
		if p, ok := s.guardedArg(a, wide); ok && len(s.mentions) < maxFields {
			s.mentions = append(s.mentions, p)
		}
	}
}

// containsFold reports whether s contains sub, ignoring ASCII case.
func containsFold(s, sub string) bool { return indexFold(s, sub) >= 0 }
