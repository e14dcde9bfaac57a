package guard

import (
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
	if w == nil || len(w.Parts) == 0 {
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

func product(acc, alts []string) []string {
	switch len(alts) {
	case 0:
		return acc
	case 1:
		for i := range acc {
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
		return []string{"*"}
	case *syntax.BraceExp:
		if p.Sequence {
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

func (s *shell) tilde(v string) string {
	if v == "" || v[0] != '~' || s.e.home == "" {
		return v
	}
	if len(v) == 1 || v[1] == '/' {
		return s.e.home + v[1:]
	}
	return v
}

// param expands a parameter: the candidate values of a variable set in
// the command, $PWD, $HOME, positional parameters of a nested sh -c, the
// default word of ${x:-word}; unknown otherwise.
func (s *shell) param(pe *syntax.ParamExp, quoted bool) []string {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.IsSet || pe.Slice != nil ||
		pe.Repl != nil || pe.Names != 0 || pe.NestedParam != nil || pe.Flags != nil {
		s.nested(pe)
		return []string{string(unknown)}
	}
	if pe.Index != nil {
		s.nested(pe.Index)
	}
	name := pe.Param.Value
	vals, ok := s.lookup(name)
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			alt := s.quotedFields(pe.Exp.Word)
			if !ok {
				vals, ok = alt, true
				if pe.Exp.Op == syntax.AssignUnset || pe.Exp.Op == syntax.AssignUnsetOrNull {
					s.set(name, alt)
				}
			} else {
				vals = append(append([]string(nil), vals...), alt...)
			}
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			vals, ok = append(s.quotedFields(pe.Exp.Word), ""), true
		default:
			// Removal of a prefix or suffix, case changes: the value is
			// approximated by the variable's value.
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
	return splitWS(vals)
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
	return splitWS(vals)
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

// splitWS marks the field boundaries of unquoted expansions.
func splitWS(vals []string) []string {
	var out []string
	for i, v := range vals {
		if !strings.ContainsAny(v, " \t\n") {
			if out != nil {
				out = append(out, v)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(vals)), vals[:i]...)
		}
		out = append(out, strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' {
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
