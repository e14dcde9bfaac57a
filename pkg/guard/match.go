package guard

import (
	"unicode/utf8"
)

// shellMatch reports whether s matches the shell pattern pat as a whole
// ("*" matches any run of characters, "/" and a leading dot included,
// as in find -path, ${p#pat} and case; "?" one character; "[…]" a class
// with "!" or "^" for negation and ranges; "\" quotes the next
// character). With fold, ASCII case is ignored. A malformed class is
// taken literally.
func shellMatch(pat, s string, fold bool) bool {
	var starP, starS = -1, 0
	p, i := 0, 0
	for i < len(s) {
		if p < len(pat) {
			switch pat[p] {
			case '*':
				starP, starS = p, i
				p++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[i:])
				p++
				i += n
				continue
			case '[':
				if ok, np, matched := matchClass(pat, p, s[i:], fold); ok {
					if matched {
						_, n := utf8.DecodeRuneInString(s[i:])
						p = np
						i += n
						continue
					}
					break
				}
				if eqByte(pat[p], s[i], fold) {
					p++
					i++
					continue
				}
			case '\\':
				if p+1 < len(pat) && eqByte(pat[p+1], s[i], fold) {
					p += 2
					i++
					continue
				}
			default:
				if eqByte(pat[p], s[i], fold) {
					p++
					i++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		p, i = starP+1, starS
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

func eqByte(a, b byte, fold bool) bool {
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	if a >= 'A' && a <= 'Z' {
		a += 'a' - 'A'
	}
	if b >= 'A' && b <= 'Z' {
		b += 'a' - 'A'
	}
	return a == b
}

// matchClass matches the class starting at pat[p] ('[') against the first
// character of s: ok is false when the class is not closed; np is the
// index after it.
func matchClass(pat string, p int, s string, fold bool) (ok bool, np int, matched bool) {
	r, _ := utf8.DecodeRuneInString(s)
	if fold && r >= 'A' && r <= 'Z' {
		r += 'a' - 'A'
	}
	j := p + 1
	neg := false
	if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
		neg = true
		j++
	}
	first := true
	for j < len(pat) {
		if pat[j] == ']' && !first {
			return true, j + 1, matched != neg
		}
		first = false
		lo, n := utf8.DecodeRuneInString(pat[j:])
		if lo == '\\' && j+1 < len(pat) {
			j++
			lo, n = utf8.DecodeRuneInString(pat[j:])
		}
		j += n
		hi := lo
		if j+1 < len(pat) && pat[j] == '-' && pat[j+1] != ']' {
			hi, n = utf8.DecodeRuneInString(pat[j+1:])
			j += 1 + n
		}
		if fold {
			if lo >= 'A' && lo <= 'Z' {
				lo += 'a' - 'A'
			}
			if hi >= 'A' && hi <= 'Z' {
				hi += 'a' - 'A'
			}
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, 0, false
}
