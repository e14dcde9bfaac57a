package hashline

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// doc is the text most table tests edit.
const doc = "# Plan\n\n1. [ ] one\n2. [ ] two\n3. [ ] three\n}\n"

// anchor returns the fresh anchor of line n of text.
func anchor(text string, n int) string { return Split(text).At(n).Anchor() }

func applyJSON(t *testing.T, text, editsJSON string) (*Result, error) {
	t.Helper()
	edits, err := ParseEdits([]byte(editsJSON))
	if err != nil {
		return nil, err
	}
	return Apply(Split(text), edits)
}

func TestApply(t *testing.T) {
	a := func(n int) string { return anchor(doc, n) }
	for _, tc := range []struct {
		name, edits string
		want        string
		changed     []int
	}{
		{"replace one line", `{"edits":[{"op":"replace","pos":"` + a(3) + `","lines":["1. [x] one"]}]}`,
			"# Plan\n\n1. [x] one\n2. [ ] two\n3. [ ] three\n}\n", []int{3}},
		{"replace a range with more lines", `{"edits":[{"op":"replace","pos":"` + a(3) + `","end":"` + a(4) + `","lines":"a\nb\nc\n"}]}`,
			"# Plan\n\na\nb\nc\n3. [ ] three\n}\n", []int{3, 4, 5}},
		{"delete with []", `{"edits":[{"op":"replace","pos":"` + a(2) + `","end":"` + a(3) + `","lines":[]}]}`,
			"# Plan\n2. [ ] two\n3. [ ] three\n}\n", []int{}},
		{"delete with null", `{"edits":[{"op":"replace","pos":"` + a(6) + `","lines":null}]}`,
			"# Plan\n\n1. [ ] one\n2. [ ] two\n3. [ ] three\n", []int{}},
		{"delete with empty string", `{"edits":[{"op":"replace","pos":"` + a(6) + `","lines":""}]}`,
			"# Plan\n\n1. [ ] one\n2. [ ] two\n3. [ ] three\n", []int{}},
		{"replace with one empty line", `{"edits":[{"op":"replace","pos":"` + a(1) + `","lines":[""]}]}`,
			"\n\n1. [ ] one\n2. [ ] two\n3. [ ] three\n}\n", []int{1}},
		{"append after", `{"edits":[{"op":"append","pos":"` + a(5) + `","lines":["4. [ ] four"]}]}`,
			"# Plan\n\n1. [ ] one\n2. [ ] two\n3. [ ] three\n4. [ ] four\n}\n", []int{6}},
		{"append at end", `{"edits":[{"op":"append","lines":"tail"}]}`,
			doc + "tail\n", []int{7}},
		{"prepend before", `{"edits":[{"op":"prepend","pos":"` + a(3) + `","lines":["## Tasks"]}]}`,
			"# Plan\n\n## Tasks\n1. [ ] one\n2. [ ] two\n3. [ ] three\n}\n", []int{3}},
		{"prepend at start", `{"edits":[{"op":"prepend","lines":["---","---"]}]}`,
			"---\n---\n" + doc, []int{1, 2}},
		{"several edits use original numbers", `{"edits":[
			{"op":"replace","pos":"` + a(5) + `","lines":["3. [x] three"]},
			{"op":"prepend","pos":"` + a(3) + `","lines":["intro"]},
			{"op":"replace","pos":"` + a(1) + `","lines":["# Plan v2"]}]}`,
			"# Plan v2\n\nintro\n1. [ ] one\n2. [ ] two\n3. [x] three\n}\n", []int{1, 3, 6}},
		{"insertions at one place keep input order", `{"edits":[
			{"op":"append","pos":"` + a(3) + `","lines":["x"]},
			{"op":"prepend","pos":"` + a(4) + `","lines":["y"]},
			{"op":"append","pos":"` + a(3) + `","lines":["z"]}]}`,
			"# Plan\n\n1. [ ] one\nx\ny\nz\n2. [ ] two\n3. [ ] three\n}\n", []int{4, 5, 6}},
		{"insert next to a replaced range", `{"edits":[
			{"op":"replace","pos":"` + a(3) + `","end":"` + a(4) + `","lines":["R"]},
			{"op":"append","pos":"` + a(2) + `","lines":["before"]},
			{"op":"prepend","pos":"` + a(5) + `","lines":["after"]}]}`,
			"# Plan\n\nbefore\nR\nafter\n3. [ ] three\n}\n", []int{3, 4, 5}},
		{"legacy two-symbol anchors and decorations", `{"edits":[{"op":"replace","pos":">>> 3 # ` + a(3)[4:] + ` |1. [ ] one","lines":["one"]}]}`,
			"# Plan\n\none\n2. [ ] two\n3. [ ] three\n}\n", []int{3}},
		{"null pos and end mean absent", `{"edits":[{"op":"append","pos":null,"end":null,"lines":["t"]}]}`,
			doc + "t\n", []int{7}},
		{"array elements with newlines", `{"edits":[{"op":"append","lines":["a\nb","c\r"]}]}`,
			doc + "a\nb\nc\n", []int{7, 8, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := applyJSON(t, doc, tc.edits)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got := string(res.Text.Bytes()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if !slices.Equal(res.Changed, tc.changed) {
				t.Errorf("changed = %v, want %v", res.Changed, tc.changed)
			}
		})
	}
}

func TestApplyLegacyID(t *testing.T) {
	full := anchor(doc, 4)
	legacy := full[:len(full)-4] + full[len(full)-2:]
	res, err := applyJSON(t, doc, `{"edits":[{"op":"replace","pos":"`+legacy+`","lines":["2. [x] two"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Text.Bytes()), "2. [x] two") {
		t.Errorf("legacy anchor %s did not edit line 4", legacy)
	}
}

func TestApplyKeepsLineEndings(t *testing.T) {
	crlf := "a\r\nb\r\nc"
	text := Split(crlf)
	res, err := Apply(text, []Edit{{Op: Replace, Pos: text.At(2).Anchor(), Lines: []string{"B"}, HasLines: true}, {Op: Append, Lines: []string{"d"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Text.Bytes()); got != "a\r\nB\r\nc\r\nd" {
		t.Errorf("got %q", got)
	}
	res, err = Apply(Split(""), []Edit{{Op: Prepend, Lines: []string{"x"}}})
	if err != nil || string(res.Text.Bytes()) != "x\n" {
		t.Errorf("insert into empty text = %q, %v", res.Text.Bytes(), err)
	}
	res, err = Apply(Split("x"), []Edit{{Op: Replace, Pos: Split("x").At(1).Anchor(), HasLines: true}})
	if err != nil || len(res.Text.Bytes()) != 0 {
		t.Errorf("delete everything = %q, %v", res.Text.Bytes(), err)
	}
}

func TestApplyInvalid(t *testing.T) {
	a := func(n int) string { return anchor(doc, n) }
	for _, tc := range []struct {
		name, edits string
		code        errcode.Code
		msg         string
	}{
		{"not an object", `[]`, errcode.ValidationError, "expected an object"},
		{"no edits", `{}`, errcode.ValidationError, "edits: required"},
		{"null edits", `{"edits":null}`, errcode.ValidationError, "got null"},
		{"empty edits", `{"edits":[]}`, errcode.ValidationError, "at least one edit"},
		{"unknown top key", `{"edits":[{"op":"append","lines":["x"]}],"dryRun":true}`, errcode.ValidationError, "dryRun"},
		{"unknown edit key", `{"edits":[{"op":"append","text":["x"]}]}`, errcode.ValidationError, "edits[0].text"},
		{"wrong case", `{"Edits":[]}`, errcode.ValidationError, "Edits"},
		{"duplicate key", `{"edits":[{"op":"append","op":"prepend","lines":["x"]}]}`, errcode.ValidationError, "duplicate"},
		{"pos not a string", `{"edits":[{"op":"replace","pos":3,"lines":[]}]}`, errcode.ValidationError, "edits[0].pos: expected string, got number"},
		{"lines of numbers", `{"edits":[{"op":"append","lines":[1]}]}`, errcode.ValidationError, "edits[0].lines[0]"},
		{"lines with null", `{"edits":[{"op":"append","lines":["a",null]}]}`, errcode.ValidationError, "edits[0].lines[1]"},
		{"lines an object", `{"edits":[{"op":"append","lines":{}}]}`, errcode.ValidationError, "got object"},
		{"truncated", `{"edits":[`, errcode.ValidationError, "ends early"},
		{"no op", `{"edits":[{"lines":["x"]}]}`, errcode.InvalidEdit, "edits[0].op: required"},
		{"bad op", `{"edits":[{"op":"insert","lines":["x"]}]}`, errcode.InvalidEdit, `"insert" is not`},
		{"replace without pos", `{"edits":[{"op":"replace","lines":["x"]}]}`, errcode.InvalidEdit, "replace needs pos"},
		{"replace without lines", `{"edits":[{"op":"replace","pos":"` + a(1) + `"}]}`, errcode.InvalidEdit, "replace needs lines"},
		{"append with end", `{"edits":[{"op":"append","pos":"` + a(1) + `","end":"` + a(2) + `","lines":["x"]}]}`, errcode.InvalidEdit, "takes no end"},
		{"append nothing", `{"edits":[{"op":"append","lines":[]}]}`, errcode.InvalidEdit, "at least one line"},
		{"prepend null", `{"edits":[{"op":"prepend","lines":null}]}`, errcode.InvalidEdit, "at least one line"},
		{"bad anchor", `{"edits":[{"op":"replace","pos":"3:ABCD","lines":[]}]}`, errcode.InvalidEdit, "edits[0].pos"},
		{"anchor without number", `{"edits":[{"op":"replace","pos":"` + a(3)[2:] + `","lines":[]}]}`, errcode.InvalidEdit, "did you mean " + a(3) + "?"},
		{"end before pos", `{"edits":[{"op":"replace","pos":"` + a(4) + `","end":"` + a(3) + `","lines":[]}]}`, errcode.InvalidEdit, "comes before pos"},
		{"overlapping ranges", `{"edits":[{"op":"replace","pos":"` + a(2) + `","end":"` + a(4) + `","lines":[]},{"op":"replace","pos":"` + a(4) + `","lines":["x"]}]}`, errcode.InvalidEdit, "edits[0] and edits[1] overlap"},
		{"same line twice", `{"edits":[{"op":"replace","pos":"` + a(4) + `","lines":["y"]},{"op":"replace","pos":"` + a(4) + `","lines":["x"]}]}`, errcode.InvalidEdit, "overlap"},
		{"insert anchored in a range", `{"edits":[{"op":"replace","pos":"` + a(2) + `","end":"` + a(4) + `","lines":[]},{"op":"append","pos":"` + a(4) + `","lines":["x"]}]}`, errcode.InvalidEdit, "edits[1] is anchored to line 4, which edits[0] replaces"},
		{"prepend anchored on a replaced line", `{"edits":[{"op":"prepend","pos":"` + a(3) + `","lines":["x"]},{"op":"replace","pos":"` + a(3) + `","lines":["y"]}]}`, errcode.InvalidEdit, "edits[0] is anchored to line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := applyJSON(t, doc, tc.edits)
			e := errcode.As(err)
			if err == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
				t.Errorf("error = %v; want %s containing %q", err, tc.code, tc.msg)
			}
		})
	}
}

func TestApplyMismatch(t *testing.T) {
	old := doc
	now := "# Plan\n\nintro\n1. [ ] one\n2. [x] two\n3. [ ] three\n}\n"
	a := func(n int) string { return anchor(old, n) }
	edits := `{"edits":[
		{"op":"replace","pos":"` + a(3) + `","lines":["1. [x] one"]},
		{"op":"append","pos":"` + a(4) + `","lines":["x"]},
		{"op":"replace","pos":"` + a(3) + `","end":"` + a(3) + `","lines":["dup"]},
		{"op":"append","pos":"40#ZZZZ","lines":["x"]}]}`
	_, err := applyJSON(t, now, edits)
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("error = %v, want a MismatchError", err)
	}
	if errcode.Of(err) != errcode.AnchorMismatch || errcode.ExitStatus(err) != errcode.ExitTool {
		t.Errorf("code %s exit %d", errcode.Of(err), errcode.ExitStatus(err))
	}
	if me.TotalLines != 7 || len(me.Mismatches) != 3 {
		t.Fatalf("got %d lines, mismatches %+v", me.TotalLines, me.Mismatches)
	}
	cur := Split(now)
	m := me.Mismatches[0]
	if m.Ref != a(3) || m.Field != "edits[0].pos" || m.Line != 3 || m.Current != cur.At(3).String() {
		t.Errorf("mismatch 0 = %+v", m)
	}
	// "1. [ ] one" moved from line 3 to line 4
	if m.DidYouMean != cur.At(4).Anchor() {
		t.Errorf("didYouMean = %q, want %q", m.DidYouMean, cur.At(4).Anchor())
	}
	want := []string{cur.At(1).String(), cur.At(2).String(), cur.At(3).String(), cur.At(4).String(), cur.At(5).String()}
	if !slices.Equal(m.Context, want) {
		t.Errorf("context = %q, want %q", m.Context, want)
	}
	if m := me.Mismatches[1]; m.Line != 4 || m.DidYouMean != "" {
		t.Errorf("mismatch 1 = %+v (two changed to [x]: no line has its ID)", m)
	}
	if m := me.Mismatches[2]; m.Line != 40 || m.Current != "" || len(m.Context) != 2 || m.Context[1] != cur.At(7).String() {
		t.Errorf("past-the-end mismatch = %+v", m)
	}
	msg := errcode.As(err).Message
	for _, s := range []string{
		"3 anchors do not match",
		"edits[0].pos " + a(3) + ": line 3 is now " + cur.At(3).Anchor() + "; did you mean " + cur.At(4).Anchor() + "?",
		"line 40 is past the end (7 lines)",
		">>> " + cur.At(3).String(),
		"    " + cur.At(2).String(),
		"Retry with the fresh anchors.",
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	// The structured answer encodes as documented.
	b, err := json.Marshal(me.Mismatches[2], json.Deterministic(true))
	if err != nil || !strings.HasPrefix(string(b), `{"ref":"40#ZZZZ","field":"edits[3].pos","line":40,"context":[`) {
		t.Errorf("encoded %s, %v", b, err)
	}
}

// Property: read anchors, build random non-overlapping edits with them,
// apply, and the result equals a naive model that applies the edits one by
// one from the bottom up.
func TestApplyProperty(t *testing.T) {
	vocab := []string{"", "", "}", "# Title", "1. [ ] item", "2. [x] done", "- [ ] meta", "text", "  indented", "---", "\t"}
	tried, multi := 0, 0
	defer func() {
		if tried < 2500 || multi < 1000 {
			t.Errorf("only %d runs with edits, %d with several: the generator is too timid", tried, multi)
		}
	}()
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 42))
		var b strings.Builder
		n := r.IntN(12)
		for range n {
			b.WriteString(vocab[r.IntN(len(vocab))])
			b.WriteString("\n")
		}
		content := b.String()
		text := Split(content)
		read := text.Range(1, 0) // what plan read shows
		edits, raw := randomEdits(r, read, vocab)
		if len(edits) == 0 {
			continue
		}
		tried++
		if len(edits) > 1 {
			multi++
		}
		doc, _ := json.Marshal(map[string]any{"edits": raw})
		parsed, err := ParseEdits(doc)
		if err != nil {
			t.Fatalf("seed %d: ParseEdits(%s): %v", seed, doc, err)
		}
		res, err := Apply(Split(content), parsed)
		if err != nil {
			t.Fatalf("seed %d: text %q edits %s: %v", seed, content, doc, err)
		}
		want := model(text.Lines, edits)
		if !slices.Equal(res.Text.Lines, want) {
			t.Fatalf("seed %d: text %q edits %s:\n got %q\nwant %q", seed, content, doc, res.Text.Lines, want)
		}
		// read again: the new text round-trips and fresh anchors name the changed lines
		again := Split(string(res.Text.Bytes()))
		if !slices.Equal(again.Lines, want) {
			t.Fatalf("seed %d: reread %q, want %q", seed, again.Lines, want)
		}
		inserted := 0
		for _, e := range edits {
			inserted += len(e.lines)
		}
		if len(res.Changed) != inserted {
			t.Fatalf("seed %d: changed %v, %d lines inserted", seed, res.Changed, inserted)
		}
	}
}

// modelEdit is an edit in original coordinates for the naive model.
type modelEdit struct {
	start, stop int // replaced [start, stop); insert: start == stop
	insert      bool
	lines       []string
	index       int
}

func model(lines []string, edits []modelEdit) []string {
	out := slices.Clone(lines)
	es := slices.Clone(edits)
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.start != b.start {
			return a.start > b.start
		}
		if a.insert != b.insert {
			return !a.insert // at one place: the range first, then inserts before it
		}
		return a.index > b.index
	})
	for _, e := range es {
		out = slices.Replace(out, e.start, e.stop, e.lines...)
	}
	return out
}

// randomEdits picks non-overlapping edits over the lines read, returning
// them for the model and as JSON values.
func randomEdits(r *rand.Rand, read []Line, vocab []string) ([]modelEdit, []map[string]any) {
	n := len(read)
	used := make([]bool, n+1) // lines covered by a replace or used as an insert anchor
	ref := func(l Line) string {
		s := l.Anchor()
		switch r.IntN(4) {
		case 0:
			s = fmt.Sprintf("%d#%s", l.Number, l.ID[2:]) // legacy
		case 1:
			s = ">>> " + l.String()
		case 2:
			s = fmt.Sprintf(" %d # %s ", l.Number, l.ID)
		}
		return s
	}
	newLines := func(min int) []string {
		k := min + r.IntN(3)
		ls := make([]string, k)
		for i := range ls {
			ls[i] = vocab[r.IntN(len(vocab))] + fmt.Sprint(r.IntN(10))
		}
		return ls
	}
	var edits []modelEdit
	var raw []map[string]any
	for range 1 + r.IntN(5) {
		idx := len(edits)
		switch op := r.IntN(5); {
		case op <= 1 && n > 0: // replace
			p := 1 + r.IntN(n)
			q := p + r.IntN(min(3, n-p+1))
			ok := true
			for k := p; k <= q; k++ {
				ok = ok && !used[k]
			}
			// an insert next to the range must not be anchored inside it:
			// used[] already holds insert anchors
			if !ok {
				continue
			}
			for k := p; k <= q; k++ {
				used[k] = true
			}
			ls := newLines(0)
			m := map[string]any{"op": "replace", "pos": ref(read[p-1])}
			if q != p || r.IntN(2) == 0 {
				m["end"] = ref(read[q-1])
			}
			switch {
			case len(ls) == 0 && r.IntN(2) == 0:
				m["lines"] = nil
			case r.IntN(3) == 0:
				m["lines"] = strings.Join(ls, "\n") + "\n"
				if len(ls) == 0 {
					m["lines"] = ""
				}
			default:
				m["lines"] = ls
			}
			edits = append(edits, modelEdit{start: p - 1, stop: q, lines: ls, index: idx})
			raw = append(raw, m)
		default: // append / prepend, anchored or not
			ls := newLines(1)
			opName := "append"
			if r.IntN(2) == 0 {
				opName = "prepend"
			}
			m := map[string]any{"op": opName, "lines": ls}
			e := modelEdit{insert: true, lines: ls, index: idx}
			if n > 0 && r.IntN(3) > 0 {
				p := 1 + r.IntN(n)
				if used[p] && !isInsertAnchor(edits, p) {
					continue
				}
				used[p] = true
				m["pos"] = ref(read[p-1])
				e.start = p
				if opName == "prepend" {
					e.start = p - 1
				}
			} else if opName == "append" {
				e.start = n
			}
			e.stop = e.start
			edits = append(edits, e)
			raw = append(raw, m)
		}
	}
	return edits, raw
}

// isInsertAnchor reports whether line p (1-based) is used only as an
// insert anchor so far (several inserts may share one anchor).
func isInsertAnchor(edits []modelEdit, p int) bool {
	for _, e := range edits {
		if !e.insert && e.start < p && p <= e.stop {
			return false
		}
	}
	return true
}
