package store

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestIndexCodec: the hand-written encoder writes exactly what
// json.Marshal writes, the decoder reads it (and json.Marshal's output)
// back, and what does not parse as an index is an error (a rebuild).
func TestIndexCodec(t *testing.T) {
	idx := &recentIndex{Version: indexVer, DirMtimeNs: 1796172385465000000, Entries: []recentEntry{
		{ID: "T-1", Subject: `quote " backslash \ tab 	 <html> & ünï 😀`, Plan: "plan\x00item", MtimeNs: 1},
		{ID: "T-2", Subject: "no plan", MtimeNs: -5},
	}}
	got, err := encodeIndex(idx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encodeIndex:\n%s\njson.Marshal:\n%s", got, want)
	}
	back, err := decodeIndex(want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, idx) {
		t.Errorf("decodeIndex = %+v, want %+v", back, idx)
	}
	empty, err := encodeIndex(&recentIndex{Version: indexVer, Entries: []recentEntry{}})
	if err != nil || string(empty) != `{"v":2,"dirMtimeNs":0,"entries":[]}` {
		t.Errorf("empty index: %s %v", empty, err)
	}
	if x, err := decodeIndex([]byte(`{"v":2,"extra":{"a":[1,2]},"entries":[{"id":"T-3","more":null,"mtimeNs":7}]}`)); err != nil || x.Version != 2 || len(x.Entries) != 1 || x.Entries[0].ID != "T-3" || x.Entries[0].MtimeNs != 7 {
		t.Errorf("unknown members: %+v %v", x, err)
	}
	for _, bad := range []string{
		``, `[]`, `{"v":2}{}`, `{"v":2} x`, `{"v":"2"}`, `{"v":2.5}`, `{"entries":{}}`, `{"entries":[{"id":3}]}`,
		`{"v":2,"dirMtimeNs":1,"entries":[{"id":"T-1"}]`, string(want[:len(want)-1]), string(want) + `"tail"`,
		`{"v":2,"v":2}`,
	} {
		if _, err := decodeIndex([]byte(bad)); err == nil {
			t.Errorf("decodeIndex(%q): no error", bad)
		}
	}
}

// TestIndexNoWriteThroughLinks: the index is rewritten in place only when
// it is a plain file of ours; a hard link or a symbolic link in its place
// (recent.json, or .index itself) never carries the write to another file
// (docs/design.md S10, S44), and the dedup still works.
func TestIndexNoWriteThroughLinks(t *testing.T) {
	for _, kind := range []string{"hardlink", "symlink", "dirlink"} {
		t.Run(kind, func(t *testing.T) {
			s := newStore(t)
			create(t, s, `{"subject":"first"}`)
			idx := filepath.Join(s.Dir, indexDir, indexFile)
			if _, err := os.Stat(idx); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "precious")
			if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "hardlink":
				os.Remove(idx)
				if err := os.Link(outside, idx); err != nil {
					t.Skip("no hard links here:", err)
				}
			case "symlink":
				os.Remove(idx)
				if err := os.Symlink(outside, idx); err != nil {
					t.Fatal(err)
				}
			case "dirlink":
				os.RemoveAll(filepath.Join(s.Dir, indexDir))
				other := t.TempDir()
				outside = filepath.Join(other, indexFile)
				if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, filepath.Join(s.Dir, indexDir)); err != nil {
					t.Fatal(err)
				}
			}
			res := create(t, s, `{"subject":"second"}`)
			if len(res.Tasks) != 1 || res.Tasks[0].Deduplicated {
				t.Fatalf("create: %+v", res)
			}
			if data, err := os.ReadFile(outside); err != nil || string(data) != "precious\n" {
				t.Errorf("the file behind the %s was written: %q %v", kind, data, err)
			}
			again := create(t, s, `{"subject":"second"}`)
			if len(again.Tasks) != 1 || !again.Tasks[0].Deduplicated {
				t.Errorf("dedup after the %s: %+v", kind, again)
			}
		})
	}
}

// TestIndexRewrittenInPlace: a steady-state write keeps the index's inode
// (no temp file, no rename) and leaves a document that parses.
func TestIndexRewrittenInPlace(t *testing.T) {
	s := newStore(t)
	create(t, s, `{"subject":"first with a long subject that makes the index longer"}`)
	idx := filepath.Join(s.Dir, indexDir, indexFile)
	before, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	create(t, s, `{"subject":"second"}`)
	after, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Errorf("the index was replaced, not rewritten in place")
	}
	data, _ := os.ReadFile(idx)
	x, err := decodeIndex(data)
	if err != nil || len(x.Entries) != 2 {
		t.Errorf("index after two creates: %+v %v\n%s", x, err, data)
	}
}
