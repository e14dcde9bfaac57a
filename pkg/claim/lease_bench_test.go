package claim

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLeaseCheck is the guard's lease work for one written path:
// reading the index and finding the lease that covers it, with 100 and
// 10,000 live leases (bench/leases.go measures the whole hook).
func BenchmarkLeaseCheck(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		p := filepath.Join(b.TempDir(), ".index", "path-leases")
		es := make([]IndexEntry, n)
		exp := Stamp(time.Now().Add(time.Hour))
		for i := range es {
			es[i] = IndexEntry{Glob: fmt.Sprintf("pkg/mod%05d/**", i), Task: fmt.Sprintf("T-%05d", i), Owner: "o", Session: "s", ExpiresAt: exp}
		}
		if err := WriteIndex(p, es); err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				ix, err := ReadIndex(p)
				if err != nil {
					b.Fatal(err)
				}
				if ix.Find("src/main.go", false, now, nil) != nil || ix.Find("pkg/mod00050/x.go", false, now, nil) == nil {
					b.Fatal("wrong answer")
				}
			}
		})
	}
}
