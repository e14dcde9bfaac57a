package enforce

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// AwaitsUser reports whether msg, the agent's last message before a Stop
// (the event's last_assistant_message), ends by asking the user something
// and so waits for an answer: then the stop is let through, since blocking
// it would make the agent answer its own question (the awaiting-user skip,
// docs/hooks.md). The rule:
//
//  1. Code is not prose: fenced blocks (``` or ~~~), indented code lines,
//     inline code spans and quoted lines ("> …") are removed first, so a "?"
//     in a regular expression, a URL query or a shell glob never counts.
//  2. The message's last sentence must end with "?" (closing quotes,
//     brackets, emphasis marks and white space after it are ignored). A
//     question followed by its own answer ("Why? Because …") does not.
//  3. That sentence must address the user: "you", "your" (and "yours",
//     "yourself"), the agent asking leave ("I", "me", "my", "shall we",
//     "should we", "let's"), or ask for a decision ("should", "shall",
//     "which", "ok to", "okay to", "prefer", "confirm", "approve",
//     "proceed", "go ahead"). A question that does neither ("What could go
//     wrong?", "Isn't that neat?", "Who knew?") is rhetorical and does not
//     count.
//
// An empty message never awaits the user.
func AwaitsUser(msg string) bool {
	s := stripCode(msg)
	for {
		s = strings.TrimRightFunc(s, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune("\"'`]}*_»”’", r)
		})
		// A closing parenthetical after the question ("… tests? (about
		// 10 min)") is an aside.
		if i := strings.LastIndexByte(s, '('); strings.HasSuffix(s, ")") && i >= 0 {
			s = s[:i]
			continue
		}
		s = strings.TrimRight(s, ")")
		break
	}
	if !strings.HasSuffix(s, "?") {
		return false
	}
	return addressesUser(lastSentence(strings.TrimSuffix(s, "?")))
}

// The patterns are compiled on first use, not at start-up: every binary
// that links this package (the hook before each tool call) would otherwise
// pay for them before main.
var (
	fence      = lazyRegexp("(?ms)^[ \t]*(```|~~~).*?(^[ \t]*(```|~~~)[^\n]*$|\\z)")
	inlineCode = lazyRegexp("`[^`\n]*`")
	wordRe     = lazyRegexp(`[\pL']+`)
)

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp on every call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// stripCode removes code and quotes from markdown text (rule 1).
func stripCode(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimRight(s, "\x00") // a cut string's sentinel
	s = fence().ReplaceAllString(s, "\n")
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(trimmed, ">") {
			continue
		}
		keep = append(keep, line)
	}
	return inlineCode().ReplaceAllString(strings.Join(keep, "\n"), "code")
}

// lastSentence is the text after the last sentence end (". ", "! ", "? ",
// or a blank line) in s.
func lastSentence(s string) string {
	if i := strings.LastIndex(s, "\n\n"); i >= 0 {
		s = s[i+2:]
	}
	for i := len(s) - 1; i > 0; i-- {
		if unicode.IsSpace(rune(s[i])) && strings.ContainsRune(".!?", rune(s[i-1])) {
			return s[i+1:]
		}
	}
	return s
}

var (
	addressWords = map[string]bool{
		"you": true, "your": true, "yours": true, "yourself": true, "you'd": true, "you're": true, "you'll": true, "you've": true,
		"i": true, "me": true, "my": true, "i'll": true, "i'd": true, "let's": true,
		"prefer": true, "confirm": true, "approve": true, "proceed": true,
		"should": true, "shall": true, "which": true,
	}
	addressPhrases = []string{"shall we", "should we", "ok to", "okay to", "go ahead"}
)

// addressesUser applies rule 3 to one sentence.
func addressesUser(sentence string) bool {
	low := strings.ToLower(strings.ReplaceAll(sentence, "’", "'"))
	for _, w := range wordRe().FindAllString(low, -1) {
		if addressWords[strings.Trim(w, "'")] || addressWords[w] {
			return true
		}
	}
	words := " " + strings.Join(wordRe().FindAllString(low, -1), " ") + " "
	for _, p := range addressPhrases {
		if strings.Contains(words, " "+p+" ") {
			return true
		}
	}
	return false
}
