package hashline

import (
	"slices"
	"testing"
)

func TestSplitBytes(t *testing.T) {
	for _, tc := range []struct {
		in      string
		lines   []string
		crlf    bool
		noFinal bool
	}{
		{"", nil, false, false},
		{"\n", []string{""}, false, false},
		{"a", []string{"a"}, false, true},
		{"a\n", []string{"a"}, false, false},
		{"a\nb", []string{"a", "b"}, false, true},
		{"a\n\n", []string{"a", ""}, false, false},
		{"a\r\nb\r\n", []string{"a", "b"}, true, false},
		{"a\r\nb", []string{"a", "b"}, true, true},
		{"\r\n", []string{""}, true, false},
		{"a\nb\r\n", []string{"a", "b"}, false, false},
		{"a\r", []string{"a\r"}, false, true},
		{"a\rb\n", []string{"a\rb"}, false, false},
	} {
		got := Split(tc.in)
		if !slices.Equal(got.Lines, tc.lines) || got.CRLF != tc.crlf || got.NoFinalNewline != tc.noFinal {
			t.Errorf("Split(%q) = %q crlf=%v noFinal=%v; want %q %v %v", tc.in, got.Lines, got.CRLF, got.NoFinalNewline, tc.lines, tc.crlf, tc.noFinal)
		}
	}
	// Files with one line-ending style come back byte for byte.
	for _, in := range []string{"", "\n", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\r\nb", "\n\n\n", "x\r\n\r\n"} {
		if got := string(Split(in).Bytes()); got != in {
			t.Errorf("Split(%q).Bytes() = %q", in, got)
		}
	}
}

func TestRange(t *testing.T) {
	text := Split("a\nb\nc\nd\n")
	for _, tc := range []struct {
		first, limit int
		want         []int
	}{
		{1, 0, []int{1, 2, 3, 4}},
		{0, 0, []int{1, 2, 3, 4}},
		{2, 2, []int{2, 3}},
		{3, 10, []int{3, 4}},
		{4, 1, []int{4}},
		{5, 0, []int{}},
		{2, int(^uint(0) >> 1), []int{2, 3, 4}},
	} {
		var got []int
		for _, l := range text.Range(tc.first, tc.limit) {
			got = append(got, l.Number)
			if l.ID != ID(l.Text, l.Number) {
				t.Errorf("line %d has ID %s", l.Number, l.ID)
			}
		}
		if got == nil {
			got = []int{}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Range(%d, %d) = %v, want %v", tc.first, tc.limit, got, tc.want)
		}
	}
	if got := Format(Split("function hello() {\n\n}\n").Range(1, 0)); got != "1#VRRM|function hello() {\n2#KBKM|\n3#NHRZ|}\n" {
		t.Errorf("Format = %q", got)
	}
}
