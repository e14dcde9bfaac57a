package claim

import (
	"path/filepath"
	"testing"
	"time"
)

func TestCleanGlob(t *testing.T) {
	for in, want := range map[string]string{
		"src/api/**": "src/api/**", "./src/x.go": "src/x.go", `src\api\`: "src/api", "a/**/b/*.go": "a/**/b/*.go",
	} {
		if got, err := CleanGlob(in); err != nil || got != want {
			t.Errorf("CleanGlob(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".", "**", "/etc/x", "a//b", "a/../b", "a/./b", "a**/b", "a/[b", "a\x01b"} {
		if got, err := CleanGlob(bad); err == nil {
			t.Errorf("CleanGlob(%q) = %q, want an error", bad, got)
		}
	}
	if g, err := RelGlob("/repo/src/api/**", "/repo"); err != nil || g != "src/api/**" {
		t.Errorf("RelGlob inside: %q %v", g, err)
	}
	if _, err := RelGlob("/other/src", "/repo"); err == nil {
		t.Error("RelGlob outside the checkout: no error")
	}
}

func TestCoversAndOverlap(t *testing.T) {
	covers := []struct {
		glob, rel string
		want      bool
	}{
		{"src/api/**", "src/api/x.go", true},
		{"src/api/**", "src/api", true},
		{"src/api/**", "src/apix/x.go", false},
		{"src/api", "src/api/deep/x.go", true},
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/a.md", false},
		{"src/**/x.go", "src/a/b/x.go", true},
		{"src/**/x.go", "src/x.go", true},
		{"src/**/x.go", "src/a/y.go", false},
		{"src/api/x.go", "src/api", false},
	}
	for _, c := range covers {
		if got := Covers(c.glob, c.rel); got != c.want {
			t.Errorf("Covers(%q, %q) = %v", c.glob, c.rel, got)
		}
	}
	overlaps := []struct {
		a, b string
		want bool
	}{
		{"src/api/**", "src/api/x.go", true},
		{"src/api/**", "src/**", true},
		{"src/api/**", "src/db/**", false},
		{"src", "src/api/x.go", true},
		{"src/*.go", "src/a*", true}, // two patterns: conservative
		{"src/*.go", "src/x.md", false},
		{"docs/**", "src/**", false},
		{"**/x.go", "src/y.go", true}, // src/y.go/x.go: a lease covers what is below it
		{"**/x.go", "src/deep/x.go", true},
	}
	for _, c := range overlaps {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v", c.a, c.b, got)
		}
		if got := Overlap(c.b, c.a); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v (reversed)", c.b, c.a, got)
		}
	}
}

func TestIndexFind(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".index", "path-leases")
	now := time.Now()
	entries := []IndexEntry{
		{Glob: "src/api/**", Task: "T-1", Owner: "a", Session: "s1", ExpiresAt: Stamp(now.Add(time.Hour))},
		{Glob: "docs/*.md", Task: "T-2", Owner: "agent-abcdef12", ExpiresAt: Stamp(now.Add(time.Hour))},
		{Glob: "old/**", Task: "T-3", Owner: "c", ExpiresAt: Stamp(now.Add(-time.Second))},
	}
	if err := WriteIndex(p, entries); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(p)
	if err != nil || len(ix.Entries()) != 3 {
		t.Fatalf("read back: %v %d", err, len(ix.Entries()))
	}
	if e := ix.Find("src/api/x.go", false, now, nil); e == nil || e.Task != "T-1" {
		t.Fatalf("src/api/x.go: %+v", e)
	}
	if e := ix.Find("src/api/x.go", false, now, func(e *IndexEntry) bool { return e.HeldBy("s1", "") }); e != nil {
		t.Fatalf("the holder's own session: %+v", e)
	}
	if e := ix.Find("docs/a.md", false, now, func(e *IndexEntry) bool { return e.HeldBy("abcdef12-9999", "") }); e != nil {
		t.Fatalf("the session's name: %+v", e)
	}
	if e := ix.Find("old/x", false, now, nil); e != nil {
		t.Fatal("an expired lease matched")
	}
	if e := ix.Find("src", false, now, nil); e != nil {
		t.Fatal("a plain write of src matched src/api/**")
	}
	if e := ix.Find("src", true, now, nil); e == nil {
		t.Fatal("a removal of src did not match src/api/**")
	}
	if e := ix.Find("src/*/x.go", false, now, nil); e == nil {
		t.Fatal("a pattern did not match")
	}
	if err := WriteIndex(p, nil); err != nil {
		t.Fatal(err)
	}
	if ix, _ := ReadIndex(p); !ix.Empty() {
		t.Fatal("an empty index was kept")
	}
}

func TestSessionName(t *testing.T) {
	if got := SessionName("ses_9F3a-bc12-dd"); got != "agent-9f3abc12" {
		t.Fatal(got)
	}
	if SessionName("") != "" {
		t.Fatal("no session: a name")
	}
}
