package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(small, 5, false); err != nil || string(data) != "hello" {
		t.Fatalf("ReadFile(small) = %q, %v", data, err)
	}
	if _, err := ReadFile(small, 4, false); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one byte over the cap: %v", err)
	}
	giant := filepath.Join(dir, "giant")
	f, err := os.Create(giant)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile(giant, 1<<20, false); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2 GB sparse file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(fifo, 1<<20, true); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(link, 1<<20, false); !errors.Is(err, ErrLink) {
		t.Errorf("link not followed: %v", err)
	}
	if data, err := ReadFile(link, 1<<20, true); err != nil || string(data) != "hello" {
		t.Errorf("link followed: %q %v", data, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 1, false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestMkdirNoLinks(t *testing.T) {
	base := t.TempDir()
	if err := MkdirNoLinks(base, filepath.Join(base, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(base, "a", "b")); err != nil || !fi.IsDir() {
		t.Fatalf("not created: %v", err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(base, "l")); err != nil {
		t.Fatal(err)
	}
	if err := MkdirNoLinks(base, filepath.Join(base, "l", "x")); !errors.Is(err, ErrLink) {
		t.Errorf("through a link: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("created outside: %v", ents)
	}
	if err := os.WriteFile(filepath.Join(base, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MkdirNoLinks(base, filepath.Join(base, "f", "x")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("through a file: %v", err)
	}
	if err := MkdirNoLinks(base, filepath.Dir(base)); err == nil {
		t.Error("a directory above base was accepted")
	}
}
