package hashline

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// FuzzParseRef: ParseRef never panics, accepts only well-formed anchors,
// and everything plan read prints parses back to its own anchor.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"12#VRRM", ">>> 3#KZPS|}", "3 # RM", "#VRRM", "VRRM", "0#VRRM", "`1#ZZZZ`", "99999999999#VRRM", "", "|", "1#VRRM#", ">>>-+ 7#kpyh |x|y"} {
		f.Add(s, "function hello() {", uint16(1))
	}
	f.Add("x", "", uint16(2))
	f.Add("x", "a|b#c", uint16(65535))
	f.Fuzz(func(t *testing.T, s, line string, n uint16) {
		r, err := ParseRef(s)
		if err != nil {
			var re *RefError
			if !errors.As(err, &re) {
				t.Fatalf("ParseRef(%q) error %T %v", s, err, err)
			}
			if re.ID != "" && !ValidID(re.ID) {
				t.Fatalf("ParseRef(%q) suggests invalid ID %q", s, re.ID)
			}
		} else {
			if r.Line < 1 || r.Line > MaxLine || !ValidID(r.ID) {
				t.Fatalf("ParseRef(%q) = %+v", s, r)
			}
			if again, err := ParseRef(">>> " + r.String() + "|" + s); err != nil || again != r {
				t.Fatalf("ParseRef(decorated %v) = %v, %v", r, again, err)
			}
		}
		if n == 0 || strings.ContainsAny(line, "\n") {
			return
		}
		l := Line{Number: int(n), ID: ID(line, int(n)), Text: line}
		got, err := ParseRef(l.String())
		if err != nil || got != (Ref{l.Number, l.ID}) {
			t.Fatalf("ParseRef(%q) = %v, %v; want %s", l.String(), got, err, l.Anchor())
		}
	})
}

// anchorMark is "@N" in a fuzzed edit document: it is replaced by the
// fresh anchor of line N, so the fuzzer reaches edits that apply.
var anchorMark = regexp.MustCompile(`@([0-9]{1,3})`)

// FuzzApplyEdits: decoding and applying any document to any text never
// panics, fails only with documented codes, and a success equals the naive
// bottom-up model of the same edits.
func FuzzApplyEdits(f *testing.F) {
	f.Add(doc, `{"edits":[{"op":"replace","pos":"@3","lines":["1. [x] one"]}]}`)
	f.Add(doc, `{"edits":[{"op":"replace","pos":"@2","end":"@4","lines":"a\nb"},{"op":"append","pos":"@1","lines":["x"]},{"op":"prepend","pos":"@5","lines":["y"]}]}`)
	f.Add(doc, `{"edits":[{"op":"append","lines":["x"]},{"op":"prepend","lines":["y"]},{"op":"append","pos":"@6","lines":["z"]}]}`)
	f.Add(doc, `{"edits":[{"op":"replace","pos":"@2","end":"@4","lines":[]},{"op":"append","pos":"@4","lines":["x"]}]}`)
	f.Add(doc, `{"edits":[{"op":"replace","pos":"9#ZZZZ","lines":null}]}`)
	f.Add("a\r\nb\r\n", `{"edits":[{"op":"replace","pos":"@1","lines":["A\r\n"]}]}`)
	f.Add("", `{"edits":[{"op":"append","lines":""}]}`)
	f.Add("x", `{"edits":[{"op":"replace","pos":"@1","end":"@1","lines":null}]}`)
	f.Add("\n\n\n", `{"edits":[{"op":"replace","pos":"KBKM","lines":[]}]}`)
	f.Fuzz(func(t *testing.T, content, doc string) {
		text := Split(content)
		doc = anchorMark.ReplaceAllStringFunc(doc, func(m string) string {
			n, _ := strconv.Atoi(m[1:])
			if n < 1 || n > len(text.Lines) {
				return m
			}
			return text.At(n).Anchor()
		})
		edits, err := ParseEdits([]byte(doc))
		if err != nil {
			if c := errcode.Of(err); c != errcode.ValidationError {
				t.Fatalf("ParseEdits(%q): code %s: %v", doc, c, err)
			}
			return
		}
		before := slices.Clone(text.Lines)
		res, err := Apply(text, edits)
		if !slices.Equal(text.Lines, before) {
			t.Fatalf("Apply modified its input")
		}
		if err != nil {
			switch errcode.Of(err) {
			case errcode.InvalidEdit:
			case errcode.AnchorMismatch:
				var me *MismatchError
				if !errors.As(err, &me) || len(me.Mismatches) == 0 || me.TotalLines != len(text.Lines) {
					t.Fatalf("anchor_mismatch without details: %v", err)
				}
				for _, m := range me.Mismatches {
					if m.Line <= len(text.Lines) && m.Current != text.At(m.Line).String() {
						t.Fatalf("mismatch %+v: current is %q", m, text.At(m.Line).String())
					}
				}
			default:
				t.Fatalf("Apply: code %s: %v", errcode.Of(err), err)
			}
			return
		}
		var want []modelEdit
		inserted := 0
		for i, e := range edits {
			me := modelEdit{lines: e.Lines, index: i, insert: e.Op != Replace}
			var pos, end Ref
			if e.Pos != "" {
				pos, _ = ParseRef(e.Pos)
			}
			if e.End != "" {
				end, _ = ParseRef(e.End)
			}
			switch {
			case e.Op == Replace:
				me.start, me.stop = pos.Line-1, pos.Line
				if e.End != "" {
					me.stop = end.Line
				}
			case e.Op == Append && e.Pos != "":
				me.start = pos.Line
			case e.Op == Append:
				me.start = len(text.Lines)
			case e.Op == Prepend && e.Pos != "":
				me.start = pos.Line - 1
			}
			if me.insert {
				me.stop = me.start
			}
			inserted += len(e.Lines)
			want = append(want, me)
		}
		if got, exp := res.Text.Lines, model(text.Lines, want); !slices.Equal(got, exp) {
			t.Fatalf("text %q doc %s:\n got %q\nwant %q", content, doc, got, exp)
		}
		if len(res.Changed) != inserted || !slices.IsSorted(res.Changed) {
			t.Fatalf("changed %v, %d lines inserted", res.Changed, inserted)
		}
		for _, n := range res.Changed {
			if n < 1 || n > len(res.Text.Lines) {
				t.Fatalf("changed line %d out of range", n)
			}
		}
		for _, l := range res.Text.Lines {
			if strings.Contains(l, "\n") {
				t.Fatalf("line %q holds a newline", l)
			}
		}
		if again := Split(string(res.Text.Bytes())); len(res.Text.Lines) > 0 && !endsInCR(res.Text.Lines) && !slices.Equal(again.Lines, res.Text.Lines) {
			t.Fatalf("round trip: %q became %q", res.Text.Lines, again.Lines)
		}
	})
}

// endsInCR reports whether a line ends in "\r", which a re-read takes as
// part of a CRLF terminator.
func endsInCR(lines []string) bool {
	for _, l := range lines {
		if strings.HasSuffix(l, "\r") {
			return true
		}
	}
	return false
}
