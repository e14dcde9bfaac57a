package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The benchmarks here profile the store's reading in process (no process
// start, no output); the whole-process figures are in `make bench`
// (bench/, docs/benchmarks.md). Profile with
//
//	go test ./pkg/store -run '^$' -bench Scan -cpuprofile /tmp/scan.prof

// benchStore writes n records shaped like real ones (a third blocked, half
// with plan metadata, most completed) into a temp directory; mtimes are a
// day old except the newest ten.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	dir := b.TempDir()
	old := time.Now().Add(-24 * time.Hour)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("T-01a2%04x-%04x-7abc-8def-%012x", i>>16, i&0xffff, i*7919)
	}
	desc := strings.Repeat("refactor the parser and document the scheduler ", 6)
	for i, id := range ids {
		t := &task.Task{ID: id, Subject: fmt.Sprintf("Build the %d-th component of the api", i), Description: desc,
			Status:   []task.Status{task.Completed, task.Completed, task.Pending, task.InProgress, task.Deleted}[i%5],
			ThreadID: "ses_0123456789abcdef", ProjectRoot: "/home/dev/project"}
		if i > 0 && i%3 == 0 {
			t.BlockedBy = []string{ids[i/2], ids[i-1]}
		}
		if i%2 == 0 {
			t.Metadata = task.Metadata{"planName": jsontext.Value(`"plan-auth"`), "planItem": jsontext.Value(fmt.Sprint(i % 40))}
		}
		data, err := task.Encode(t)
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, task.FileName(id))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if i < n-10 {
			if err := os.Chtimes(p, old, old); err != nil {
				b.Fatal(err)
			}
		}
	}
	return &Store{Dir: dir}
}

// BenchmarkScan reads a 10,000-task store: task-list's work.
func BenchmarkScan(b *testing.B) {
	s := benchStore(b, 10000)
	for b.Loop() {
		snap, err := s.Scan(ScanOptions{})
		if err != nil || len(snap.Entries) != 10000 {
			b.Fatal(err, len(snap.Entries))
		}
	}
}

// BenchmarkRebuildRecent stats every file of a 10,000-task store and reads
// only the recent ones: task-create's dedup index rebuild.
// BenchmarkScanList is task-list's scan: only the list fields decoded.
func BenchmarkScanList(b *testing.B) {
	s := benchStore(b, 10000)
	for b.Loop() {
		snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: "claim"})
		if err != nil || len(snap.Entries) != 10000 {
			b.Fatal(err, len(snap.Problems))
		}
	}
}

func BenchmarkRebuildRecent(b *testing.B) {
	s := benchStore(b, 10000)
	for b.Loop() {
		_, n, err := s.rebuildRecent(time.Now())
		if err != nil || n == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRecord decodes one typical record.
func BenchmarkDecodeRecord(b *testing.B) {
	s := benchStore(b, 4)
	names, err := s.names()
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(s.Dir, names[0]))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := task.DecodeRecord(data); err != nil {
			b.Fatal(err)
		}
	}
}
