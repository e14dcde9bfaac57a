//go:build linux

package sync

import (
	"strings"
	gosync "sync"
	"testing"
)

// TestConcurrentSyncsOneClone: cron, a hook and an agent on one machine:
// six syncs at once in one clone while tasks are created there. Every sync
// answers (sync_conflict at worst, never a failure), and a last sync on
// each of two clones leaves them byte-identical with every task.
func TestConcurrentSyncsOneClone(t *testing.T) {
	_, ms := newMachines(t, 2)
	m := ms[0]
	var wg gosync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			m.sync()
		}()
		go func() {
			defer wg.Done()
			m.must(nil, "", "task-create", "-s", "t"+strings.Repeat("x", i))
		}()
	}
	wg.Wait()
	m.sync()
	ms[1].sync()
	a, b := m.files(), ms[1].files()
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("want 6 tasks on both clones, got %d and %d", len(a), len(b))
	}
	for p, c := range a {
		if b[p] != c {
			t.Fatalf("%s differs", p)
		}
	}
}
