package durable

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "T-a.json")
	if err := WriteFile(path, []byte("one"), Options{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v err %v", fi.Mode(), err)
	}
	// A failing last check leaves the old content and no temp file.
	boom := errors.New("lost the lock")
	if err := WriteFile(path, []byte("two"), Options{BeforeRename: func() error { return boom }}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "one" {
		t.Fatalf("content %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("leftovers: %v", entries)
	}
	// Writing into a missing directory fails cleanly.
	if err := WriteFile(filepath.Join(dir, "no", "x"), []byte("x"), Options{}); err == nil {
		t.Fatal("expected an error")
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".T-a.json.tmp-123":       true,
		"T-a.json.tmp.1700000000": true,
		".lock.tmp-evict-x":       true,
		"T-a.json":                false,
		"T-a.json.tmp.":           false,
		"T-a.json.tmp.12a":        false,
		".index":                  false,
		"notes.tmp-1":             false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v", name, !want)
		}
	}
}

func TestSweepTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for _, n := range []string{".T-a.json.tmp-1", "T-b.json.tmp.17", ".T-fresh.json.tmp-2", "T-keep.json"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	for _, n := range []string{".T-a.json.tmp-1", "T-b.json.tmp.17", "T-keep.json"} {
		os.Chtimes(filepath.Join(dir, n), old, old)
	}
	removed, err := SweepTemps(dir, time.Minute, time.Now())
	if err != nil || len(removed) != 2 {
		t.Fatalf("removed %v err %v", removed, err)
	}
	for _, n := range []string{".T-fresh.json.tmp-2", "T-keep.json"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed", n)
		}
	}
}
