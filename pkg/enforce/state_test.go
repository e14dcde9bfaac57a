package enforce

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestStatesNoWriteThroughLinks: .matrixx/state or
// .matrixx/state/continuation as a link to a directory outside .matrixx
// makes Save fail; nothing is written there. An oversized or FIFO state
// file loads as the zero state without being read.
func TestStatesNoWriteThroughLinks(t *testing.T) {
	for _, at := range []string{"state", "state/continuation"} {
		t.Run(at, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), ".matrixx")
			outside := t.TempDir()
			link := filepath.Join(base, filepath.FromSlash(at))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			s := States{Dir: filepath.Join(base, "state", "continuation"), Base: base}
			if err := s.Save("ses", State{Fingerprint: "f", Blocks: 1}); err == nil {
				t.Fatal("Save wrote through a link")
			}
			if ents, _ := os.ReadDir(outside); len(ents) > 0 {
				t.Errorf("files written outside .matrixx: %v", ents)
			}
		})
	}
	t.Run("odd state files", func(t *testing.T) {
		base := filepath.Join(t.TempDir(), ".matrixx")
		s := States{Dir: filepath.Join(base, "state", "continuation"), Base: base}
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(s.file("big"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(2 << 30); err != nil { // a 2 GB sparse file
			t.Fatal(err)
		}
		f.Close()
		if err := syscall.Mkfifo(s.file("fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"big", "fifo"} {
			if st, err := s.Load(key); err != nil || st != (State{}) {
				t.Errorf("Load(%s) = %+v, %v; want the zero state", key, st, err)
			}
		}
	})
}
