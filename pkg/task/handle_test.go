package task

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

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

// Every handle ShortHandles shows names exactly its id and is as short as
// it can be, also among ids built to share long tails.
func TestShortHandlesUniqueAndMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var ids []string
	for i := 0; i < 1200; i++ {
		tail := make([]byte, 12)
		for k := range tail {
			tail[k] = "0123456789abcdef"[r.IntN(16)]
		}
		for k := 0; k < 8; k++ { // a shared tail of 8 digits for many
			if r.IntN(4) == 0 {
				tail[11-k] = 'a'
			}
		}
		ids = append(ids, fmt.Sprintf("T-0199a000-0000-7000-8000-%s", tail))
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	hs := ShortHandles(ids)
	for i, id := range ids {
		h := hs[i]
		n := 0
		for _, other := range ids {
			if MatchesHandle(other, h) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("handle %q of %s names %d ids", h, id, n)
		}
		if len(h) > MinHandle {
			shorter := h[1:]
			n := 0
			for _, other := range ids {
				if MatchesHandle(other, shorter) {
					n++
				}
			}
			if n == 1 {
				t.Fatalf("handle %q of %s is not minimal: %q names it alone", h, id, shorter)
			}
		}
	}
}
