package guard

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// find analyses find: -delete removes what the expression selects,
// -exec/-execdir/-ok run a command on it, -fprint* write a file, and its
// output feeds a pipe. The expression is read as find reads it (findExpr)
// and judged against the entries that exist below each start point (its
// -name, -path, -type, -empty, -prune, -maxdepth and -mindepth tests; the
// others may go either way): one path in each guarded directory it can
// select stands for what find hands on. A start point is handed on when the expression can
// select it too, and always when it lies in a store. The -path patterns
// that select (not negated, not pruned) are checked as paths as well.
func (s *shell) find(args []string) {
	i := 0
	follow, deref := false, false // -L; -H or -L: a start point that is a link is followed
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O")) {
		switch args[i] {
		case "-L":
			follow, deref = true, true
		case "-H":
			deref = true
		case "-P":
			follow, deref = false, false
		}
		i++
	}
	if i < len(args) && args[i] == "-D" {
		i = min(i+2, len(args)) // -D DEBUGOPTS; a bare -D is cut off
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
	x := parseFind(args[i:])
	x.follow = x.follow || follow
	if !s.e.charge(len(x.nodes), 0) {
		return
	}
	for _, w := range x.writes {
		s.write(w.file, "find "+x.nodes[w.node].kind, true)
	}
	out := actOut | actExec
	if !s.feeds {
		out = 0
	}
	// A start point in a store is handed on whatever the expression says
	// (what it holds is not listed); they go first. The others are judged
	// as entries (depth 0) and walked when they hold a guarded directory.
	var stored []string
	var plain []entry
	holds := make([]bool, 0, 4)
	seen := make(map[string]bool, min(len(starts), 16))
	for _, st := range starts {
		if !s.e.charge(1, len(st)) {
			break
		}
		if seen[st] {
			continue
		}
		seen[st] = true
		s.globs()
		if s.e.locate(s.cwd, st, !deref && !x.follow).st != outside {
			if deref || x.follow {
				st = strings.TrimSuffix(st, "/") + "/" // find -L tdir: what the link leads to
			}
			if len(stored) < maxFields {
				stored = append(stored, st)
			}
			continue
		}
		e := entry{name: path.Base(strings.TrimRight(slashes(st), "/")), path: st}
		if strings.TrimRight(st, "/") == "" {
			e.name = "/"
		}
		if strings.IndexByte(st, unknown) >= 0 || strings.ContainsAny(st, "*?[") {
			e.anon = true
		} else if x.types && s.isDir(st) {
			e.typ = 'd'
		}
		plain = append(plain, e)
		holds = append(holds, s.holdsGuarded(st))
	}
	for _, act := range [...]uint8{actDelete, actExec, out} {
		if act == 0 || x.acts&act == 0 && !(act&actOut != 0 && !x.hasAction) {
			continue
		}
		sel := &findSel{x: &x, act: act}
		targets := append([]string(nil), stored...)
		var picked []string
		for k := range plain {
			if len(targets) >= maxFields && len(picked) >= maxFields || !s.e.charge(1, 0) {
				break
			}
			if holds[k] && len(targets) < maxFields {
				targets = append(targets, s.reach(plain[k].path, sel, act == actDelete)...)
			}
			if act != actDelete && len(targets) < maxFields {
				// -delete empties a directory before it removes it.
				targets = append(targets, s.holders(&plain[k], sel)...)
			}
			if len(picked) < maxFields && (!s.e.judge(sel.cost()) || sel.selects(&plain[k])) {
				picked = append(picked, plain[k].path)
			}
		}
		// The guarded paths first: -exec runs on the first maxFields.
		targets = append(targets, x.patterns...)
		if act != actDelete { // -delete cannot remove a .matrixx that is not empty
			for _, nm := range x.names {
				for k := range plain {
					if len(targets) < 2*maxFields && !plain[k].anon {
						targets = append(targets, strings.TrimSuffix(plain[k].path, "/")+"/**/"+nm)
					}
				}
			}
		}
		targets = append(targets, picked...)
		targets = targets[:min(len(targets), 2*maxFields)]
		switch act {
		case actDelete:
			for _, t := range targets {
				s.unlink(t, "find -delete")
			}
		case actExec:
			files := len(stored) == 0 && x.filesOnly()
			for _, n := range x.execs {
				ex := x.nodes[n].args
				if len(ex) == 0 {
					continue
				}
				for _, t := range targets[:min(len(targets), maxFields)] {
					argv := make([]string, len(ex))
					for k, a := range ex {
						argv[k] = strings.ReplaceAll(a, "{}", t)
					}
					if files && s.progName(argv[0]) == "chmod" && chmodKeepsOwner(argv[1:], true) {
						continue // a mode that keeps the owner's rw, on files only
					}
					s.call(argv, input{})
				}
			}
		default:
			s.mentionPaths(targets)
		}
	}
}

// filesOnly reports whether the expression selects files only: a
// "-type f" test (not negated) in the conjunction at its top.
func (x *findExpr) filesOnly() bool {
	if x.opaque || x.root < 0 {
		return false
	}
	isF := func(n int) bool { return x.nodes[n].op == 't' && x.nodes[n].kind == "-type" && x.nodes[n].arg == "f" }
	r := x.root
	if isF(r) {
		return true
	}
	if x.nodes[r].op != 'a' {
		return false
	}
	return slices.ContainsFunc(x.nodes[r].kids, isF)
}

// Kinds of find actions.
const (
	actDelete uint8 = 1 << iota // -delete
	actExec                     // -exec, -execdir, -ok, -okdir
	actOut                      // -print, -print0, -printf, -ls (standard output)
)

// fnode is a node of a find expression: an operator over kids, a test or
// an action.
type fnode struct {
	op   byte   // 'a' (and), 'o' (or), ',' (list), '!' (not), 't' (test), 'x' (action)
	kind string // the test or action: "-name", "-delete", …
	arg  string // its argument
	args []string
	act  uint8 // the action's kind; 0 for -prune, -quit and the -f… writes
	kids []int
}

// findExpr is a parsed find expression.
type findExpr struct {
	nodes     []fnode
	root      int // -1: no expression (true)
	acts      uint8
	hasAction bool // an action besides -prune and -quit (else -print is implied)
	depth     bool // -depth, -d, -delete: -prune has no effect
	follow    bool // -L, -follow
	maxDepth  int  // -1: no limit
	minDepth  int
	execs     []int    // the -exec nodes, in order
	patterns  []string // -path patterns that select (not negated, not followed by -prune)
	names     []string // -name/-iname/-regex patterns naming .matrixx that select (likewise)
	writes    []fwrite // -fprint FILE & co.
	types     bool     // a -type or -xtype test
	opaque    bool     // the expression could not be read: anything may be selected
	nest      int
}

type fwrite struct {
	node int
	file string
}

// maxFindNesting bounds the parentheses and negations read; a deeper
// expression is opaque.
const maxFindNesting = 64

// parseFind reads a find expression: "!"/-not before -a/-and (or
// juxtaposition) before -o/-or before ",", parentheses; the global
// options (-maxdepth, -mindepth, -depth, -follow, …) anywhere.
func parseFind(args []string) findExpr {
	x := findExpr{root: -1, maxDepth: -1}
	pos := 0
	if len(args) > 0 {
		x.root = x.parseList(args, &pos, false)
		if pos < len(args) { // a stray ")"
			x.opaque = true
		}
	}
	if x.opaque {
		// Read what it can run, one primary after another: anything may
		// be selected.
		x = findExpr{root: -1, maxDepth: -1}
		for pos := 0; pos < len(args); {
			switch args[pos] {
			case "(", ")", "!", ",", "-o", "-or", "-a", "-and", "-not":
				pos++
				continue
			}
			x.primary(args, &pos, false)
		}
		x.opaque = true
	}
	// -prune has no effect with -depth; GNU find refuses -prune with
	// -delete unless -depth is given, BSD find ignores it.
	x.depth = x.depth || x.acts&actDelete != 0
	return x
}

func (x *findExpr) add(n fnode) int {
	x.nodes = append(x.nodes, n)
	return len(x.nodes) - 1
}

// parseList reads "expr , expr …".
func (x *findExpr) parseList(args []string, pos *int, neg bool) int {
	kids := []int{x.parseOr(args, pos, neg)}
	for *pos < len(args) && args[*pos] == "," {
		*pos++
		kids = append(kids, x.parseOr(args, pos, neg))
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return x.add(fnode{op: ',', kids: kids})
}

func (x *findExpr) parseOr(args []string, pos *int, neg bool) int {
	kids := []int{x.parseAnd(args, pos, neg)}
	for *pos < len(args) && (args[*pos] == "-o" || args[*pos] == "-or") {
		*pos++
		kids = append(kids, x.parseAnd(args, pos, neg))
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return x.add(fnode{op: 'o', kids: kids})
}

func (x *findExpr) parseAnd(args []string, pos *int, neg bool) int {
	var kids []int
	// The -path patterns read with the operand just before (-path X
	// -prune, \( -path X -o -path Y \) -prune): they name what is pruned.
	// The same for the -name patterns naming .matrixx; neither when
	// something follows the -prune (-name .matrixx -prune -exec rm -rf {} +
	// removes what it prunes).
	from, to := 0, 0
	nfrom, nto, pdrop, ndrop := 0, 0, -1, -1
	for *pos < len(args) {
		a := args[*pos]
		if a == ")" || a == "," || a == "-o" || a == "-or" {
			break
		}
		if a == "-a" || a == "-and" {
			*pos++
			continue
		}
		before, nbefore := len(x.patterns), len(x.names)
		pdrop, ndrop = -1, -1
		n := x.parseNot(args, pos, neg)
		if x.nodes[n].kind == "-prune" && to > from && to == len(x.patterns) {
			pdrop = from
		}
		if x.nodes[n].kind == "-prune" && nto > nfrom && nto == len(x.names) {
			ndrop = nfrom
		}
		from, to = before, len(x.patterns)
		nfrom, nto = nbefore, len(x.names)
		kids = append(kids, n)
	}
	if pdrop >= 0 && pdrop <= len(x.patterns) {
		x.patterns = x.patterns[:pdrop]
	}
	if ndrop >= 0 && ndrop <= len(x.names) {
		x.names = x.names[:ndrop]
	}
	switch len(kids) {
	case 0: // "( )", "-o" at the start: find refuses it
		x.opaque = true
		return x.add(fnode{op: 't', kind: "?"})
	case 1:
		return kids[0]
	}
	return x.add(fnode{op: 'a', kids: kids})
}

func (x *findExpr) parseNot(args []string, pos *int, neg bool) int {
	a := args[*pos]
	if a == "!" || a == "-not" || a == "(" {
		if x.nest >= maxFindNesting {
			x.opaque = true
			*pos = len(args)
			return x.add(fnode{op: 't', kind: "?"})
		}
		x.nest++
		defer func() { x.nest-- }()
		*pos++
		if a == "(" {
			n := x.parseList(args, pos, neg)
			if *pos < len(args) && args[*pos] == ")" {
				*pos++
			} else {
				x.opaque = true
			}
			return n
		}
		if *pos >= len(args) {
			x.opaque = true
			return x.add(fnode{op: 't', kind: "?"})
		}
		return x.add(fnode{op: '!', kids: []int{x.parseNot(args, pos, !neg)}})
	}
	return x.primary(args, pos, neg)
}

// primary reads one test, action or option.
func (x *findExpr) primary(args []string, pos *int, neg bool) int {
	a := args[*pos]
	*pos++
	arg := func() string {
		if *pos < len(args) {
			*pos++
			return args[*pos-1]
		}
		x.opaque = true
		return ""
	}
	n := fnode{op: 't', kind: a}
	switch a {
	case "-delete":
		n.op, n.act = 'x', actDelete
	case "-exec", "-execdir", "-ok", "-okdir":
		n.op, n.act = 'x', actExec
		j := *pos
		for j < len(args) && args[j] != ";" && !(args[j] == "+" && j > *pos && args[j-1] == "{}") {
			j++
		}
		n.args = args[*pos:j]
		*pos = min(j+1, len(args))
		x.execs = append(x.execs, len(x.nodes))
	case "-print", "-print0", "-ls":
		n.op, n.act = 'x', actOut
	case "-printf":
		n.op, n.act, n.arg = 'x', actOut, arg()
	case "-fprint", "-fprint0", "-fls", "-fprintf":
		n.op, n.arg = 'x', arg()
		x.writes = append(x.writes, fwrite{node: len(x.nodes), file: n.arg})
		if a == "-fprintf" {
			arg()
		}
	case "-prune", "-quit":
		n.op = 'x'
	case "-maxdepth", "-mindepth":
		v, err := strconv.Atoi(arg())
		switch {
		case err != nil || v < 0:
		case a == "-maxdepth":
			x.maxDepth = v
		default:
			x.minDepth = v
		}
		n.kind = "-true"
	case "-depth":
		if *pos < len(args) && isNumber(args[*pos]) { // BSD: -depth N tests the depth
			arg()
			break
		}
		x.depth = true
		n.kind = "-true"
	case "-d":
		x.depth = true
		n.kind = "-true"
	case "-follow":
		x.follow = true
		n.kind = "-true"
	case "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart",
		"-warn", "-nowarn", "-x", "-E", "-s":
		n.kind = "-true"
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
		"-type", "-xtype", "-newer", "-anewer", "-cnewer", "-size", "-mtime", "-atime", "-ctime",
		"-mmin", "-amin", "-cmin", "-user", "-group", "-uid", "-gid", "-perm", "-lname", "-ilname",
		"-samefile", "-links", "-inum", "-used", "-fstype", "-context", "-regextype", "-files0-from",
		"-Bmin", "-Btime", "-Bnewer", "-flags", "-mnewer", "-acl", "-sparse":
		n.arg = arg()
		if !neg && containsFold(n.arg, "matrix") {
			// A test naming .matrixx selects it wherever it lies,
			// deeper than the walk looks (docs/guard.md, whole-tree walks): find . -name .matrixx.
			switch a {
			case "-name", "-iname":
				if shellMatch(n.arg, ".matrixx", a == "-iname") {
					// The name it selects, not the pattern: find's * matches
					// a leading dot (*matrix*), a path glob's does not.
					x.names = append(x.names, ".matrixx")
				}
			case "-regex", "-iregex":
				x.names = append(x.names, ".matrixx")
			}
		}
		switch a {
		case "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
			if !neg {
				x.patterns = append(x.patterns, n.arg)
			}
		case "-regextype", "-files0-from":
			n.kind = "-true"
		case "-type", "-xtype":
			x.types = true
		}
	default:
		if strings.HasPrefix(a, "-newer") {
			n.arg = arg()
		}
	}
	if n.op == 'x' && n.kind != "-prune" && n.kind != "-quit" {
		x.hasAction = true
		x.acts |= n.act
	}
	return x.add(n)
}

func isNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	_, err := strconv.Atoi(s)
	return err == nil && s != ""
}

// findSel is a find expression judging the entries of a walk for the
// actions act.
type findSel struct {
	x   *findExpr
	act uint8
}

// result of a find expression on an entry: which actions it can reach,
// and whether it surely prunes the entry.
type fresult struct {
	acts   uint8
	out    bool // the whole expression can be true (for an implied -print)
	pruned bool
}

func (f *findSel) cost() int { return 1 + len(f.x.nodes) }

func (f *findSel) visits(e *entry) bool {
	return f.x.maxDepth < 0 || e.depth <= f.x.maxDepth
}

func (f *findSel) descends(e *entry) bool {
	if f.x.depth || f.x.opaque || e.depth < f.x.minDepth {
		return true
	}
	return !f.x.run(e).pruned
}

func (f *findSel) selects(e *entry) bool {
	if e.depth < f.x.minDepth {
		return false
	}
	r := f.x.run(e)
	if r.acts&f.act != 0 {
		return true
	}
	return f.act&actOut != 0 && !f.x.hasAction && r.out
}

// run evaluates the expression on e.
func (x *findExpr) run(e *entry) fresult {
	if x.opaque {
		return fresult{acts: x.acts | actOut, out: true}
	}
	if x.root < 0 {
		return fresult{out: true}
	}
	var r fresult
	t, _ := x.eval(x.root, e, true, &r)
	r.out = t
	return r
}

// eval evaluates node n on e in three values: whether it can be true,
// whether it can be false. It records in r the actions it can reach and
// whether a -prune is surely reached (sure: every way to n leads here).
func (x *findExpr) eval(n int, e *entry, sure bool, r *fresult) (canTrue, canFalse bool) {
	nd := &x.nodes[n]
	switch nd.op {
	case 'a':
		canTrue = true
		for _, k := range nd.kids {
			kt, kf := x.eval(k, e, sure, r)
			canFalse = canFalse || kf
			if !kt {
				return false, canFalse
			}
			sure = sure && !kf
		}
		return true, canFalse
	case 'o':
		for _, k := range nd.kids {
			kt, kf := x.eval(k, e, sure, r)
			canTrue = canTrue || kt
			if !kf {
				return canTrue, false
			}
			sure = sure && !kt
		}
		return canTrue, true
	case ',':
		for _, k := range nd.kids {
			canTrue, canFalse = x.eval(k, e, sure, r)
		}
		return canTrue, canFalse
	case '!':
		t, f := x.eval(nd.kids[0], e, sure, r)
		return f, t
	case 'x':
		r.acts |= nd.act
		switch nd.kind {
		case "-prune":
			r.pruned = r.pruned || sure && e.typ == 'd'
			return true, false
		case "-delete", "-exec", "-execdir", "-ok", "-okdir":
			return true, true // they fail, or the command does
		}
		return true, false
	}
	switch m := x.test(nd, e); m {
	case yes:
		return true, false
	case no:
		return false, true
	}
	return true, true
}

// Three-valued answers of a find test.
const (
	maybe = iota
	yes
	no
)

func answer(b bool) int {
	if b {
		return yes
	}
	return no
}

// test judges a test on e: by name, path, type and the emptiness of a
// file; the others may go either way.
func (x *findExpr) test(nd *fnode, e *entry) int {
	switch nd.kind {
	case "-true":
		return yes
	case "-false":
		return no
	case "-name", "-iname":
		if e.anon || strings.IndexByte(nd.arg, unknown) >= 0 {
			return maybe
		}
		return answer(shellMatch(nd.arg, e.name, nd.kind == "-iname"))
	case "-path", "-ipath", "-wholename", "-iwholename":
		if e.anon || strings.IndexByte(nd.arg, unknown) >= 0 || strings.IndexByte(e.path, unknown) >= 0 {
			return maybe
		}
		return answer(shellMatch(nd.arg, e.path, nd.kind[1] == 'i'))
	case "-type", "-xtype":
		if e.typ == 0 || e.typ == 'l' && (x.follow || nd.kind == "-xtype") || strings.IndexByte(nd.arg, unknown) >= 0 {
			return maybe
		}
		for _, t := range strings.Split(nd.arg, ",") {
			if len(t) == 1 && t[0] == e.typ {
				return yes
			}
		}
		return no
	case "-empty":
		if e.typ == 'f' && e.fi != nil {
			return answer(e.fi.Size() == 0)
		}
		if e.typ == 'f' && e.de != nil {
			if fi, err := e.de.Info(); err == nil {
				return answer(fi.Size() == 0)
			}
		}
	}
	return maybe
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
	f.filesOnly = !fd // grep -l, rg -l list files; fd lists directories too
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
		reps = append(reps, s.reach(st, &f, false)...)
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

// ls analyses a listing whose output feeds another command (a pipe, a
// command substitution): ls prints the entries of each directory operand
// ("." without one), with -a or -A those starting with a dot too (as the
// glob "*" would match them under dotglob, else without), and the
// operand itself with -d or when it is not a directory. It prints bare
// names, which the consumer reads against its own directory or joins
// with a prefix (xargs -I{} rm -rf ../{}, rm -rf ../$d): an entry that is
// guarded or holds a store, judged where it lies, is handed on both as
// the path through the operand (absolute) and as the name ls prints, the
// way echo's known output is. A printed name that is guarded or holds a
// store where ls runs counts too. They stand for its output (rm -rf
// $(ls -A) in a project, ls -a | grep matrixx | xargs rm -rf); a filter
// between keeps them. Not modelled: -R (bare names of deeper entries),
// -I/--hide (which only hide more).
func (s *shell) ls(args []string) {
	if !s.feeds {
		return
	}
	all, self := false, false
	ops := scan("ls", args, func(opt, _ string) {
		switch opt {
		case "a", "A", "f", "--all", "--almost-all":
			all = true
		case "d", "--directory":
			self = true
		}
	})
	if len(ops) == 0 {
		ops = []string{"."}
	}
	type listed struct{ path, printed string }
	var found []listed
	for _, op := range ops[:min(len(ops), maxFields)] {
		starts := s.expandGlob(op)
		if len(starts) == 0 {
			starts = []string{op}
		}
		for _, p := range starts {
			if self || !s.isDir(p) {
				found = append(found, listed{p, p})
				continue
			}
			pat := "*"
			if d := cleanPath(slashes(p)); d != "." {
				pat = escapeGlob(strings.TrimSuffix(d, "/")) + "/*"
			}
			saved := s.dotglob
			s.dotglob = all
			entries := s.expandGlob(pat)
			s.dotglob = saved
			for _, en := range entries {
				found = append(found, listed{en, path.Base(en)})
			}
		}
	}
	guarded := func(p string) bool {
		s.globs()
		return s.e.locate(s.cwd, p, true).st != outside || s.holdsGuarded(p)
	}
	for _, f := range found {
		if len(s.mentions) >= maxFields || s.denied() {
			return
		}
		switch {
		case guarded(f.path):
			s.mentions = append(s.mentions, cleanPath(joinPath(s.cwd, slashes(f.path))))
		case f.printed != f.path && guarded(f.printed):
			s.mentions = append(s.mentions, cleanPath(joinPath(s.cwd, slashes(f.printed))))
		default:
			continue
		}
		if len(s.mentions) < maxFields && !isAbs(f.printed) {
			s.mentions = append(s.mentions, f.printed)
		}
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

// mentionPaths records the paths a command hands on (its output) that
// are guarded or hold a store (find . -maxdepth 0 | xargs rm -rf).
func (s *shell) mentionPaths(ps []string) {
	for _, p := range ps {
		if len(s.mentions) >= maxFields {
			return
		}
		s.globs()
		if loc := s.e.locate(s.cwd, p, false); loc.st != outside || s.holdsGuarded(p) {
			s.mentions = append(s.mentions, cleanPath(joinPath(s.cwd, slashes(p))))
		}
	}
}
