package enforce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "continuation")
	s := States{Dir: dir}
	st, err := s.Load("abc123-session")
	if err != nil || st != (State{}) {
		t.Fatalf("missing: %+v %v", st, err)
	}
	want := State{Fingerprint: "f", Blocks: 2, Updated: "2026-09-27T16:00:00Z"}
	for _, key := range []string{"abc123-session", Key("abc123-session", "agent_7f"), "../../etc/passwd", "", "a b/c", ".hidden"} {
		if err := s.Save(key, want); err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		got, err := s.Load(key)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", key, got, err)
		}
		if rel, _ := filepath.Rel(dir, s.file(key)); strings.Contains(rel, "..") || strings.ContainsRune(rel, os.PathSeparator) || strings.HasPrefix(rel, ".") {
			t.Errorf("%q maps to %s", key, rel)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "abc123-session.agent_7f.json")); err != nil {
		t.Error(err)
	}
	// a corrupt file is a fresh start
	_ = os.WriteFile(s.file("bad"), []byte("{"), 0o644)
	if st, err := s.Load("bad"); err != nil || st != (State{}) {
		t.Errorf("corrupt: %+v %v", st, err)
	}
	// old files are swept on save
	old := s.file("old")
	_ = os.WriteFile(old, []byte("{}"), 0o644)
	past := time.Now().Add(-KeepStates - time.Hour)
	_ = os.Chtimes(old, past, past)
	if err := s.Save("abc123-session", want); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("old state kept: %v", err)
	}
}
