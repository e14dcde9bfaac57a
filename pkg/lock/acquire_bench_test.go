package lock

import "testing"

// BenchmarkAcquireRelease is one uncontended lock round: the kernel lock
// taken and .lock created, then both released.
func BenchmarkAcquireRelease(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		l, err := Acquire(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(); err != nil {
			b.Fatal(err)
		}
	}
}
