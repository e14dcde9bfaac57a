package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// doctorStore writes a store with one of each problem task-doctor finds:
// corrupt, foreign and odd files, one-sided edges both ways, a blockedBy
// cycle, a contradicting blocks edge, self edges, missing and deleted
// blockers, dangling edges, a parentID loop and a missing parent, claims
// expired, malformed and without lease, unclaimed work, overlapping
// leases. Every record carries the members the light scan drops
// (description, activeForm, other metadata).
func doctorStore(t *testing.T, now time.Time) *Store {
	t.Helper()
	s := newStore(t)
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	id := func(i int) string { return fmt.Sprintf("T-019b0000-%04x-7000-8000-%012x", i, i*7919) }
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(s.Dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put := func(i int, status task.Status, blocks, blockedBy []int, parent int, edit func(*task.Task)) {
		t.Helper()
		x := &task.Task{ID: id(i), Subject: fmt.Sprintf("task %d", i), Description: "a long description that the light scan drops",
			Status: status, ActiveForm: "working", Blocks: []string{}, BlockedBy: []string{},
			Metadata: task.Metadata{"planName": jsontext.Value(`"plan"`)}}
		for _, b := range blocks {
			x.Blocks = append(x.Blocks, id(b))
		}
		for _, b := range blockedBy {
			x.BlockedBy = append(x.BlockedBy, id(b))
		}
		if parent > 0 {
			x.ParentID = id(parent)
		}
		name := task.FileName(x.ID)
		if edit != nil {
			edit(x)
		}
		data, err := task.Encode(x)
		if err != nil {
			t.Fatal(err)
		}
		write(name, data)
	}
	claimed := func(lease time.Duration, paths ...string) func(*task.Task) {
		return func(x *task.Task) {
			at := now.Add(-time.Hour)
			c := &claim.Claim{Owner: "agent-" + x.Subject, ClaimedAt: claim.Stamp(at), Paths: paths}
			if lease != 0 {
				c.Extend(at, lease)
			}
			x.Owner = c.Owner
			claim.Set(x, c)
		}
	}
	const none = 0
	// Edges mirrored both ways: no finding.
	put(1, task.Completed, []int{2}, nil, none, nil)
	put(2, task.Pending, nil, []int{1}, none, nil)
	// One-sided: 3 blocks 4 (4 does not wait), 5 waits for 6 (6 does not block).
	put(3, task.Pending, []int{4}, nil, none, nil)
	put(4, task.Pending, nil, nil, none, nil)
	put(5, task.Pending, nil, []int{6}, none, nil)
	put(6, task.Pending, nil, nil, none, nil)
	// A cycle over blockedBy (mirrored), and 9 blocks 7 while it waits for 7.
	put(7, task.Pending, []int{8}, []int{8}, none, nil)
	put(8, task.Pending, []int{7, 9}, []int{7}, none, nil)
	put(9, task.Pending, []int{7}, []int{8}, none, nil)
	// Self edges: active (error) and completed (warning).
	put(10, task.Pending, []int{10}, []int{10}, none, nil)
	put(11, task.Completed, []int{11}, nil, none, nil)
	// Missing blocker, dangling blocks and parent, a deleted blocker.
	put(12, task.Pending, []int{99}, []int{98}, 97, nil)
	put(13, task.Completed, nil, []int{96}, 95, nil)
	put(14, task.Deleted, []int{15}, nil, none, nil)
	put(15, task.Pending, nil, []int{14}, none, nil)
	// A parentID loop.
	put(16, task.Pending, nil, nil, 17, nil)
	put(17, task.Completed, nil, nil, 16, nil)
	// Claims: expired, live with overlapping leases, without lease,
	// malformed, none at all.
	put(20, task.InProgress, nil, nil, none, claimed(30*time.Minute))
	put(21, task.InProgress, nil, nil, none, claimed(30*24*time.Hour, "src/**"))
	put(22, task.InProgress, nil, nil, none, claimed(30*24*time.Hour, "src/a/**"))
	put(23, task.InProgress, nil, nil, none, claimed(0))
	put(24, task.InProgress, nil, nil, none, func(x *task.Task) { x.Metadata[claim.Key] = jsontext.Value(`"mine"`) })
	put(25, task.InProgress, nil, nil, none, nil)
	// Files that are not valid records; 30 is a task the edges of 31 name.
	write(task.FileName(id(30)), []byte(`{"id":`))
	put(31, task.Pending, []int{30}, []int{30}, none, nil)
	write(task.FileName(id(32)), []byte(`{"kind":"not a task"}`))
	write(task.FileName(id(33)), []byte("\xef\xbb\xbf{}"))
	write(task.FileName(id(34)), []byte{})
	put(35, task.Pending, nil, nil, none, func(x *task.Task) { x.ID = id(36) }) // not its file's id
	write(task.FileName(id(37)), []byte(`{"id":"`+id(37)+`","subject":"s","description":"d","status":"pending","blocks":[1]}`))
	write(task.FileName(id(38)), []byte(`{"id":"`+id(38)+`","subject":"s","description":"d","status":"pending","extra":1}`))
	if err := os.Mkdir(filepath.Join(s.Dir, task.FileName(id(39))), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(task.FileName(id(4)), filepath.Join(s.Dir, task.FileName(id(40)))); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDoctorLightScanFindsWhatAFullDecodeFinds: task-doctor's check
// reads only the list fields with blocks, through the list index. On a
// store with every kind of problem its report must be byte for byte the
// report of the same check over whole records, when the index is made and
// when it serves every unchanged record.
func TestDoctorLightScanFindsWhatAFullDecodeFinds(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	s := doctorStore(t, now)
	trustNow(s)
	s.Now = func() time.Time { return now }
	s.ListIndex = filepath.Join(t.TempDir(), "index", "list-test")

	snap, err := s.Scan(ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full := diagnose(snap, now)
	if err := s.doctorLeases(full, snap, false); err != nil {
		t.Fatal(err)
	}
	full.count()
	want, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, f := range full.Findings {
		kinds[f.Kind]++
	}
	for _, k := range []string{KindCorruptFile, KindMissingBlocker, KindMissingParent, KindCycle, KindOneSidedEdge, KindDanglingEdge,
		KindDeletedBlocker, KindClaimExpired, KindClaimMalformed, KindSelfEdge, KindContradictingEdge, KindUnclaimedWork,
		KindParentCycle, KindLeaseOverlap, KindLeaseIndexStale} {
		if kinds[k] == 0 {
			t.Errorf("the store has no %s finding: the comparison would not cover it (%v)", k, kinds)
		}
	}
	if kinds[KindCorruptFile] != 9 {
		t.Errorf("%d corrupt files, want 9: %s", kinds[KindCorruptFile], want)
	}

	for round := range 2 {
		var rep *DoctorReport
		var err error
		served := servedBy(t, s, func() { rep, err = s.Doctor(false) })
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("round %d: the light check's report differs from the full decode's:\nlight %s\nfull  %s", round, got, want)
		}
		if round == 1 && served != len(snap.Entries) {
			t.Fatalf("round 2: %d rows served from the list index, want every record's %d", served, len(snap.Entries))
		}
		if !slices.EqualFunc(rep.Findings, full.Findings, func(a, b Finding) bool { return (a.fix == nil) == (b.fix == nil) }) {
			t.Fatalf("round %d: repairable findings differ", round)
		}
	}
}
