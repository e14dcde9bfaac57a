package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// events makes n updated events of task id from machine host, a second
// apart from start, each carrying a value of size bytes.
func events(id, host string, start time.Time, n, size int) []Event {
	out := make([]Event, n)
	for i := range out {
		v := fmt.Sprintf("%q", strings.Repeat("x", size))
		out[i] = Event{ID: fmt.Sprintf("%s-%04d", host, i), Task: id, At: start.Add(time.Duration(2*i) * time.Second),
			Kind: Updated, By: Actor{Host: host}, Changes: []Change{{Field: "description", New: jsontext.Value(v)}}}
	}
	return out
}

// TestMergeFiles: the union of two machines' histories is the same file
// whichever side merges, a second merge changes nothing, and a merged file
// past the compaction rule is compacted by it (the newest KeepEvents kept
// after one compacted event), the same way on both sides.
func TestMergeFiles(t *testing.T) {
	const id = "T-1"
	start := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	enc := func(evs []Event) []byte {
		b, err := Encode(evs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Small: a plain union, ordered by time.
	a := enc(events(id, "a", start, 3, 10))
	b := enc(events(id, "b", start.Add(time.Second), 3, 10))
	ab, err := MergeFiles(id, a, b)
	if err != nil {
		t.Fatal(err)
	}
	ba, _ := MergeFiles(id, b, a)
	if !bytes.Equal(ab, ba) {
		t.Fatal("the merge depends on which side merges")
	}
	evs := Parse(ab)
	if len(evs) != 6 || evs[0].ID != "a-0000" || evs[1].ID != "b-0000" || evs[5].ID != "b-0002" {
		t.Fatalf("merged: %v", evs)
	}
	again, _ := MergeFiles(id, ab, a)
	if !bytes.Equal(again, ab) {
		t.Fatal("merging a side already merged changed the file")
	}
	if CheckFile(id, ab) != "" || CheckFile("T-2", ab) == "" || CheckFile(id, []byte("{\n")) == "" {
		t.Fatal("CheckFile")
	}

	// Large: 150 events a side, 5 KB each (over 1 MiB merged): compacted.
	a = enc(events(id, "a", start, 150, 5000))
	b = enc(events(id, "b", start.Add(time.Second), 150, 5000))
	ab, _ = MergeFiles(id, a, b)
	ba, _ = MergeFiles(id, b, a)
	if !bytes.Equal(ab, ba) {
		t.Fatal("the compacted merge depends on which side merges")
	}
	evs = Parse(ab)
	if len(evs) != KeepEvents+1 || evs[0].Kind != Compacted || evs[len(evs)-1].ID != "b-0149" {
		t.Fatalf("compacted merge: %d events, first %s, last %s", len(evs), evs[0].Kind, evs[len(evs)-1].ID)
	}
	// The other side's old events, folded here, do not come back.
	again, _ = MergeFiles(id, ab, a)
	if !bytes.Equal(again, ab) {
		t.Fatalf("merging the compacted file with an old side brought events back: %d events", len(Parse(again)))
	}
}
