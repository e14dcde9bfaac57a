package hashline

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Ref
	}{
		{"12#VRRM", Ref{12, "VRRM"}},
		{"1#RM", Ref{1, "RM"}},
		{"  12#VRRM  ", Ref{12, "VRRM"}},
		{">>> 12#VRRM|function hello() {", Ref{12, "VRRM"}},
		{">>>12#VRRM", Ref{12, "VRRM"}},
		{"> 12#VRRM", Ref{12, "VRRM"}},
		{"+12#VRRM", Ref{12, "VRRM"}},
		{"- 12#VRRM", Ref{12, "VRRM"}},
		{"12 # VRRM", Ref{12, "VRRM"}},
		{"12#VRRM|", Ref{12, "VRRM"}},
		{"12#VRRM |  a | b", Ref{12, "VRRM"}},
		{"12#vrrm", Ref{12, "VRRM"}},
		{"`12#VRRM`", Ref{12, "VRRM"}},
		{`"12#VRRM"`, Ref{12, "VRRM"}},
		{"007#VRRM", Ref{7, "VRRM"}},
		{"\t12\t#\tVRRM\r\n", Ref{12, "VRRM"}},
	} {
		got, err := ParseRef(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRef(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseRefErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		reason string
		id     string
	}{
		{"", "empty", ""},
		{">>> ", "empty", ""},
		{"|content", "empty", ""},
		{"VRRM", "no line number", "VRRM"},
		{"#VRRM", "no line number", "VRRM"},
		{"vrrm", "no line number", "VRRM"},
		{"12", "no ID", ""},
		{"12#", "is not 4 symbols", ""},
		{"12#VRR", "is not 4 symbols", ""},
		{"12#VRRMM", "is not 4 symbols", ""},
		{"12#ABCD", "is not 4 symbols", ""},
		{"12#VR RM", "is not 4 symbols", ""},
		{"0#VRRM", "numbered from 1", "VRRM"},
		{"99999999999999999999#VRRM", "too large", "VRRM"},
		{"1073741825#VRRM", "too large", "VRRM"},
		{"x#VRRM", "not a number", ""},
		{"1.5#VRRM", "not a number", ""},
		{"12:VRRM", "look like", ""},
		{"hello", "look like", ""},
		{"12#VRRM#VRRM", "is not 4 symbols", ""},
	} {
		_, err := ParseRef(tc.in)
		var re *RefError
		if !errors.As(err, &re) {
			t.Errorf("ParseRef(%q) error = %v, want a RefError", tc.in, err)
			continue
		}
		if !strings.Contains(re.Reason, tc.reason) || re.ID != tc.id {
			t.Errorf("ParseRef(%q) = reason %q id %q; want reason containing %q, id %q", tc.in, re.Reason, re.ID, tc.reason, tc.id)
		}
	}
}

// Everything plan read prints parses back to its own anchor.
func TestParseRefRoundTrip(t *testing.T) {
	text := Split("# Plan\n\n1. [ ] a | b\n  |x\n}\n")
	for _, l := range text.Range(1, 0) {
		for _, s := range []string{l.Anchor(), l.String(), ">>> " + l.String()} {
			got, err := ParseRef(s)
			if err != nil || got != (Ref{l.Number, l.ID}) {
				t.Errorf("ParseRef(%q) = %v, %v; want %v", s, got, err, l.Anchor())
			}
		}
	}
}
