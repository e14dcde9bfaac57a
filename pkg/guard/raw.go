package guard

import (
	"strings"
)

// suspicious is the raw rule, for a command that does not parse, that
// bash may read otherwise than the parser (divergence), whose analysis
// ran out of budget or panicked: it reports whether the raw text clearly
// names a guarded path (.matrixx/tasks, .matrixx/plans,
// .matrixx/matrixx.json(c), .matrixx/state, opencode/matrixx.json(c), an
// Extra, Config or State path, in any case and with either slash)
// together with a write-ish token (an output redirection ">", or the name
// of a command that writes: sed, tee, cp, mv, rm, python, …). hit is the
// guarded path as found in the text.
func (e *env) suspicious(cmd string) (hit string, ok bool) {
	// Quotes inside a word do not change the path the shell sees
	// (.matrixx/ta''sks): drop them before looking for one.
	if strings.ContainsAny(cmd, `'"`) {
		cmd = strings.Map(func(r rune) rune {
			if r == '\'' || r == '"' {
				return -1
			}
			return r
		}, cmd)
	}
	low := normText(cmd)
	hit = mentioned(low, e.extra)
	if hit == "" && strings.IndexByte(cmd, '\\') >= 0 {
		// A backslash inside a word is dropped by the shell
		// (.matrixx/ta\sks): look at that text too.
		if h := mentioned(strings.ReplaceAll(cmd, `\`, ""), e.extra); h != "" {
			hit, low = h, strings.ReplaceAll(cmd, `\`, "")
		}
	}
	if hit == "" {
		hit = mentioned(low, e.config)
	}
	if hit == "" {
		hit = mentioned(low, e.state)
	}
	low = strings.ToLower(low)
	if hit == "" {
		return "", false
	}
	if strings.IndexByte(low, '>') >= 0 {
		return hit, true
	}
	// Quotes and backslashes inside a word do not change the name the
	// shell runs (r''m, r"m", \rm): drop them before reading the words.
	// (normText has turned backslashes into slashes.)
	if strings.ContainsAny(low, `'"`) {
		low = strings.Map(func(r rune) rune {
			if r == '\'' || r == '"' {
				return -1
			}
			return r
		}, low)
	}
	for i := 0; i < len(low); {
		for i < len(low) && !wordByte(low[i]) {
			i++
		}
		j := i
		for j < len(low) && wordByte(low[j]) {
			j++
		}
		// "-rm" (--rm), "1rm" ($1rm): what a write-ish name may follow.
		if j > i && (writeish(low[i:j]) || writeish(strings.TrimLeft(low[i:j], "-0123456789"))) {
			return hit, true
		}
		i = j
	}
	return "", false
}

// normText turns backslashes into slashes and collapses runs of slashes,
// so ".matrixx\\tasks" and ".matrixx//tasks" read ".matrixx/tasks".
func normText(s string) string {
	if strings.IndexByte(s, '\\') < 0 && !strings.Contains(s, "//") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prevSlash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			c = '/'
		}
		if c == '/' && prevSlash {
			continue
		}
		prevSlash = c == '/'
		b.WriteByte(c)
	}
	return b.String()
}

// mentioned returns the first guarded path named in the normalised text
// ("" if none), in any case: .matrixx/tasks…, .matrixx/plans…, a config
// file, the hooks' state, or one of the extra paths.
func mentioned(text string, extra []string) string {
	for _, needle := range [...]string{".matrixx/tasks", ".matrixx/plans", ".matrixx/matrixx.json",
		".matrixx/state", "opencode/matrixx.json"} {
		if i := indexFold(text, needle); i >= 0 {
			j := i + len(needle)
			for j < len(text) && pathByte(text[j]) {
				j++
			}
			return text[i:j]
		}
	}
	for _, x := range extra {
		if indexFold(text, x) >= 0 {
			return x
		}
	}
	return ""
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	n := len(sub)
	if n == 0 {
		return 0
	}
	for i := 0; i+n <= len(s); i++ {
		if (s[i]|0x20) == (sub[0]|0x20) && strings.EqualFold(s[i:i+n], sub) {
			return i
		}
	}
	return -1
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '+'
}

func pathByte(c byte) bool {
	return wordByte(c) || c == '/' || c >= 'A' && c <= 'Z' || c == '*' || c == '?'
}

// writeish reports whether a lower-case word of a command names something
// that writes files (a mutating command, an in-place flag, an
// interpreter, a nested shell).
func writeish(w string) bool {
	if mutator(w) || interpreter(w) != "" || shellName(w) {
		return true
	}
	switch w {
	case "eval", "xargs", "-delete", "-exec", "-execdir", "-i", "--in-place", "checkout", "restore":
		return true
	}
	return false
}

// oversized is the raw rule for a script too long to parse: besides
// suspicious, it is refused when it has a write-ish token and mentions
// "matrix" in any spelling the quotes and backslashes of a word allow
// (.matrixx/ta\sks, m”atrixx), or holds text the shell decodes or
// evaluates ($'\x2e…', eval, base64).
func (e *env) oversized(src string) bool {
	low := strings.ToLower(strings.Map(func(r rune) rune {
		if r == '\'' || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, src))
	hides := strings.Contains(low, "matri") || strings.Contains(low, "trixx") || strings.Contains(src, "$'") || strings.Contains(low, "eval") ||
		strings.Contains(low, "base64") || strings.Contains(low, "xxd")
	if !hides {
		return false
	}
	if strings.IndexByte(low, '>') >= 0 {
		return true
	}
	for i := 0; i < len(low); {
		for i < len(low) && !wordByte(low[i]) {
			i++
		}
		j := i
		for j < len(low) && wordByte(low[j]) {
			j++
		}
		if j > i && (writeish(low[i:j]) || writeish(strings.TrimLeft(low[i:j], "-0123456789"))) {
			return true
		}
		i = j
	}
	return false
}
