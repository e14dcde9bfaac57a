package claim

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Path leases (docs/leases.md). A claim may lease paths: globs relative to
// the top of the repository's checkout, such as "src/api/**". While the
// claim is live, matrixx-hook refuses a write to a leased path by any
// agent but the holder.
//
// Glob syntax, component by component (components are separated by "/"):
// "*" matches any run of characters but "/", "?" one character, "[…]" a
// class (as path.Match), and a component "**" any number of components,
// none included. A lease covers every path that its glob matches and
// everything below such a path: "src/api" leases the directory and all
// it holds. Matching is case-sensitive.
//
// Two leases overlap when some path could be covered by both. The check
// is conservative: components are compared pairwise ("**" against any
// number of components), two literal components overlap when equal, a
// literal and a pattern when the pattern matches the literal, and two
// patterns always (so "src/*.go" and "src/a*" overlap, although only
// files named a….go lie in both).

const (
	// MaxPaths caps the globs of one claim.
	MaxPaths = 64
	// MaxGlobBytes caps one glob.
	MaxGlobBytes = 1024
	// MaxIndexBytes caps the lease index a reader accepts (a larger file
	// is read as far as this: leases past it are not enforced).
	MaxIndexBytes = 16 << 20
)

// CleanGlob validates and normalises one lease glob: slashes for
// backslashes, no leading "./" or "/", no "." or ".." component, no
// empty component, printable text, at most MaxGlobBytes. "" or "." (the
// whole checkout) is refused: lease the directories the task touches.
// Errors: validation_error on field paths.
func CleanGlob(g string) (string, error) {
	orig := g
	g = strings.ReplaceAll(strings.TrimSpace(g), `\`, "/")
	if len(g) > MaxGlobBytes {
		return "", errcode.Field(errcode.ValidationError, "paths", "a lease glob is at most %d bytes", MaxGlobBytes)
	}
	for _, r := range g {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return "", errcode.Field(errcode.ValidationError, "paths", "%q: a lease glob must be printable text", orig)
		}
	}
	if strings.HasPrefix(g, "/") {
		return "", errcode.Field(errcode.ValidationError, "paths", "%q: a lease glob is relative to the top of the checkout (src/api/**), or an absolute path inside it", orig)
	}
	g = strings.TrimPrefix(g, "./")
	g = strings.TrimSuffix(g, "/")
	if g == "" || g == "." || g == "**" {
		return "", errcode.Field(errcode.ValidationError, "paths", "%q would lease the whole checkout: name the directories or files the task changes (src/api/**)", orig)
	}
	for c := range strings.SplitSeq(g, "/") {
		switch {
		case c == "":
			return "", errcode.Field(errcode.ValidationError, "paths", "%q has an empty component (//)", orig)
		case c == "." || c == "..":
			return "", errcode.Field(errcode.ValidationError, "paths", "%q: no . or .. components in a lease glob", orig)
		case c != "**" && strings.Contains(c, "**"):
			return "", errcode.Field(errcode.ValidationError, "paths", "%q: ** stands alone as a component (src/**/x.go)", orig)
		}
		if _, err := path.Match(c, ""); err != nil {
			return "", errcode.Field(errcode.ValidationError, "paths", "%q: a malformed pattern (an unclosed [ class?)", orig)
		}
	}
	return g, nil
}

// RelGlob makes a lease glob given on the command line relative to the
// top of the checkout: an absolute glob must lie inside top (or inside
// one of also, other checkouts of the repository); a relative one is
// taken as relative to top. The result is cleaned (CleanGlob).
func RelGlob(g, top string, also ...string) (string, error) {
	s := strings.ReplaceAll(strings.TrimSpace(g), `\`, "/")
	if strings.HasPrefix(s, "/") {
		s = path.Clean(s)
		found := false
		for _, d := range append([]string{top}, also...) {
			if d == "" {
				continue
			}
			d = filepath.ToSlash(d)
			if r, ok := strings.CutPrefix(s, strings.TrimSuffix(d, "/")+"/"); ok {
				s, found = r, true
				break
			}
		}
		if !found {
			return "", errcode.Field(errcode.ValidationError, "paths", "%q is not inside the checkout %s: lease globs are relative to its top (src/api/**)", g, top)
		}
	}
	return CleanGlob(s)
}

// CleanGlobs cleans a claim's globs (RelGlob against top), drops
// duplicates and keeps their order. Errors: validation_error on field
// paths (too many, a bad glob).
func CleanGlobs(globs []string, top string, also ...string) ([]string, error) {
	if len(globs) > MaxPaths {
		return nil, errcode.Field(errcode.ValidationError, "paths", "at most %d lease globs per claim, got %d", MaxPaths, len(globs))
	}
	out := make([]string, 0, len(globs))
	for _, g := range globs {
		c, err := RelGlob(g, top, also...)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// Covers reports whether the lease glob covers the relative path rel:
// rel or one of its ancestors matches glob.
func Covers(glob, rel string) bool {
	return match(split(glob), split(rel), false)
}

// Overlap reports whether two lease globs may cover a common path (see
// the package notes for the rule). A path written with wildcards (a
// shell glob the guard could not expand) is compared with Overlap too.
func Overlap(a, b string) bool {
	return match(split(a), split(b), true)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "/")
}

// match walks glob components g against components p. Once g is used up,
// p lies below what g matched: covered. With both set p is a lease too
// (a pattern, covering what lies below it), so a p used up first is
// covered as well and components are compared for overlap; otherwise p
// is a literal path. Memoised: O(len(g)·len(p)).
func match(g, p []string, both bool) bool {
	type key struct{ i, j int }
	memo := map[key]bool{}
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		if i == len(g) {
			return true // the glob covers what is below its match
		}
		if j == len(p) {
			if both {
				return true // p, a lease too, covers what is below it
			}
			for _, c := range g[i:] {
				if c != "**" {
					return false // the glob matches only below the path
				}
			}
			return true
		}
		k := key{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		var v bool
		switch {
		case g[i] == "**":
			v = rec(i+1, j) || rec(i, j+1)
		case both && p[j] == "**":
			v = rec(i, j+1) || rec(i+1, j)
		default:
			v = compOverlap(g[i], p[j], both) && rec(i+1, j+1)
		}
		memo[k] = v
		return v
	}
	return rec(0, 0)
}

func compOverlap(a, b string, both bool) bool {
	am, bm := hasMeta(a), both && hasMeta(b)
	switch {
	case !am && !bm:
		return a == b
	case am && bm:
		return true
	case am:
		ok, _ := path.Match(a, b)
		return ok
	}
	ok, _ := path.Match(b, a)
	return ok
}

// Prefix is the literal part of a glob: its leading components before the
// first one with a wildcard ("src/api" for "src/api/**/*.go").
func Prefix(glob string) string {
	var out []string
	for c := range strings.SplitSeq(glob, "/") {
		if hasMeta(c) {
			break
		}
		out = append(out, c)
	}
	return strings.Join(out, "/")
}

// IndexEntry is one live path lease in the lease index: the glob, the
// task and the claim that holds it.
type IndexEntry struct {
	Glob      string `json:"glob"`
	Task      string `json:"task"`
	Subject   string `json:"subject,omitempty"`
	Owner     string `json:"owner,omitempty"`
	Session   string `json:"session,omitempty"`
	ExpiresAt string `json:"expiresAt,omitempty"`
	Worktree  string `json:"worktree,omitempty"`
	Branch    string `json:"branch,omitempty"`
}

// Live reports whether the entry's lease has not ended at now (a claim
// without a lease never ends).
func (e *IndexEntry) Live(now time.Time) bool {
	if e.ExpiresAt == "" {
		return true
	}
	t, err := time.Parse(time.RFC3339Nano, e.ExpiresAt)
	return err != nil || now.Before(t) // an unreadable time: the safe side
}

// IndexFile is the lease index of a task store: <dir>/.index/path-leases.
// One line per leased glob, "<prefix>\t<JSON IndexEntry>\n", sorted by
// prefix then glob, where prefix is Prefix(glob). It is derived from the
// records (the store rewrites it under its lock with each write that
// adds, renews or ends a claim with paths) and absent when no lease is
// live, so the guard's cost without leases is one failed open.
func IndexFile(storeDir string) string {
	return filepath.Join(storeDir, ".index", "path-leases")
}

// Index is the content of a lease index.
type Index struct {
	data []byte
}

// ReadIndex reads the lease index at p; an absent file is an empty index.
// It never waits on a FIFO and reads at most MaxIndexBytes.
func ReadIndex(p string) (Index, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Index{}, nil
		}
		return Index{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Index{}, err
	}
	if !fi.Mode().IsRegular() {
		return Index{}, errors.New(p + " is not a regular file")
	}
	size := min(fi.Size(), MaxIndexBytes)
	data := make([]byte, size)
	n, err := io.ReadFull(f, data)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil // shrunk meanwhile: what was read
	}
	return Index{data: data[:n]}, err
}

// Empty reports an index with no entry.
func (ix Index) Empty() bool { return len(bytes.TrimSpace(ix.data)) == 0 }

// lines calls fn with each line's prefix and JSON until fn returns false.
func (ix Index) lines(fn func(prefix, doc []byte) bool) {
	data := ix.data
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		tab := bytes.IndexByte(line, '\t')
		if tab < 0 {
			continue
		}
		if !fn(line[:tab], line[tab+1:]) {
			return
		}
	}
}

// Entries decodes every entry (unreadable lines are skipped).
func (ix Index) Entries() []IndexEntry {
	var out []IndexEntry
	ix.lines(func(_, doc []byte) bool {
		var e IndexEntry
		if json.Unmarshal(doc, &e) == nil && e.Glob != "" && e.Task != "" {
			out = append(out, e)
		}
		return true
	})
	return out
}

// Find returns the first live entry (at now) that covers rel, a path
// relative to the checkout's top, and that held does not claim for the
// caller; nil when none does. With tree set rel is also matched against
// what lies below it (a removal or move of a directory takes what it
// holds); a rel holding wildcards is compared with Overlap. Only lines
// whose prefix can concern rel are decoded, so a call costs a byte scan
// of the index plus one decode per candidate.
func (ix Index) Find(rel string, tree bool, now time.Time, held func(*IndexEntry) bool) *IndexEntry {
	pattern := hasMeta(rel)
	relPrefix := rel
	if pattern {
		relPrefix = Prefix(rel)
	}
	var hit *IndexEntry
	relB := []byte(relPrefix)
	ix.lines(func(prefix, doc []byte) bool {
		if !pathRelated(prefix, relB, tree || pattern) {
			return true
		}
		var e IndexEntry
		if json.Unmarshal(doc, &e) != nil || !e.Live(now) {
			return true
		}
		ok := false
		switch {
		case pattern:
			ok = Overlap(e.Glob, rel)
		case tree:
			ok = Overlap(e.Glob, rel) // rel as a lease: rel and all below it
		default:
			ok = Covers(e.Glob, rel)
		}
		if ok && (held == nil || !held(&e)) {
			hit = &e
			return false
		}
		return true
	})
	return hit
}

// pathRelated reports whether a lease whose literal prefix is prefix may
// cover rel (prefix is rel or an ancestor of it), or, with below, lie
// below rel.
func pathRelated(prefix, rel []byte, below bool) bool {
	if len(prefix) == 0 || bytes.Equal(prefix, rel) || bytes.HasPrefix(rel, prefix) && rel[len(prefix)] == '/' {
		return true
	}
	return below && (len(rel) == 0 || bytes.HasPrefix(prefix, rel) && prefix[len(rel)] == '/')
}

// WriteIndex replaces the lease index at p with entries (sorted there);
// with no entry the file is removed. The write is atomic and durable.
func WriteIndex(p string, entries []IndexEntry) error {
	if len(entries) == 0 {
		err := os.Remove(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	slices.SortFunc(entries, func(a, b IndexEntry) int {
		if c := strings.Compare(Prefix(a.Glob), Prefix(b.Glob)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Glob, b.Glob); c != 0 {
			return c
		}
		return strings.Compare(a.Task, b.Task)
	})
	var b bytes.Buffer
	for _, e := range entries {
		doc, err := json.Marshal(e, json.Deterministic(true))
		if err != nil {
			return err
		}
		b.WriteString(Prefix(e.Glob))
		b.WriteByte('\t')
		b.Write(doc)
		b.WriteByte('\n')
	}
	dir := filepath.Dir(p)
	if fi, err := os.Lstat(dir); err == nil && !fi.IsDir() {
		return errors.New(dir + " is not a directory (a link?): the lease index is not written through it")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return durable.WriteFile(p, b.Bytes(), durable.Options{})
}

// SessionName is the owner name an agent of a session claims with: the
// session-start text tells the agent to use it, and any call of the
// session is the holder of a claim whose owner is that name (HeldBy),
// whichever way the claim was made. It is "agent-" and the first eight
// letters and digits of the session id.
func SessionName(session string) string {
	var b strings.Builder
	b.WriteString("agent-")
	n := 0
	for _, r := range strings.TrimPrefix(session, "ses_") {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(unicode.ToLower(r))
			if n++; n == 8 {
				break
			}
		}
	}
	if n == 0 {
		return ""
	}
	return b.String()
}

// HeldBy reports whether a hook call is the holder of the lease
// (docs/leases.md "Who holds a lease"): the claim was made in the call's
// session (its session field), or its owner is the session's name
// (SessionName), or, for a call of a subagent, the subagent's id.
// Every call of the holding session, main agent and subagents alike, is
// the holder.
func (e *IndexEntry) HeldBy(session, agentID string) bool {
	switch {
	case session != "" && e.Session == session:
		return true
	case session != "" && e.Owner != "" && e.Owner == SessionName(session):
		return true
	case e.Owner != "" && e.Owner == agentID:
		return true
	}
	return false
}
