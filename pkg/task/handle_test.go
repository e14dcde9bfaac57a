package task

import "testing"

func TestIsHandle(t *testing.T) {
	for s, want := range map[string]bool{
		"7f3a": true, "7F3A": true, "a1b2-c3d4": true, "7f3": false, "T-7f3a": false,
		"": false, "7f3a/..": false, "----": false, "zzzz": true,
	} {
		if got := IsHandle(s); got != want {
			t.Errorf("IsHandle(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestShortHandles(t *testing.T) {
	ids := []string{
		"T-0199a000-0000-7000-8000-00000000a7f3",
		"T-0199a000-0000-7000-8000-00000001a7f3",
		"T-0199a000-0000-7000-8000-000000009c2e",
		"T-1",
	}
	hs := ShortHandles(ids)
	got := map[string]string{}
	for i, id := range ids {
		got[id] = hs[i]
	}
	want := map[string]string{
		ids[0]: "0a7f3", ids[1]: "1a7f3", ids[2]: "9c2e", ids[3]: "T-1",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("handle of %s = %q, want %q", id, got[id], w)
		}
		if w != id && !MatchesHandle(id, w) {
			t.Errorf("%q does not match %s", w, id)
		}
	}
	// Every shown handle names exactly one id.
	for id, h := range got {
		n := 0
		for _, other := range ids {
			if MatchesHandle(other, h) || other == h {
				n++
			}
		}
		if n != 1 {
			t.Errorf("handle %q of %s matches %d ids", h, id, n)
		}
	}
}
