package tasksync

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

const baseRec = `{"id":"T-1","subject":"s","description":"d","status":"pending","blocks":[],"blockedBy":["T-a"],"metadata":{"k":1,"claim":{"owner":"x","claimedAt":"2026-01-01T00:00:00.000Z"}},"threadID":"t0"}`

func rec(t *testing.T, mod func(*task.Task)) []byte {
	t.Helper()
	r, err := task.DecodeRecord([]byte(baseRec))
	if err != nil {
		t.Fatal(err)
	}
	mod(r)
	b, err := task.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t *testing.T, b []byte) *task.Task {
	t.Helper()
	r, err := task.DecodeRecord(b)
	if err != nil {
		t.Fatalf("merged record does not validate: %v\n%s", err, b)
	}
	return r
}

func TestMergeOneSideWins(t *testing.T) {
	base := rec(t, func(r *task.Task) { r.Status = task.Completed; delete(r.Metadata, "claim") })
	reopened := rec(t, func(r *task.Task) { r.Status = task.Pending; delete(r.Metadata, "claim") })
	other := rec(t, func(r *task.Task) { r.Status = task.Completed; r.Subject = "new"; delete(r.Metadata, "claim") })
	out, cs, err := MergeTask(base, reopened, other)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	if m.Status != task.Pending || m.Subject != "new" {
		t.Fatalf("want the re-opened task to stay re-opened with the other side's subject, got %s %q", m.Status, m.Subject)
	}
	if len(cs) != 0 {
		t.Fatalf("no conflicts expected, got %+v", cs)
	}
}

func TestMergeBothSides(t *testing.T) {
	base := rec(t, func(r *task.Task) {})
	ours := rec(t, func(r *task.Task) {
		r.BlockedBy = append(r.BlockedBy, "T-o")
		r.Status = task.InProgress
		r.Owner = "ours"
		r.Metadata["mine"] = []byte(`"o"`)
		r.Metadata["k"] = []byte(`2`)
	})
	theirs := rec(t, func(r *task.Task) {
		r.BlockedBy = append(r.BlockedBy, "T-t")
		r.Status = task.Completed
		r.Owner = "theirs"
		r.Metadata["yours"] = []byte(`"t"`)
		r.Metadata["k"] = []byte(`3`)
	})
	out, cs, err := MergeTask(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	if !slices.Equal(m.BlockedBy, []string{"T-a", "T-o", "T-t"}) {
		t.Errorf("blockedBy = %v, want the union", m.BlockedBy)
	}
	if m.Status != task.Completed {
		t.Errorf("status = %s, want completed (status order)", m.Status)
	}
	if m.Owner != "theirs" {
		t.Errorf("owner = %s, want theirs (first push)", m.Owner)
	}
	if string(m.Metadata["mine"]) != `"o"` || string(m.Metadata["yours"]) != `"t"` || string(m.Metadata["k"]) != `3` {
		t.Errorf("metadata = %v", m.Metadata)
	}
	if _, ok := m.Metadata["claim"]; ok {
		t.Errorf("a completed task keeps no claim")
	}
	rules := map[string]string{}
	for _, c := range cs {
		rules[c.Field] = c.Rule + " lost=" + string(c.Lost)
	}
	want := map[string]string{
		"status":         `status_order lost="in_progress"`,
		"owner":          `first_push lost="ours"`,
		"metadata.k":     `first_push lost=2`,
		"metadata.claim": "claim_ended lost=" + string(compactOf(t, base, "claim")),
	}
	for f, w := range want {
		if !strings.HasPrefix(rules[f], strings.Fields(w)[0]) || !strings.Contains(rules[f], strings.Fields(w)[1]) {
			t.Errorf("conflict on %s = %q, want %q", f, rules[f], w)
		}
	}
}

func compactOf(t *testing.T, b []byte, key string) []byte {
	return compact(decode(t, b).Metadata[key])
}

func TestMergeRemovalOnOneSide(t *testing.T) {
	base := rec(t, func(r *task.Task) { r.BlockedBy = []string{"T-a", "T-b"} })
	ours := rec(t, func(r *task.Task) { r.BlockedBy = []string{"T-a"}; delete(r.Metadata, "k") })
	theirs := rec(t, func(r *task.Task) { r.BlockedBy = []string{"T-a", "T-b", "T-c"} })
	out, _, err := MergeTask(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	if !slices.Equal(m.BlockedBy, []string{"T-a", "T-c"}) {
		t.Errorf("blockedBy = %v", m.BlockedBy)
	}
	if _, ok := m.Metadata["k"]; ok {
		t.Errorf("a key deleted on one side stays deleted")
	}
}

func TestMergeUnmergeable(t *testing.T) {
	base := rec(t, func(r *task.Task) {})
	if _, _, err := MergeTask(base, []byte("{not json"), base); err == nil {
		t.Fatal("a corrupt side must not merge")
	}
	other := rec(t, func(r *task.Task) { r.ID = "T-2" })
	if _, _, err := MergeTask(base, base, other); err == nil {
		t.Fatal("two different tasks must not merge")
	}
}

func TestResolveHunks(t *testing.T) {
	m := func(c byte) string { return strings.Repeat(string(c), markerSize) }
	in := "# p\n" + m('<') + " ours\n1. [x] a\n2. [ ] b\n" + m('|') + " base\n1. [ ] a\n2. [ ] b\n" + m('=') + "\n1. [ ] a\n2. [x] b\n" + m('>') + " theirs\ntail\n"
	out, cs, err := resolveHunks("p", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "# p\n1. [x] a\n2. [x] b\ntail\n" || len(cs) != 0 {
		t.Fatalf("got %q %+v", out, cs)
	}
}

// FuzzMergeTask: the merge never panics; with three valid records it
// answers a valid record that keeps every blocker added on either side, and
// merging a side with itself gives that side.
func FuzzMergeTask(f *testing.F) {
	seed := func(mods ...func(*task.Task)) []byte {
		r, _ := task.DecodeRecord([]byte(baseRec))
		for _, m := range mods {
			m(r)
		}
		b, _ := task.Encode(r)
		return b
	}
	f.Add([]byte(baseRec), seed(func(r *task.Task) { r.Status = task.Completed }), seed(func(r *task.Task) { r.BlockedBy = append(r.BlockedBy, "T-b") }))
	f.Add([]byte{}, seed(), seed(func(r *task.Task) { r.Owner = "o" }))
	f.Add([]byte(baseRec), []byte(`{"id":"T-1","subject":"","description":"","status":"deleted","blocks":["T-x"],"blockedBy":[]}`), seed(func(r *task.Task) { r.Metadata = nil }))
	f.Add([]byte("garbage"), []byte(baseRec), []byte(`{"id":"T-1"`))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		out, _, err := MergeTask(base, ours, theirs)
		o, oerr := task.DecodeRecord(ours)
		th, terr := task.DecodeRecord(theirs)
		if oerr != nil || terr != nil {
			if err == nil {
				t.Fatal("merged although a side is not a valid record")
			}
			return
		}
		if o.ID != th.ID {
			return
		}
		if err != nil {
			t.Fatalf("valid sides did not merge: %v", err)
		}
		m, err := task.DecodeRecord(out)
		if err != nil {
			t.Fatalf("merge result invalid: %v\n%s", err, out)
		}
		b, berr := task.DecodeRecord(base)
		if berr != nil || b.ID != o.ID {
			b = &task.Task{}
		}
		for _, side := range []*task.Task{o, th} {
			for _, id := range side.BlockedBy {
				if !slices.Contains(b.BlockedBy, id) && !slices.Contains(m.BlockedBy, id) {
					t.Fatalf("blocker %s added on one side was lost", id)
				}
			}
		}
		self, _, err := MergeTask(base, ours, ours)
		if err != nil {
			t.Fatal(err)
		}
		enc, _ := task.Encode(o)
		if !bytes.Equal(self, enc) {
			t.Fatalf("merging a side with itself changed it:\n%s\nvs\n%s", self, enc)
		}
	})
}

func TestMergePlanTicks(t *testing.T) {
	base := "# P\n\n1. [ ] a\n2. [ ] b\n3. [ ] c\n"
	ours := "# P\n\n1. [x] a\n2. [ ] b\n3. [ ] c\n"
	theirs := "# P\n\n1. [ ] a\n2. [x] b\n3. [ ] c edited\n"
	out, cs, err := MergePlan("p", []byte(base), []byte(ours), []byte(theirs), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "# P\n\n1. [x] a\n2. [x] b\n3. [ ] c edited\n" || len(cs) != 0 {
		t.Fatalf("got %q %+v", out, cs)
	}
	// the same line changed differently: theirs, reported
	out, cs, err = MergePlan("p", []byte(base), []byte("# P\n\n1. [ ] A\n2. [ ] b\n3. [ ] c\n"), []byte("# P\n\n1. [ ] alpha\n2. [ ] b\n3. [ ] c\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "alpha") || len(cs) != 1 || cs[0].Rule != "first_push" {
		t.Fatalf("got %q %+v", out, cs)
	}
}
