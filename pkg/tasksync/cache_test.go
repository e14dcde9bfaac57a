package tasksync

import (
	"maps"
	"testing"
)

// TestCacheRoundTrip: the cache's text reads back as written, with F lines
// for listed files whose stat data agree, and L and S lines for the rest,
// sorted by path.
func TestCacheRoundTrip(t *testing.T) {
	c := &statCache{
		Tip: "aa", Tree: "bb",
		List: files{"tasks/T-b.json": "1", "tasks/T-a.json": "2", "plans/p.md": "3", "tasks/T-c.json": "4"},
		Stats: map[string]statEntry{
			"tasks/T-b.json": {OID: "1", Size: 10, Mtime: 11, Ctime: 12, Ino: 13},
			"plans/p.md":     {OID: "3", Size: 20, Mtime: 21, Ctime: 22, Ino: 23},
			"tasks/T-c.json": {OID: "9", Size: 30, Mtime: 31, Ctime: 32, Ino: 33}, // another blob
			"tasks/T-d.json": {OID: "5", Size: 40, Mtime: 41, Ctime: 42, Ino: 43}, // not listed
		},
	}
	text := string(encodeCache(c))
	want := cacheMagic + ` aa bb
F plans/p.md 3 20 21 22 23
L tasks/T-a.json 2
F tasks/T-b.json 1 10 11 12 13
L tasks/T-c.json 4
S tasks/T-c.json 9 30 31 32 33
S tasks/T-d.json 5 40 41 42 43
`
	if text != want {
		t.Fatalf("encoded:\n%s\nwant:\n%s", text, want)
	}
	got, ok := parseCache(text)
	if !ok || got.Tip != c.Tip || got.Tree != c.Tree || !maps.Equal(got.List, c.List) || !maps.Equal(got.Stats, c.Stats) {
		t.Fatalf("read back %+v, ok %v; want %+v", got, ok, c)
	}
	for _, bad := range []string{"", "matrixx-sync-cache 1 aa bb\n", cacheMagic + " aa bb\nX what\n", cacheMagic + " aa bb\nL tasks/T-a.json\n"} {
		if _, ok := parseCache(bad); ok {
			t.Errorf("%q read as a cache", bad)
		}
	}
	if e := decodeCache(cacheMagic + " aa bb\nL tasks/T-a.json\n"); e.Tip != "" || e.List != nil {
		t.Errorf("an unreadable cache decoded as %+v, want an empty one", e)
	}
}
