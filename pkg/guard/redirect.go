package guard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirs checks a statement's redirections: every output redirection is
// a write of its target. It returns the statement's stdin.
func (s *shell) redirs(rs []*syntax.Redirect, in input) input {
	// A file opened for reading (N< FILE, N<> FILE) can be written again
	// through /dev/stdin, /dev/fd/N or /proc/self/fd/N: remember a
	// guarded one, for every redirection of the statement and what
	// follows (exec 3< FILE keeps it open).
	for _, r := range rs {
		if len(rs) == 1 || r.Op != syntax.RdrIn && r.Op != syntax.RdrInOut || r.Word == nil || len(r.Word.Parts) == 1 && isProcSubst(r.Word.Parts[0]) {
			continue // a lone redirection is recorded below
		}
		for _, v := range s.fields(r.Word) {
			if loc := s.e.locate(s.cwd, v, false); loc.st != outside && !wholeOnly(loc.st) {
				s.e.open(r, v)
			}
		}
	}
	for _, r := range rs {
		if s.denied() {
			return in
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			for _, v := range s.fields(r.Word) {
				s.write(v, redirLabel(r.Op), true)
			}
		case syntax.DplOut:
			for _, v := range s.fields(r.Word) {
				if !fdWord(v) {
					s.write(v, "redirection >&", true)
				}
			}
		case syntax.RdrIn:
			if r.Word != nil && len(r.Word.Parts) == 1 {
				if ps, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
					c := s.substStmts(ps.Stmts)
					in = input{paths: c.mentions}
					if c.outKnown {
						in.text, in.known = c.out, true
					}
					continue
				}
			}
			in = input{}
			for _, v := range s.fields(r.Word) {
				loc := s.e.locate(s.cwd, v, false)
				if p, ok := s.guardedLex(v); ok {
					in.paths = append(in.paths, p)
					in.from = p
				} else if loc.st != outside {
					in.from = v
				}
				if len(rs) == 1 && loc.st != outside && !wholeOnly(loc.st) {
					s.e.open(r, v)
				}
			}
		case syntax.Hdoc, syntax.DashHdoc:
			in = input{text: s.hdoc(r), known: true}
		case syntax.WordHdoc:
			in = input{text: strings.Join(s.quotedFields(r.Word), " ") + "\n", known: true}
		default: // DplIn
			s.fields(r.Word)
		}
	}
	return in
}

// open records a guarded file opened for reading by redirection r.
func (e *env) open(r *syntax.Redirect, v string) {
	fd := "0"
	if r.N != nil {
		fd = r.N.Value
	}
	if e.opened == nil {
		e.opened = make(map[string]string)
	}
	e.opened[fd] = v
}

func isProcSubst(p syntax.WordPart) bool {
	_, ok := p.(*syntax.ProcSubst)
	return ok
}

// fdPath returns the file descriptor a cleaned path opens again:
// /dev/stdin (0), /dev/stdout (1), /dev/stderr (2), /dev/fd/N,
// /proc/PID/fd/N (and /proc/self/fd, /proc/thread-self/fd); "*" when
// the number is not known; "" for another path.
func fdPath(p string) string {
	switch p {
	case "/dev/stdin":
		return "0"
	case "/dev/stdout":
		return "1"
	case "/dev/stderr":
		return "2"
	}
	if n, ok := strings.CutPrefix(p, "/dev/fd/"); ok {
		return fdNum(n)
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		_, after, ok := strings.Cut(rest, "/")
		if !ok {
			return ""
		}
		if n, ok := strings.CutPrefix(after, "fd/"); ok {
			return fdNum(n)
		}
		if strings.HasPrefix(after, "task/") {
			return "*"
		}
	}
	return ""
}

func fdNum(n string) string {
	if n == "" || strings.Trim(n, "0123456789") != "" {
		return "*"
	}
	return strings.TrimLeft(n[:len(n)-1], "0") + n[len(n)-1:]
}

func redirLabel(op syntax.RedirOperator) string {
	switch op {
	case syntax.RdrOut:
		return "redirection >"
	case syntax.AppOut:
		return "redirection >>"
	case syntax.RdrClob:
		return "redirection >|"
	case syntax.RdrAll:
		return "redirection &>"
	case syntax.AppAll:
		return "redirection &>>"
	case syntax.RdrInOut:
		return "redirection <>"
	}
	return "redirection"
}

// fdWord reports whether the word after >& names a file descriptor.
func fdWord(v string) bool {
	v = strings.TrimSuffix(v, "-")
	if v == "" {
		return true
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// hdoc returns the body of a here-document: literal when the delimiter
// is quoted, expanded otherwise.
func (s *shell) hdoc(r *syntax.Redirect) string {
	if r.Hdoc == nil {
		return ""
	}
	quoted := false
	for _, p := range r.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				quoted = true
			}
		}
	}
	if quoted {
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			}
		}
		return b.String()
	}
	alts := s.parts(r.Hdoc.Parts, inHdoc)
	return alts[0]
}
