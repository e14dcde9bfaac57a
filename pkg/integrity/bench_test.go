package integrity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkCheckUnchanged is the post-call check of an unchanged store of
// 1,000 records (in process; make bench times the whole hook).
func BenchmarkCheckUnchanged(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "tasks")
	_ = os.MkdirAll(dir, 0o755)
	body := strings.Repeat("x", 700)
	for i := range 1000 {
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("T-%08d-0000-4000-8000-000000000000.json", i)), []byte(body), 0o644)
	}
	a := &Area{Name: "tasks", Dir: dir, Match: IsTaskName, Ledger: filepath.Join(root, "ledger"), LockDir: dir, MaxBytes: 1 << 20}
	c := &Checker{Quarantine: filepath.Join(root, "q")}
	time.Sleep(50 * time.Millisecond)
	if _, err := c.Accept(a); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		res, err := c.Check(a, Window{All: true})
		if err != nil || len(res.Changes) > 0 || res.Hashed > 0 {
			b.Fatalf("%v %v hashed %d", err, res.Changes, res.Hashed)
		}
	}
}
