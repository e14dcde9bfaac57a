package guard

import (
	"fmt"
	"strconv"
	"strings"
)

// maxPrintf caps the text the guard builds for one printf (bytes); a
// longer result, or a field width or precision over maxPrintfWidth, is
// not built (the result is not known).
const (
	maxPrintf      = 64 << 10
	maxPrintfWidth = 4096
)

// printfVar splits the arguments of printf -v NAME FORMAT ARGS… (also
// -vNAME, and -- before FORMAT) into NAME and FORMAT ARGS…; ok is false
// when the output does not go to a variable.
func printfVar(args []string) (name string, rest []string, ok bool) {
	switch {
	case len(args) >= 2 && args[0] == "-v":
		name, rest = args[1], args[2:]
	case len(args) >= 1 && len(args[0]) > 2 && strings.HasPrefix(args[0], "-v"):
		name, rest = args[0][2:], args[1:]
	default:
		return "", nil, false
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	return name, rest, true
}

// printfOut is what bash's printf FORMAT ARGS… writes: the format's
// escapes decoded; %s, %b (escapes of the argument decoded, \c ends the
// output), %q/%Q (shell quoting), %d %i %u %o %x %X %c with flags, width
// and precision (also *), %% ; the format used again while arguments
// remain. A conversion whose value the guard does not compute (%f, %e,
// %g, %a, %(…)T, a number it cannot read, a padded argument with an
// unknown part) becomes the byte unknown in the text, as an unknown part
// of a word does. ok is false when the format itself has an unknown
// part, is malformed, or the text would be too large: then nothing of it
// is known.
func printfOut(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return "", false // bash: usage error, nothing written
	}
	f, args := args[0], args[1:]
	if strings.IndexByte(f, unknown) >= 0 {
		return "", false
	}
	p := printfRun{args: args}
	for {
		used := p.used
		if !p.pass(f) {
			return "", false
		}
		if p.stop || p.used >= len(p.args) || p.used == used {
			break
		}
	}
	return p.b.String(), true
}

// printfRun is one printf's state: its arguments and the text so far.
type printfRun struct {
	args []string
	used int // arguments consumed
	b    strings.Builder
	stop bool // \c in a %b argument ended the output
}

// next is the next argument; missing says there is none left (bash
// then uses "" or 0).
func (p *printfRun) next() (arg string, missing bool) {
	if p.used >= len(p.args) {
		return "", true
	}
	p.used++
	return p.args[p.used-1], false
}

// pass writes the format once; false when it is malformed or the text
// grows past maxPrintf.
func (p *printfRun) pass(f string) bool {
	for i := 0; i < len(f) && !p.stop; {
		if p.b.Len() > maxPrintf {
			return false
		}
		switch c := f[i]; c {
		case '\\':
			out, n, _ := printfEscape(f[i:], false)
			p.b.WriteString(out)
			i += n
		case '%':
			n, ok := p.conv(f[i:])
			if !ok {
				return false
			}
			i += n
		default:
			p.b.WriteByte(c)
			i++
		}
	}
	return p.b.Len() <= maxPrintf
}

// conv writes one conversion; f starts at its '%'. It returns the bytes
// of the format it used.
func (p *printfRun) conv(f string) (int, bool) {
	i := 1
	if i < len(f) && f[i] == '%' {
		p.b.WriteByte('%')
		return 2, true
	}
	flags := ""
	for i < len(f) && strings.IndexByte("-+ #0'", f[i]) >= 0 {
		flags += f[i : i+1]
		i++
	}
	known := true
	num := func() (int, bool) { // a width or precision: digits or *
		if i < len(f) && f[i] == '*' {
			i++
			a, _ := p.next()
			n, ok := printfInt(a)
			if !ok || n < -maxPrintfWidth || n > maxPrintfWidth {
				known = false
				return 0, true
			}
			return int(n), true
		}
		j := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
		n, err := strconv.Atoi(f[j:i])
		if err != nil || n > maxPrintfWidth {
			known = false
		}
		return n, true
	}
	width, hasWidth := num()
	if width < 0 { // %*s with a negative width: left-justified
		flags += "-"
		width = -width
	}
	prec, hasPrec := 0, false
	if i < len(f) && f[i] == '.' {
		i++
		hasPrec = true
		prec, _ = num()
		if prec < 0 {
			hasPrec = false
		}
	}
	for i < len(f) && strings.IndexByte("hlLjzt", f[i]) >= 0 {
		i++
	}
	if i >= len(f) {
		return 0, false
	}
	c := f[i]
	i++
	if c == '(' { // %(datefmt)T: the time, not known
		j := strings.IndexByte(f[i:], ')')
		if j < 0 || i+j+1 >= len(f) || f[i+j+1] != 'T' {
			return 0, false
		}
		i += j + 2
		p.next()
		p.b.WriteByte(unknown)
		return i, true
	}
	if strings.IndexByte("sbqQdiuoxXcfFeEgGaA", c) < 0 {
		return 0, false // bash: invalid format character
	}
	arg, missing := p.next()
	if !known {
		p.b.WriteByte(unknown)
		return i, true
	}
	var text string
	switch c {
	case 's', 'b', 'q', 'Q':
		text = arg
		if c == 'b' {
			text = printfB(arg, &p.stop)
		}
		if c == 'Q' && hasPrec && prec < len(text) {
			text, hasPrec = text[:prec], false
		}
		if c == 'q' || c == 'Q' {
			q, ok := shellQuote(text)
			if !ok {
				p.b.WriteByte(unknown)
				return i, true
			}
			text = q
		}
		if hasPrec && prec < len(text) {
			text = text[:prec]
		}
		if (hasPrec || hasWidth) && strings.IndexByte(text, unknown) >= 0 {
			text = string(unknown)
		} else if hasWidth && len(text) < width {
			pad := strings.Repeat(" ", width-len(text))
			if strings.IndexByte(flags, '-') >= 0 {
				text += pad
			} else {
				text = pad + text
			}
		}
	case 'c':
		if arg != "" {
			text = arg[:1]
		}
		if hasWidth && len(text) < width {
			pad := strings.Repeat(" ", width-len(text))
			if strings.IndexByte(flags, '-') >= 0 {
				text += pad
			} else {
				text = pad + text
			}
		}
	case 'd', 'i', 'u', 'o', 'x', 'X':
		n, ok := int64(0), true
		if !missing {
			n, ok = printfInt(arg)
		}
		if !ok || strings.IndexByte(flags, '\'') >= 0 {
			text = string(unknown)
			break
		}
		spec := "%" + flags
		if hasWidth {
			spec += strconv.Itoa(width)
		}
		if hasPrec {
			spec += "." + strconv.Itoa(prec)
		}
		switch c {
		case 'd', 'i':
			text = fmt.Sprintf(spec+"d", n)
		case 'u':
			text = fmt.Sprintf(spec+"d", uint64(n))
		default:
			text = fmt.Sprintf(spec+string(c), uint64(n))
		}
	default: // floating point: not computed
		text = string(unknown)
	}
	p.b.WriteString(text)
	return i, true
}

// printfInt reads a numeric argument as bash does: blanks, a sign, then
// decimal, 0octal or 0xhex digits; or a quote and a character ('a is 97).
func printfInt(a string) (int64, bool) {
	if strings.IndexByte(a, unknown) >= 0 {
		return 0, false
	}
	if a == "" {
		return 0, true
	}
	if a[0] == '\'' || a[0] == '"' {
		if len(a) == 1 {
			return 0, true
		}
		if a[1] >= 0x80 {
			return 0, false // a multibyte character: its code point
		}
		return int64(a[1]), true
	}
	n, err := strconv.ParseInt(strings.TrimLeft(a, " \t\n"), 0, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// printfB decodes the escapes of a %b argument; \c ends the whole
// output (stop).
func printfB(a string, stop *bool) string {
	if strings.IndexByte(a, '\\') < 0 {
		return a
	}
	var b strings.Builder
	for i := 0; i < len(a); {
		if a[i] != '\\' {
			b.WriteByte(a[i])
			i++
			continue
		}
		out, n, c := printfEscape(a[i:], true)
		if c {
			*stop = true
			break
		}
		b.WriteString(out)
		i += n
	}
	return b.String()
}

// printfEscape decodes the backslash escape at the start of v (in the
// format, or in a %b argument when inB) and returns its text, the bytes
// it used, and whether it is \c (which ends the output in %b).
func printfEscape(v string, inB bool) (string, int, bool) {
	if len(v) < 2 {
		return v, len(v), false
	}
	switch c := v[1]; c {
	case 'c':
		if inB {
			return "", 2, true
		}
		return v[:2], 2, false
	case '0', '1', '2', '3', '4', '5', '6', '7':
		// \NNN in the format; \0NNN (and \NNN) in %b.
		i, limit := 1, 3
		if inB && c == '0' {
			i, limit = 2, 3
		}
		n, k := 0, 0
		for k < limit && i < len(v) && v[i] >= '0' && v[i] <= '7' {
			n = n*8 + int(v[i]-'0')
			i++
			k++
		}
		return string([]byte{byte(n)}), i, false
	case '"':
		return `"`, 2, false
	case '\'':
		return `'`, 2, false
	case '?':
		return "?", 2, false
	}
	// The rest as in $'…' (\n, \t, \\, \xHH, \uHHHH, …): decode the
	// escape alone.
	end := 2
	switch v[1] {
	case 'x':
		end = min(len(v), 4)
	case 'u':
		end = min(len(v), 6)
	case 'U':
		end = min(len(v), 10)
	}
	out := ansiC(v[:end])
	// ansiC stops at the first non-hex digit; give back what it left.
	if v[1] == 'x' || v[1] == 'u' || v[1] == 'U' {
		k := 2
		for k < end && hexVal(v[k]) >= 0 {
			k++
		}
		if k == 2 {
			return v[:2], 2, false
		}
		return ansiC(v[:k]), k, false
	}
	return out, end, false
}

// shellQuote is %q: the argument quoted for bash's input with
// backslashes, a pair of single quotes when empty; ok is false for text with control or
// non-ASCII bytes (bash then writes $'…').
func shellQuote(a string) (string, bool) {
	if a == "" {
		return "''", true
	}
	var b strings.Builder
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch {
		case c == unknown:
		case c < 0x20 || c >= 0x7f:
			return "", false
		case strings.IndexByte(" \t'\"\\|&;()<>!{}*[?]^$`,", c) >= 0,
			c == '#' && i == 0,
			c == '~' && (i == 0 || a[i-1] == '=' || a[i-1] == ':'):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String(), true
}
