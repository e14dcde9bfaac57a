package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func withHistory(s *Store) *Store {
	s.History = history.Open(s.Dir)
	s.History.By = history.Actor{Session: s.Session, User: "ann"}
	s.History.Command = "test"
	return s
}

// Every kind of write the store makes is recorded, in order, under the
// lock; a change made behind its back shows as external.
func TestStoreRecordsHistory(t *testing.T) {
	clock := time.Now()
	s := withHistory(newStore(t))
	s.Now = func() time.Time { return clock }
	a := create(t, s, `{"subject":"a"}`).Tasks[0].ID
	b := create(t, s, `{"subject":"b"}`).Tasks[0].ID
	sub := "a2"
	if _, _, err := s.Update(&task.UpdateRequest{ID: a, Subject: &sub, AddBlockedBy: []string{b}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ClaimRequest{ID: b, Owner: "bob", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(2 * time.Minute)
	if _, err := s.Claim(ClaimRequest{ID: b, Owner: "carol", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	// Behind the toolkit's back.
	path := filepath.Join(s.Dir, task.FileName(b))
	tk, _ := s.Get(b)
	tk.Description = "by hand"
	data, _ := task.Encode(tk)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	done := task.Completed
	if _, _, err := s.Update(&task.UpdateRequest{ID: b, Status: &done}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update(&task.UpdateRequest{ID: a, Status: &done}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cleanup(&task.CleanupRequest{}, nil); err != nil {
		t.Fatal(err)
	}
	kinds := func(id string) []history.Kind {
		evs, err := s.TaskHistory(id)
		if err != nil {
			t.Fatal(err)
		}
		var out []history.Kind
		for _, e := range evs {
			out = append(out, e.Kind)
		}
		return out
	}
	want := []history.Kind{history.Created, history.Updated, history.Claimed, history.LeaseExpired, history.Claimed, history.External, history.Completed, history.Removed}
	if got := kinds(b); !equalKinds(got, want) {
		t.Fatalf("b: %v, want %v", got, want)
	}
	if got := kinds(a); !equalKinds(got, []history.Kind{history.Created, history.Updated, history.Completed, history.Removed}) {
		t.Fatalf("a: %v", got)
	}
	evs, _ := s.TaskHistory(b)
	if evs[1].Changes[0].Field != "blocks" || evs[4].By.Owner != "carol" || evs[5].Changes[0].Field != "description" {
		t.Fatalf("%+v", evs)
	}
	page, err := s.History.Since("", 0)
	if err != nil || len(page.Events) != 12 {
		t.Fatalf("feed: %d events, %v", len(page.Events), err)
	}
}

func equalKinds(a, b []history.Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BenchmarkUpdateHistory is one update of a 1-field change, with and
// without the history (the added cost of recording).
func BenchmarkUpdateHistory(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			root := b.TempDir()
			s := &Store{Dir: filepath.Join(root, ".matrixx", "tasks"), Root: root, Session: "ses"}
			if on {
				withHistory(s)
			}
			req, _ := task.ParseCreate([]byte(`{"subject":"bench","description":"` + string(make([]byte, 0)) + `a task of ordinary size with a description of a few words"}`))
			res, err := s.Create(req)
			if err != nil {
				b.Fatal(err)
			}
			id := res.Tasks[0].ID
			subs := []string{"one", "two"}
			b.ResetTimer()
			for i := range b.N {
				if _, _, err := s.Update(&task.UpdateRequest{ID: id, Subject: &subs[i%2]}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
