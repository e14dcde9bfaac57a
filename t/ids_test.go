package t

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// internalID matches what a reader with only this repository cannot look
// up: sections of the original's spec ("spec §8"), of the team's design card
// ("DESIGN §3", "D13"), and decision numbers of notes ("S46", "H10", "P21",
// "M4").
var internalID = regexp.MustCompile(`§|\b[SDHPM][0-9]{1,3}\b`)

// TestNoInternalIDsInGo keeps internal ids out of the shipping Go code:
// comments and strings state the rule in words, or name a document of the
// repository and its section by title.
func TestNoInternalIDsInGo(t *testing.T) {
	var bad []string
	for _, root := range []string{"../cmd", "../pkg", "../bench", "../examples"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := internalID.FindString(line); m != "" {
					bad = append(bad, path[3:]+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d lines cite internal ids (state the rule in words instead):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// docsPending lists documents that may still cite internal ids while they
// are rewritten as a whole (none now). Every other document must stay free
// of ids; a pending document that no longer has any must leave the set.
var docsPending = map[string]bool{}

// TestNoInternalIDsInDocs keeps internal ids and issue numbers out of
// README.md and every Markdown file under docs/: a rule is stated in words, or linked by the
// title of the section that states it. It also checks the links between the
// documents: a relative link names an existing file, and a link to a heading
// of a Markdown file ("decisions.md#the-list-index") names a heading whose
// GitHub anchor is that fragment.
func TestNoInternalIDsInDocs(t *testing.T) {
	files := []string{"README.md"}
	err := filepath.WalkDir("../docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.ToSlash(path[3:]))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var bad, links []string
	anchors := map[string]map[string]bool{}
	for _, name := range files {
		data, err := os.ReadFile("../" + name)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for i, line := range strings.Split(string(data), "\n") {
			if internalID.MatchString(line) || docDecision.MatchString(line) || issueNumber.MatchString(line) {
				found = true
				if !docsPending[name] {
					bad = append(bad, name+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				}
			}
		}
		if docsPending[name] && !found {
			t.Errorf("%s cites no internal id any more: remove it from docsPending", name)
		}
		for _, l := range markdownLinks(string(data)) {
			if msg := checkDocLink(name, l, anchors); msg != "" {
				links = append(links, name+": ("+l+"): "+msg)
			}
		}
	}
	for name := range docsPending {
		if _, err := os.Stat("../" + name); err != nil {
			t.Errorf("docsPending names %s, which does not exist: %v", name, err)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d lines of the docs cite internal ids (state the rule in words, or link its section by title):\n%s", len(bad), strings.Join(bad, "\n"))
	}
	if len(links) > 0 {
		t.Errorf("%d broken links in the docs:\n%s", len(links), strings.Join(links, "\n"))
	}
}

var (
	// issueNumber is a tracker number ("issue 16", "issues 9 and 11"): the
	// tracker is not part of the repository either.
	issueNumber = regexp.MustCompile(`(?i)\bissues? #?[0-9]+`)
	// docDecision is a number the docs once gave their own decisions
	// besides those internalID knows: the guard's ("G26") and the
	// compatibility notes' ("C2").
	docDecision = regexp.MustCompile(`\b[CG][0-9]{1,3}\b`)
	// markdownLink is an inline link's target: "[text](target)".
	markdownLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	// codeSpan is inline code, whose text is not a link.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// headingLine is an ATX heading: its level and text.
	headingLine = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)
	// linkInHeading keeps a link's text and drops its target.
	linkInHeading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// proseLines returns a Markdown text's lines outside fenced code blocks.
func proseLines(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		case strings.HasPrefix(trimmed, "```"):
			fence = "```"
			continue
		case strings.HasPrefix(trimmed, "~~~"):
			fence = "~~~"
			continue
		}
		out = append(out, line)
	}
	return out
}

// markdownLinks returns the targets of a Markdown text's inline links, code
// left out.
func markdownLinks(text string) []string {
	var out []string
	for _, line := range proseLines(text) {
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a Markdown text's headings:
// the text lowercased, punctuation but '-' and '_' dropped, spaces turned to
// '-'; a repeated anchor gets "-1", "-2", ….
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range proseLines(text) {
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(linkInHeading.ReplaceAllString(m[1], "$1")) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		for n := 1; out[slug]; n++ {
			if !out[b.String()+"-"+strconv.Itoa(n)] {
				slug = b.String() + "-" + strconv.Itoa(n)
			}
		}
		out[slug] = true
	}
	return out
}

// checkDocLink checks one link of the document name (a path below the
// repository's root): "" when it resolves, else what is wrong. Links with a
// scheme (https:, mailto:) are not followed.
func checkDocLink(name, target string, anchors map[string]map[string]bool) string {
	if strings.Contains(target, ":") {
		return ""
	}
	file, fragment, _ := strings.Cut(target, "#")
	path := name
	if file != "" {
		path = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
	}
	if _, err := os.Stat("../" + path); err != nil {
		return "no such file " + path
	}
	if fragment == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	set, ok := anchors[path]
	if !ok {
		data, err := os.ReadFile("../" + path)
		if err != nil {
			return err.Error()
		}
		set = headingAnchors(string(data))
		anchors[path] = set
	}
	if !set[fragment] {
		return "no heading of " + path + " has the anchor #" + fragment
	}
	return ""
}
