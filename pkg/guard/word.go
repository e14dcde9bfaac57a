package guard

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// quoting is the context a word part is expanded in.
type quoting uint8

const (
	unquoted quoting = iota // an argument: escapes removed, expansions split
	inAssign                // the value of an assignment: no splitting
	inDouble                // inside "…"
	inHdoc                  // the body of an unquoted here-document
)

// fields expands a word to every string it may stand for (several when it
// holds brace expansions or variables with several candidate values). A
// part the guard cannot know is the byte unknown.
func (s *shell) fields(w *syntax.Word) []string {
	return s.appendFields(nil, w)
}

// appendFields appends the expansion of an argument word to dst.
func (s *shell) appendFields(dst []string, w *syntax.Word) []string {
	if w == nil || len(w.Parts) == 0 || !s.e.charge(1, 0) {
		return dst
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			return append(dst, l.Value)
		}
	}
	// SplitBraces on a copy: the tree stays walkable (syntax.Walk does
	// not know BraceExp nodes) and is never changed by the analysis.
	if bw := (&syntax.Word{Parts: w.Parts}); syntax.SplitBraces(bw) {
		w = bw
	}
	alts := s.parts(w.Parts, unquoted)
	for _, a := range alts {
		if containsFold(a, "matrixx") {
			s.e.taint = true
		}
		if strings.IndexByte(a, fieldSep) < 0 {
			dst = append(dst, a)
			continue
		}
		for f := range strings.SplitSeq(a, string(fieldSep)) {
			if f != "" {
				dst = append(dst, f)
			}
		}
	}
	return dst
}

// quotedFields expands a word without field splitting or brace expansion
// (assignment values, here-strings).
func (s *shell) quotedFields(w *syntax.Word) []string {
	if w == nil || len(w.Parts) == 0 {
		return []string{""}
	}
	alts := s.parts(w.Parts, inAssign)
	for _, a := range alts {
		if containsFold(a, "matrixx") {
			s.e.taint = true
		}
	}
	return alts
}

// plainLit reports whether an unquoted literal needs no expansion (and
// holds no fieldSep byte, which the slow path treats as a field boundary
// wherever it comes from).
func plainLit(v string) bool {
	return strings.IndexByte(v, '\\') < 0 && strings.IndexByte(v, '{') < 0 &&
		strings.IndexByte(v, fieldSep) < 0 && (v == "" || v[0] != '~')
}

// parts expands a sequence of word parts: the cross product of the
// alternatives of each part, at most maxFields strings. The strings are
// built in builders, so a word of many parts costs linear time; once
// maxFields alternatives exist, a part with several alternatives adds
// only its first.
func (s *shell) parts(ps []syntax.WordPart, q quoting) []string {
	acc := make([]strings.Builder, 1, 2)
	for i, p := range ps {
		alts := s.part(p, q, i == 0)
		if len(alts) == 1 || len(acc) >= maxFields {
			if !s.e.charge(0, len(acc)*len(alts[0])) {
				return []string{string(unknown)}
			}
			for k := range acc {
				acc[k].WriteString(alts[0])
			}
			continue
		}
		next := make([]strings.Builder, 0, min(len(acc)*len(alts), maxFields))
		for k := range acc {
			prefix := acc[k].String()
			for _, a := range alts {
				if len(next) == maxFields {
					break
				}
				if !s.e.charge(0, len(prefix)+len(a)) {
					return []string{string(unknown)}
				}
				next = append(next, strings.Builder{})
				b := &next[len(next)-1]
				b.WriteString(prefix)
				b.WriteString(a)
			}
		}
		acc = next
	}
	out := make([]string, len(acc))
	for k := range acc {
		out[k] = acc[k].String()
	}
	return out
}

// product is the cross product of acc and alts (appending to a variable:
// a+=b), at most maxFields strings; nil when the byte budget is spent.
func (e *env) product(acc, alts []string) []string {
	switch len(alts) {
	case 0:
		return acc
	case 1:
		for i := range acc {
			if !e.charge(0, len(acc[i])+len(alts[0])) {
				return nil
			}
			acc[i] += alts[0]
		}
		return acc
	}
	out := make([]string, 0, min(len(acc)*len(alts), maxFields))
	for _, a := range acc {
		for _, b := range alts {
			if len(out) == maxFields {
				return out
			}
			if !e.charge(0, len(a)+len(b)) {
				return nil
			}
			out = append(out, a+b)
		}
	}
	return out
}

// part expands one word part.
func (s *shell) part(p syntax.WordPart, q quoting, first bool) []string {
	switch p := p.(type) {
	case *syntax.Lit:
		v := unescape(p.Value, q)
		if first && (q == unquoted || q == inAssign) {
			v = s.tilde(v)
		}
		return []string{noSep(v)}
	case *syntax.SglQuoted:
		if p.Dollar {
			return []string{noSep(ansiC(p.Value))}
		}
		return []string{noSep(p.Value)}
	case *syntax.DblQuoted:
		return s.parts(p.Parts, inDouble)
	case *syntax.ParamExp:
		return s.param(p, q != unquoted)
	case *syntax.CmdSubst:
		return s.subst(p.Stmts, q != unquoted)
	case *syntax.ProcSubst:
		return []string{s.procSubst(p)}
	case *syntax.ArithmExp:
		s.nested(p)
		return []string{"0"}
	case *syntax.ExtGlob:
		return extGlob(p)
	case *syntax.BraceExp:
		if p.Sequence {
			if seq := braceSequence(p.Elems); seq != nil {
				return seq
			}
			for _, el := range p.Elems {
				s.fields(el)
			}
			return []string{string(unknown)}
		}
		var alts []string
		for _, el := range p.Elems {
			if len(alts) >= maxFields {
				break
			}
			alts = append(alts, s.parts(el.Parts, q)...)
		}
		if len(alts) == 0 {
			alts = append(alts, "")
		}
		return alts
	}
	return []string{string(unknown)}
}

// extGlob is what an extended glob may match: @(a|b) and ?(a|b) their
// alternatives (each may be a pattern itself), the others any name ("*"),
// and a dot name (".*") as well when an alternative starts with a dot
// (+(.m*) matches .matrixx) or, for *(…), when the parentheses hold D:
// zsh reads *(D) as "*" with the qualifier D, which includes dot names.
func extGlob(p *syntax.ExtGlob) []string {
	v := p.Pattern.Value
	alts := strings.Split(v, "|")
	if (p.Op == syntax.GlobOne || p.Op == syntax.GlobZeroOrOne) && !strings.ContainsAny(v, "()") && len(alts) <= maxFields {
		if p.Op == syntax.GlobZeroOrOne {
			alts = append(alts, "")
		}
		return alts[:min(len(alts), maxFields)]
	}
	dot := p.Op == syntax.GlobZeroOrMore && strings.ContainsRune(v, 'D')
	for _, a := range alts {
		dot = dot || strings.HasPrefix(a, ".")
	}
	if dot {
		return []string{"*", ".*"}
	}
	return []string{"*"}
}

func (s *shell) tilde(v string) string {
	if v == "" || v[0] != '~' || s.e.home == "" {
		return v
	}
	if len(v) == 1 || v[1] == '/' {
		return s.e.home + v[1:]
	}
	// ~+ is $PWD, ~- is $OLDPWD.
	if len(v) == 2 || v[2] == '/' {
		switch {
		case v[1] == '+' && s.cwd != "":
			return s.cwd + v[2:]
		case v[1] == '-' && s.oldpwd != "":
			return s.oldpwd + v[2:]
		}
	}
	return v
}

// param expands a parameter: the candidate values of a variable set in
// the command, $PWD, $HOME, positional parameters, the default word of
// ${x:-word}, and the removals, replacements and slices of a known value
// (${p%x}, ${p/a/b}, ${p:1:3}); unknown otherwise. When an operation on a
// known value cannot be computed, the value itself stands beside the
// unknown result (a store path in it stays visible).
func (s *shell) param(pe *syntax.ParamExp, quoted bool) []string {
	if pe.Excl && pe.Param != nil && pe.Names == 0 && pe.Index == nil && pe.Exp == nil && pe.Repl == nil &&
		pe.Slice == nil && !pe.Length && !pe.Width && !pe.IsSet && pe.NestedParam == nil && pe.Flags == nil {
		// ${!name}: the variable name holds the name of.
		names, ok := s.lookup(pe.Param.Value)
		if !ok {
			return []string{string(unknown)}
		}
		var out []string
		for _, n := range names {
			v, ok := s.lookup(n)
			if !ok {
				v = []string{string(unknown)}
			}
			out = append(out, v...)
		}
		if len(out) == 0 {
			return []string{""}
		}
		if quoted {
			return out
		}
		return s.splitWS(out)
	}
	if pe.Param == nil || pe.Excl || pe.Width || pe.IsSet || pe.Names != 0 || pe.NestedParam != nil ||
		pe.Flags != nil {
		s.nested(pe)
		return []string{string(unknown)}
	}
	if pe.Length {
		s.nested(pe)
		return []string{"0"}
	}
	if pe.Index != nil {
		s.nested(pe.Index)
	}
	name := pe.Param.Value
	vals, ok := s.lookup(name)
	switch {
	case pe.Slice != nil:
		s.nested(pe.Slice.Offset)
		s.nested(pe.Slice.Length)
		if ok {
			vals = s.sliceVals(vals, pe.Slice)
		}
	case pe.Repl != nil:
		vals, ok = s.replVals(vals, ok, pe.Repl)
	case pe.Exp != nil:
		switch op := pe.Exp.Op; op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			alt := s.quotedFields(pe.Exp.Word)
			if !ok {
				vals, ok = alt, true
				if op == syntax.AssignUnset || op == syntax.AssignUnsetOrNull {
					s.set(name, alt)
				}
			} else {
				vals = append(append([]string(nil), vals...), alt...)
			}
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			vals, ok = append(s.quotedFields(pe.Exp.Word), ""), true
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			pat, known := s.pattern(pe.Exp.Word)
			if ok {
				vals = s.removeVals(vals, pat, known, op)
			}
		default:
			// Case changes (the guard matches without case), zsh's
			// operators: the value is approximated by the variable's.
			if pe.Exp.Word != nil {
				s.quotedFields(pe.Exp.Word)
			}
		}
	}
	if !ok {
		return []string{string(unknown)}
	}
	if len(vals) == 0 {
		return []string{""}
	}
	if quoted {
		return vals
	}
	return s.splitWS(vals)
}

// maxPatternValue bounds the length of a value a pattern is applied to
// (the matching costs up to cubic time in it).
const maxPatternValue = 256

// pattern expands the pattern word of ${p#pat} or ${p/pat/…}: literal and
// expanded text keep their glob characters, quoted text is escaped. known
// is false when a part is unknown.
func (s *shell) pattern(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v)
			}
			b.WriteString(escapeGlob(v))
		default:
			alts := s.part(p, inDouble, false)
			if len(alts) != 1 || strings.IndexByte(alts[0], unknown) >= 0 {
				return "", false
			}
			if _, dq := p.(*syntax.DblQuoted); dq {
				b.WriteString(escapeGlob(alts[0]))
			} else {
				b.WriteString(alts[0])
			}
		}
	}
	return b.String(), true
}

func escapeGlob(v string) string {
	if !strings.ContainsAny(v, `*?[\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if strings.IndexByte(`*?[\`, v[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// removeVals applies ${p#pat}, ${p##pat}, ${p%pat}, ${p%%pat} to every
// candidate value.
func (s *shell) removeVals(vals []string, pat string, known bool, op syntax.ParExpOperator) []string {
	out := make([]string, 0, len(vals)+1)
	for _, v := range vals {
		if !known || len(v) > maxPatternValue || strings.IndexByte(v, unknown) >= 0 || !s.e.charge(len(v), 0) {
			out = append(out, v, string(unknown))
			continue
		}
		r := v
		switch op {
		case syntax.RemSmallPrefix:
			for i := 0; i <= len(v); i++ {
				if shellMatch(pat, v[:i], false) {
					r = v[i:]
					break
				}
			}
		case syntax.RemLargePrefix:
			for i := len(v); i >= 0; i-- {
				if shellMatch(pat, v[:i], false) {
					r = v[i:]
					break
				}
			}
		case syntax.RemSmallSuffix:
			for i := len(v); i >= 0; i-- {
				if shellMatch(pat, v[i:], false) {
					r = v[:i]
					break
				}
			}
		case syntax.RemLargeSuffix:
			for i := 0; i <= len(v); i++ {
				if shellMatch(pat, v[i:], false) {
					r = v[:i]
					break
				}
			}
		}
		out = append(out, r)
	}
	return out[:min(len(out), maxFields)]
}

// replVals applies ${p/pat/rep} and ${p//pat/rep} (a pattern starting
// with # or % is anchored at the start or the end). An unknown variable
// whose replacement is known stands for that replacement as well.
func (s *shell) replVals(vals []string, ok bool, r *syntax.Replace) ([]string, bool) {
	pat, known := s.pattern(r.Orig)
	with := s.quotedFields(r.With)
	if !ok {
		out := []string{string(unknown)}
		for _, w := range with {
			if strings.IndexByte(w, unknown) < 0 && containsFold(w, "matrixx") {
				out = append(out, w)
			}
		}
		return out, true
	}
	anchor := byte(0)
	if !r.All && pat != "" && (pat[0] == '#' || pat[0] == '%') {
		anchor, pat = pat[0], pat[1:]
	}
	out := make([]string, 0, len(vals)+1)
	for _, v := range vals {
		for _, w := range with {
			if !known || len(v) > maxPatternValue || strings.IndexByte(v, unknown) >= 0 ||
				!s.e.charge(len(v)*len(v), len(v)+len(w)) {
				out = append(out, v, string(unknown))
				continue
			}
			out = append(out, replace(v, pat, w, r.All, anchor))
		}
	}
	return out[:min(len(out), maxFields)], true
}

// replace is bash's ${v/pat/w} (longest match at the leftmost position).
func replace(v, pat, w string, all bool, anchor byte) string {
	if pat == "" {
		return v
	}
	var b strings.Builder
	i := 0
	for i <= len(v) {
		end := -1
		switch anchor {
		case '#':
			if i == 0 {
				for j := len(v); j >= 0; j-- {
					if shellMatch(pat, v[:j], false) {
						end = j
						break
					}
				}
			}
		case '%':
			if shellMatch(pat, v[i:], false) {
				end = len(v)
			}
		default:
			for j := len(v); j > i; j-- {
				if shellMatch(pat, v[i:j], false) {
					end = j
					break
				}
			}
		}
		if end < 0 {
			if anchor == '#' || i == len(v) {
				break
			}
			b.WriteByte(v[i])
			i++
			continue
		}
		b.WriteString(w)
		if !all || end == i {
			if end == i && i < len(v) {
				b.WriteByte(v[i])
				end++
			}
			b.WriteString(v[end:])
			return b.String()
		}
		i = end
	}
	if i < len(v) {
		b.WriteString(v[i:])
	}
	return b.String()
}

// sliceVals applies ${p:off} and ${p:off:len} with literal numbers; other
// slices keep the value beside an unknown result.
func (s *shell) sliceVals(vals []string, sl *syntax.Slice) []string {
	off, okOff := arithLit(sl.Offset)
	n, okLen := 0, sl.Length == nil
	if sl.Length != nil {
		n, okLen = arithLit(sl.Length)
	}
	out := make([]string, 0, len(vals)+1)
	for _, v := range vals {
		if !okOff || !okLen || strings.IndexByte(v, unknown) >= 0 {
			out = append(out, v, string(unknown))
			continue
		}
		a := off
		if a < 0 {
			a += len(v)
		}
		a = max(0, min(a, len(v)))
		b := len(v)
		if sl.Length != nil {
			if n < 0 {
				b = len(v) + n
			} else {
				b = a + n
			}
		}
		b = max(a, min(b, len(v)))
		out = append(out, v[a:b])
	}
	return out[:min(len(out), maxFields)]
}

// arithLit reads an arithmetic expression that is a literal integer
// (possibly negated).
func arithLit(x syntax.ArithmExpr) (int, bool) {
	neg := false
	if u, ok := x.(*syntax.UnaryArithm); ok && u.Op == syntax.Minus && !u.Post {
		neg, x = true, u.X
	}
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return 0, false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(l.Value))
	if err != nil || n > 1<<20 || n < -(1<<20) {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// braceSequence expands {a..e}, {1..10}, {01..10..2}: nil when it is not
// a literal sequence of at most maxFields items.
func braceSequence(elems []*syntax.Word) []string {
	if len(elems) < 2 || len(elems) > 3 {
		return nil
	}
	lits := make([]string, len(elems))
	for i, el := range elems {
		if el == nil || len(el.Parts) != 1 {
			return nil
		}
		l, ok := el.Parts[0].(*syntax.Lit)
		if !ok {
			return nil
		}
		lits[i] = l.Value
	}
	step := 1
	if len(lits) == 3 {
		n, err := strconv.Atoi(lits[2])
		if err != nil || n == 0 {
			return nil
		}
		step = max(n, -n)
	}
	from, err1 := strconv.Atoi(lits[0])
	to, err2 := strconv.Atoi(lits[1])
	chars := false
	if err1 != nil || err2 != nil {
		if len(lits[0]) != 1 || len(lits[1]) != 1 || !isLetter(lits[0][0]) || !isLetter(lits[1][0]) {
			return nil
		}
		from, to, chars = int(lits[0][0]), int(lits[1][0]), true
	}
	if (max(from, to)-min(from, to))/step+1 > maxFields {
		return nil
	}
	width := 0
	if !chars && (len(lits[0]) > 1 && strings.TrimLeft(lits[0], "-")[0] == '0' ||
		len(lits[1]) > 1 && strings.TrimLeft(lits[1], "-")[0] == '0') {
		width = max(len(lits[0]), len(lits[1]))
	}
	if from > to {
		step = -step
	}
	var out []string
	for v := from; (step > 0 && v <= to) || (step < 0 && v >= to); v += step {
		switch {
		case chars:
			out = append(out, string(rune(v)))
		case width > 0:
			out = append(out, fmt.Sprintf("%0*d", width, v))
		default:
			out = append(out, strconv.Itoa(v))
		}
	}
	return out
}

// subst expands a command substitution: its output when the guard knows
// it (echo, printf, pwd, cat of a here-document, …), else unknown, plus
// the guarded paths the inner commands named (rm $(ls .matrixx/tasks/*)).
func (s *shell) subst(list []*syntax.Stmt, quoted bool) []string {
	c := s.substStmts(list)
	var vals []string
	if c.outKnown {
		vals = append(vals, strings.TrimRight(c.out, "\n"))
	} else {
		vals = append(vals, string(unknown))
		vals = append(vals, c.mentions...)
	}
	if quoted {
		return vals
	}
	return s.splitWS(vals)
}

// procSubst analyses a process substitution and returns the path it
// expands to; its output, when known, is kept for the commands that read
// that path as a script (bash <(echo …), source <(…), python3 <(…)).
func (s *shell) procSubst(p *syntax.ProcSubst) string {
	c := s.substStmts(p.Stmts)
	s.e.fdN++
	name := "/dev/fd/" + strconv.Itoa(62+s.e.fdN)
	if c.outKnown && p.Op == syntax.CmdIn {
		if s.e.fds == nil {
			s.e.fds = make(map[string]string)
		}
		s.e.fds[name] = c.out
	}
	return name
}

// splitWS marks the field boundaries of unquoted expansions: at blanks
// and newlines, and at the characters of an IFS the command set (both:
// splitting more can only show more words).
func (s *shell) splitWS(vals []string) []string {
	seps := " \t\n"
	if ifs, ok := s.vars["IFS"]; ok {
		for _, v := range ifs {
			if strings.IndexByte(v, unknown) < 0 && len(seps) < 64 {
				seps += v
			}
		}
	}
	var out []string
	for i, v := range vals {
		if !strings.ContainsAny(v, seps) {
			if out != nil {
				out = append(out, v)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(vals)), vals[:i]...)
		}
		out = append(out, strings.Map(func(r rune) rune {
			if strings.ContainsRune(seps, r) {
				return fieldSep
			}
			return r
		}, v))
	}
	if out == nil {
		return vals
	}
	return out
}

// noSep replaces fieldSep bytes of literal text, so that only word
// splitting of an expansion produces them.
func noSep(v string) string {
	if strings.IndexByte(v, fieldSep) < 0 {
		return v
	}
	return strings.ReplaceAll(v, string(fieldSep), "\x02")
}

// unescape removes the backslashes the shell removes in context q.
func unescape(v string, q quoting) string {
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			b.WriteByte(c)
			continue
		}
		n := v[i+1]
		switch q {
		case unquoted, inAssign:
			i++
			if n != '\n' {
				b.WriteByte(n)
			}
		case inDouble, inHdoc:
			switch {
			case n == '\n':
				i++
			case n == '$' || n == '`' || n == '\\' || (n == '"' && q == inDouble):
				i++
				b.WriteByte(n)
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

// ansiC decodes the escapes of a $'…' string.
func ansiC(v string) string {
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			b.WriteByte(c)
			continue
		}
		i++
		switch n := v[i]; n {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			limit := 2
			switch n {
			case 'u':
				limit = 4
			case 'U':
				limit = 8
			}
			r, k := 0, 0
			for k < limit && i+1 < len(v) && hexVal(v[i+1]) >= 0 {
				i++
				r = r*16 + hexVal(v[i])
				k++
			}
			switch {
			case k == 0:
				b.WriteByte('\\')
				b.WriteByte(n)
			case n == 'x':
				b.WriteByte(byte(r))
			default:
				if r > utf8.MaxRune {
					r = utf8.RuneError
				}
				b.WriteRune(rune(r))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			r := int(n - '0')
			for k := 1; k < 3 && i+1 < len(v) && v[i+1] >= '0' && v[i+1] <= '7'; k++ {
				i++
				r = r*8 + int(v[i]-'0')
			}
			b.WriteByte(byte(r))
		default: // \\ \' \" \? and unknown escapes
			if n != '\\' && n != '\'' && n != '"' && n != '?' {
				b.WriteByte('\\')
			}
			b.WriteByte(n)
		}
	}
	out := b.String()
	if i := strings.IndexByte(out, 0); i >= 0 {
		out = out[:i] // bash cuts the word at NUL
	}
	return out
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
