package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// shardPath is the dedup index shard that lists tasks with this trimmed
// subject and no plan key.
func shardPath(s *Store, subject string) string {
	return filepath.Join(s.Dir, indexDir, dedupDir, shardName(shardOf(dedupKey(subject, ""))))
}

// TestShardCodec: what appendShardLines writes parses back; a torn or odd
// shard is an error (the index is then rebuilt).
func TestShardCodec(t *testing.T) {
	entries := []dedupEntry{{key: 0, id: "T-1"}, {key: ^uint64(0), id: "T-019a0000-0000-7000-8000-000000000000"}}
	data := appendShardLines([]byte("# 2\n"), entries)
	kept, back, err := parseShard(data)
	if err != nil || kept != 2 || !slices.Equal(back, entries) {
		t.Fatalf("parseShard = %d %v %v", kept, back, err)
	}
	for _, bad := range []string{"", "0000000000000000 T-1\n", "# x\n", "# 1\n0000000000000000 T-1", "# 1\n00000000000000zz T-1\n", "# 1\n0000000000000000 ../x\n", "# 1\n0000000000000000T-1\n"} {
		if _, _, err := parseShard([]byte(bad)); err == nil {
			t.Errorf("parseShard(%q): no error", bad)
		}
	}
}

// TestIndexNoWriteThroughLinks: index files are written in place only when
// they are plain files of ours; a hard link or a symbolic link in place of
// a shard, or of .index itself, never carries the write to another file
// (docs/design/decisions.md S10, S44), and the dedup still works.
func TestIndexNoWriteThroughLinks(t *testing.T) {
	for _, kind := range []string{"hardlink", "symlink", "stamplink", "dirlink"} {
		t.Run(kind, func(t *testing.T) {
			s := newStore(t)
			create(t, s, `{"subject":"first"}`)
			shard := shardPath(s, "second")
			outside := filepath.Join(t.TempDir(), "precious")
			if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "hardlink":
				os.Remove(shard)
				if err := os.Link(outside, shard); err != nil {
					t.Skip("no hard links here:", err)
				}
			case "symlink":
				os.Remove(shard)
				if err := os.Symlink(outside, shard); err != nil {
					t.Fatal(err)
				}
			case "stamplink":
				stamp := filepath.Join(s.Dir, indexDir, dedupDir, stampFile)
				os.Remove(stamp)
				if err := os.Symlink(outside, stamp); err != nil {
					t.Fatal(err)
				}
			case "dirlink":
				os.RemoveAll(filepath.Join(s.Dir, indexDir))
				other := t.TempDir()
				if err := os.MkdirAll(filepath.Join(other, dedupDir), 0o755); err != nil {
					t.Fatal(err)
				}
				outside = filepath.Join(other, dedupDir, shardName(shardOf(dedupKey("second", ""))))
				if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(other, filepath.Join(s.Dir, indexDir)); err != nil {
					t.Fatal(err)
				}
			}
			res := create(t, s, `{"subject":"second"}`)
			if len(res.Tasks) != 1 || res.Tasks[0].Deduplicated {
				t.Fatalf("create: %+v", res)
			}
			if data, err := os.ReadFile(outside); err != nil || string(data) != "precious\n" {
				t.Errorf("the file behind the %s was written: %q %v", kind, data, err)
			}
			again := create(t, s, `{"subject":"second"}`)
			if len(again.Tasks) != 1 || !again.Tasks[0].Deduplicated {
				t.Errorf("dedup after the %s: %+v", kind, again)
			}
		})
	}
}

// TestIndexWritesFewBytes: a create appends one line to one shard, in
// place; an update that changes neither subject, plan key nor activity of
// a recently written task leaves every shard as it was; one that changes
// the subject appends one line, and the task is found under its new
// subject.
func TestIndexWritesFewBytes(t *testing.T) {
	s := newStore(t)
	create(t, s, `{"items":[{"subject":"a"},{"subject":"b"},{"subject":"c"}]}`)
	shard := shardPath(s, "d")
	before, _ := os.Stat(shard)
	id := create(t, s, `{"subject":"d"}`).Tasks[0].ID
	after, err := os.Stat(shard)
	if err != nil {
		t.Fatal(err)
	}
	if before != nil && !os.SameFile(before, after) {
		t.Errorf("the shard was replaced, not appended to in place")
	}
	line := int64(16 + 1 + len(id) + 1)
	if before != nil && after.Size() != before.Size()+line || before == nil && after.Size() > line+8 {
		t.Errorf("shard grew from %v to %d bytes for one create", before, after.Size())
	}

	snapshot := func() map[string]string {
		m := map[string]string{}
		des, _ := os.ReadDir(filepath.Join(s.Dir, indexDir, dedupDir))
		for _, de := range des {
			if de.Name() != stampFile {
				data, _ := os.ReadFile(filepath.Join(s.Dir, indexDir, dedupDir, de.Name()))
				m[de.Name()] = string(data)
			}
		}
		return m
	}
	was := snapshot()
	update(t, s, `{"id":"`+id+`","description":"more","metadata":{"x":1},"status":"in_progress","owner":"w"}`)
	if now := snapshot(); fmt.Sprint(now) != fmt.Sprint(was) {
		t.Errorf("an update of a recent task's other fields changed the dedup index:\n%v\n%v", was, now)
	}
	update(t, s, `{"id":"`+id+`","subject":"renamed"}`)
	if now := snapshot(); fmt.Sprint(now) == fmt.Sprint(was) {
		t.Errorf("a subject change left the dedup index as it was")
	}
	var log strings.Builder
	s.Log, s.LogDecisions = &log, true
	if got := create(t, s, `{"subject":"renamed"}`).Tasks[0]; !got.Deduplicated || got.ID != id {
		t.Errorf("the renamed task was not found: %+v", got)
	}
	if strings.Contains(log.String(), "rebuilt") {
		t.Errorf("the index was rebuilt: %s", log.String())
	}
}

func update(t *testing.T, s *Store, doc string) {
	t.Helper()
	req, err := task.ParseUpdate([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update(req); err != nil {
		t.Fatal(err)
	}
}

// TestDedupIndexNeverWrong drives a store through random creates, updates
// (subject, plan, status, other fields), cleanups and hours of a fake
// clock, dating every written file at the fake clock's time as the kernel
// would, and checks every create against a full scan: it is deduplicated
// exactly when an active task with the same trimmed subject and plan key
// was written within the window, and then against one of those.
// Shards fill up enough to be compacted along the way.
func TestDedupIndexNeverWrong(t *testing.T) {
	s := newStore(t)
	now := time.Now().Add(-48 * time.Hour)
	s.Now = func() time.Time { return now }
	r := rand.New(rand.NewPCG(1, 2))
	subjects := []string{"Alpha", "Beta", " Alpha ", "Gamma"}
	plans := []string{``, `,"metadata":{"planName":"p","planItem":1}`}
	var ids []string
	date := func(id string) {
		p := filepath.Join(s.Dir, task.FileName(id))
		if err := os.Chtimes(p, now, now); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(subject, plan string) []string {
		snap, err := s.Scan(ScanOptions{Mtime: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range snap.Entries {
			if e.Task.Status.Active() && strings.TrimSpace(e.Task.Subject) == subject && e.Task.Metadata.PlanKey() == plan && now.Sub(e.ModTime) <= DedupWindow {
				out = append(out, e.Task.ID)
			}
		}
		return out
	}
	compactions := 0
	for step := range 1500 {

		now = now.Add(time.Duration(r.IntN(int(3 * time.Minute))))
		if r.IntN(40) == 0 {
			now = now.Add(time.Duration(r.IntN(int(3 * time.Hour))))
		}
		switch op := r.IntN(10); {
		case op < 4 || len(ids) == 0:
			subj, pl := subjects[r.IntN(len(subjects))], plans[r.IntN(len(plans))]
			req, err := task.ParseCreate([]byte(`{"subject":"` + subj + `"` + pl + `}`))
			if err != nil {
				t.Fatal(err)
			}
			want := expect(strings.TrimSpace(subj), req.Items[0].Metadata.PlanKey())
			shard := shardPath(s, strings.TrimSpace(subj))
			before, _ := os.Stat(shard)
			res, err := s.Create(req)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Tasks[0]
			if got.Deduplicated != (len(want) > 0) || got.Deduplicated && !slices.Contains(want, got.ID) {
				sh, _ := os.ReadFile(filepath.Join(s.Dir, indexDir, dedupDir, shardName(shardOf(dedupKey(strings.TrimSpace(subj), req.Items[0].Metadata.PlanKey())))))
				t.Fatalf("step %d: create %q%s = %+v, want one of %v; its shard:\n%s", step, subj, pl, got, want, sh)
			}
			if !got.Deduplicated {
				ids = append(ids, got.ID)
				date(got.ID)
			}
			if after, _ := os.Stat(shard); before != nil && after != nil && after.Size() < before.Size() {
				compactions++
			}
		case op < 9:
			id := ids[r.IntN(len(ids))]
			var doc string
			switch r.IntN(5) {
			case 0:
				doc = `{"id":"` + id + `","subject":"` + subjects[r.IntN(len(subjects))] + `"}`
			case 1:
				doc = `{"id":"` + id + `","status":"` + []string{"pending", "in_progress", "completed"}[r.IntN(3)] + `"}`
			case 2:
				doc = `{"id":"` + id + `","metadata":{"planName":"p","planItem":` + fmt.Sprint(1+r.IntN(2)) + `}}`
			default:
				doc = `{"id":"` + id + `","description":"step ` + fmt.Sprint(step) + `"}`
			}
			req, err := task.ParseUpdate([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if _, changed, err := s.Update(req); err != nil {
				t.Fatal(err)
			} else if changed {
				date(id)
			}
		default:
			res, err := s.Cleanup(&task.CleanupRequest{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range res.DeletedIDs {
				ids = slices.DeleteFunc(ids, func(x string) bool { return x == d })
			}
		}
	}
	if compactions == 0 {
		t.Errorf("no shard was ever compacted: the test does not reach compaction")
	}
}
