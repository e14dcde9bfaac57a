package integrity

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// FuzzCheck applies random edits (bytes read as operations on a store of
// four records) during a tool call and checks that the post-call check
// puts the store back exactly (names, content, mode, mtime), that a
// second check then finds nothing, and that edits made outside the window
// are adopted so that a later check finds nothing either.
func FuzzCheck(f *testing.F) {
	f.Add([]byte{0, 0, 'x'}, false)
	f.Add([]byte{1, 1, 0, 2, 2, 0, 3, 3, 0}, false)
	f.Add([]byte{4, 0, 0, 5, 1, 0, 6, 2, 0, 7, 3, 0, 8, 4, 0}, false)
	f.Add([]byte{9, 0, 0, 10, 1, 0, 11, 2, 'a', 0, 0, 'b'}, true)
	f.Add([]byte{12, 0, 0, 13, 0, 0}, false)
	f.Fuzz(func(t *testing.T, ops []byte, outside bool) {
		if len(ops) > 60 {
			ops = ops[:60]
		}
		fx := newFixture(t, map[string]string{"T-a.json": `{"id":"a"}`, "T-b.json": `{"id":"b"}`, "T-c.json": "c", "T-d.json": ""})
		// A first check records the directory's tuple (once settled), so
		// the post-call check may skip listing the directory.
		time.Sleep(10 * time.Millisecond)
		fx.check(Window{All: true})
		before := fx.snap()
		names := []string{"T-a.json", "T-b.json", "T-c.json", "T-d.json", "T-e.json"}
		for i := 0; i+2 < len(ops); i += 3 {
			p := fx.path(names[int(ops[i+1])%len(names)])
			arg := ops[i+2]
			switch ops[i] % 14 {
			case 0:
				if fd, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644); err == nil {
					_, _ = fd.Write([]byte{arg})
					fd.Close()
				}
			case 1:
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					_ = os.Truncate(p, int64(arg))
				}
			case 2:
				_ = os.Remove(p)
			case 3:
				_ = os.Chmod(p, os.FileMode(arg)&0o777)
			case 4:
				_ = os.Chtimes(p, time.Unix(int64(arg), 0), time.Unix(int64(arg), 0))
			case 5:
				_ = os.Remove(p)
				_ = os.Symlink("/etc/hostname", p)
			case 6:
				_ = os.Remove(p)
				_ = os.Mkdir(p, 0o755)
			case 7:
				_ = os.Remove(p)
				_ = syscall.Mkfifo(p, 0o644)
			case 8:
				_ = os.Link(fx.path(names[int(arg)%len(names)]), p)
			case 9:
				if fd, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					_, _ = fd.WriteAt([]byte{arg}, int64(arg%4))
					fd.Close()
				}
			case 10:
				_ = os.Rename(p, fx.path(names[int(arg)%len(names)]))
			case 11:
				if fd, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0); err == nil {
					_, _ = fd.Write([]byte{arg})
					fd.Close()
				}
			case 12:
				_ = os.RemoveAll(fx.area.Dir)
			case 13:
				_ = os.MkdirAll(fx.area.Dir, 0o755)
				_ = os.WriteFile(filepath.Join(fx.area.Dir, "T-z.json"), []byte{arg}, 0o644)
			}
		}
		// Make sure the area directory can be listed by the test itself.
		_ = os.Chmod(fx.area.Dir, 0o755)
		if outside {
			now, _ := coarseNow()
			fx.check(Window{Start: now + int64(time.Hour)})
			if res := fx.check(Window{All: true}); hasOwnChange(res) {
				t.Fatalf("after adoption a check found %v", res.Changes)
			}
			return
		}
		fx.check(Window{All: true})
		if after := fx.snap(); after != before {
			t.Fatalf("not restored after ops %v:\n%s\nwant\n%s", ops, after, before)
		}
		if res := fx.check(Window{All: true}); len(res.Changes) != 0 {
			t.Fatalf("a second check found %v", res.Changes)
		}
	})
}

// hasOwnChange reports changes other than odd files (links, FIFOs,
// directories are never adopted: a later check moves them aside).
func hasOwnChange(res *Result) bool {
	for _, c := range res.Changes {
		if c.What != WhatOdd {
			return true
		}
	}
	return false
}
