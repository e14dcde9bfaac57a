package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDirentType: the type from d_type and the type from lstat (d_type
// unknown) are both what os.Lstat reports, for every kind of entry.
func TestDirentType(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	must(os.Symlink("file", filepath.Join(dir, "link")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(err)
	defer unix.Close(fd)
	dt := map[string]byte{"file": unix.DT_REG, "dir": unix.DT_DIR, "link": unix.DT_LNK, "fifo": unix.DT_FIFO}
	for name, d := range dt {
		st, err := os.Lstat(filepath.Join(dir, name))
		must(err)
		for _, typ := range []byte{d, unix.DT_UNKNOWN} {
			got, ok, err := direntType(fd, name, typ)
			if err != nil || !ok || got != st.Mode().Type() {
				t.Errorf("%s with d_type %d: got %v, %v, %v; os.Lstat says %v", name, typ, got, ok, err, st.Mode().Type())
			}
		}
	}
	if _, ok, err := direntType(fd, "gone", unix.DT_UNKNOWN); ok || err != nil {
		t.Errorf("a removed entry: ok %v, err %v", ok, err)
	}
}
