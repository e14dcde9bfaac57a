package guard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// divergence says why bash may read src otherwise than the parser did
// ("" when there is no known reason). mvdan.cc/sh v3.14.1 differs from
// bash on:
//   - a backslash at the end of a line that holds a comment: bash ends
//     the comment at the newline and runs the next line; the parser
//     takes backslash-newline for a line continuation and reads the
//     next line as part of the comment (or of the word before it);
//   - a backslash-newline inside the body of a here-document whose
//     delimiter is not quoted: bash joins the two lines before it
//     compares them with the delimiter, so "EO\⏎F" ends the document
//     (and what follows runs); the parser compares line by line;
//   - a carriage return: bash reads it as an ordinary character (so
//     "\⏎" preceded by CR is no continuation, and "EOF\r" is not the
//     delimiter EOF); the parser reads CR LF as a line break in places;
//   - text that parses only as zsh: bash reads it otherwise.
//
// In those cases the raw rule decides as well as the analysis.
func divergence(src string, f *syntax.File, zsh bool) string {
	switch {
	case zsh:
		return "it parses only as zsh"
	case strings.IndexByte(src, '\r') >= 0:
		return "it holds a carriage return"
	case strings.IndexByte(src, '\\') < 0:
		return ""
	case commentContinued(src):
		return "a comment line ends in a backslash"
	case hdocContinued(src, f):
		return "a here-document line ends in a backslash"
	}
	return ""
}

// commentContinued reports whether a line holds a '#' that may start a
// comment (at the start of the line or after a blank or an operator) and
// ends in a backslash.
func commentContinued(src string) bool {
	for line := range strings.SplitSeq(src, "\n") {
		if !strings.HasSuffix(line, `\`) {
			continue
		}
		for i := 0; i < len(line); i++ {
			if line[i] != '#' {
				continue
			}
			if i == 0 || strings.IndexByte(" \t;&|()<>`", line[i-1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// hdocContinued reports whether the body of a here-document with an
// unquoted delimiter holds a backslash-newline.
func hdocContinued(src string, f *syntax.File) bool {
	if !strings.Contains(src, "<<") || !strings.Contains(src, "\\\n") {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		r, ok := n.(*syntax.Redirect)
		if !ok || (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.Hdoc == nil || quotedDelim(r.Word) {
			return true
		}
		a, b := int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset())
		// The body's last line break belongs to it too.
		b = min(b+1, len(src))
		if a >= 0 && a < b && strings.Contains(src[a:b], "\\\n") {
			found = true
		}
		return true
	})
	return found
}

// quotedDelim reports whether a here-document delimiter is quoted (then
// the body is taken literally, by bash and the parser alike).
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				return true
			}
		}
	}
	return false
}
