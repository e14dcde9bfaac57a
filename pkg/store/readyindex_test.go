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

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestReadyLineCodec: what a line prints parses back; odd lines do not
// parse (the index is then rebuilt).
func TestReadyLineCodec(t *testing.T) {
	for _, l := range []readyLine{
		{id: "T-1", class: 'r', rank: 2, owner: "-", exp: -1, parent: "-", blockers: "-"},
		{id: "T-019a0000-0000-7000-8000-000000000000", class: 'b', rank: 0, owner: ownerHash("w 1"), exp: -1, parent: "T-2", blockers: "T-3,T-4"},
		{id: "T-5", class: 'p', rank: 3, owner: ownerHash("x"), exp: 1764600000123, parent: "-", blockers: "-"},
	} {
		s := l.String()
		back, ok := parseReadyLine(strings.TrimSuffix(s, "\n"))
		if !ok || back != l {
			t.Errorf("%q parsed back as %+v %v", s, back, ok)
		}
	}
	for _, bad := range []string{"", "T-1 r 2 - - -", "T-1 q 2 - - - -", "T-1 r 9 - - - -", "../x r 2 - - - -", "T-1 p 2 - 12x - -", "T-1 r 2 abc - - -", "T-1 r 2 - - - "} {
		if _, ok := parseReadyLine(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// claimNextT claims the next ready task for owner with lease.
func claimNextT(t *testing.T, s *Store, owner string, lease time.Duration) *task.Task {
	t.Helper()
	got, err := s.Claim(ClaimRequest{Owner: owner, Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestReadyIndexNeverWrong drives a store through random creates (with
// blockers, parents, owners and priorities), updates, claims with leases
// that expire on a fake clock, cleanups, records replaced behind the
// store's back and damaged index files, and checks every claim without id
// against a full scan: it takes exactly the first task of NextOrder, or
// nothing when NextOrder is empty. Most claims must be served by the
// index without a rebuild, and the log must be folded into the base along
// the way.
func TestReadyIndexNeverWrong(t *testing.T) {
	s := newStore(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	var log strings.Builder
	s.Log, s.LogDecisions = &log, true
	r := rand.New(rand.NewPCG(3, 4))
	// Small chunks: a walk reads the base in many pieces, cut mid-line.
	s.Ready = ReadyTuning{Chunk: 100, FoldAt: 2 << 10}
	owners := []string{"", "w1", "w2"}
	var ids []string
	pick := func() string { return ids[r.IntN(len(ids))] }
	readyDirPath := filepath.Join(s.Dir, indexDir, readyDir)
	claims, served := 0, 0
	checked, refusedN := 0, 0 // completions checked, and refused
	for step := range 700 {
		now = now.Add(time.Duration(r.IntN(int(20 * time.Second))))
		switch op := r.IntN(40); {
		case op < 14 || len(ids) < 3:
			doc := fmt.Sprintf(`{"subject":"task %d"`, step)
			if len(ids) > 0 && r.IntN(3) == 0 {
				doc += `,"blockedBy":["` + pick() + `"]`
			}
			if len(ids) > 0 && r.IntN(5) == 0 {
				doc += `,"parentID":"` + pick() + `"`
			}
			if o := owners[r.IntN(len(owners))]; o != "" && r.IntN(3) == 0 {
				doc += `,"owner":"` + o + `"`
			}
			if r.IntN(3) == 0 {
				doc += `,"priority":"` + []string{"low", "medium", "high"}[r.IntN(3)] + `"`
			}
			req, err := task.ParseCreate([]byte(doc + "}"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Create(req)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Tasks {
				ids = append(ids, c.ID)
			}
		case op < 24:
			id := pick()
			var doc string
			switch r.IntN(4) {
			case 0, 1:
				doc = `{"id":"` + id + `","status":"` + []string{"pending", "in_progress", "completed", "deleted", "completed"}[r.IntN(5)] + `"}`
			case 2:
				doc = `{"id":"` + id + `","addBlockedBy":["` + pick() + `"]}`
			default:
				doc = `{"id":"` + id + `","priority":"high"}`
			}
			req, err := task.ParseUpdate([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			// A completion is refused exactly when a scan finds active
			// subtasks (the ready index answers it), naming them.
			var kids []string
			completing := false
			if req.Status != nil && *req.Status == task.Completed {
				snap, err := s.Scan(ScanOptions{ListFields: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range snap.Entries {
					if e.Task.ID == id && e.Task.Status != task.Completed {
						completing = true
					}
				}
				kids = task.ActiveChildren(snap.Tasks())[id]
			}
			// Refusals (a cycle, a parent with active subtasks) write nothing.
			_, _, err = s.Update(req)
			if completing {
				refused := errcode.Of(err) == errcode.ChildrenActive
				if refused != (len(kids) > 0) {
					t.Fatalf("step %d: completing %s with active subtasks %v: %v", step, id, kids, err)
				}
				if refused && !strings.Contains(err.Error(), strings.Join(kids[:min(len(kids), 10)], ", ")) {
					t.Fatalf("step %d: %v does not name %v", step, err, kids)
				}
				checked++
				if refused {
					refusedN++
				}
			}
		case op < 36:
			owner := owners[1+r.IntN(2)]
			snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
			if err != nil {
				t.Fatal(err)
			}
			want := NextOrder(snap, owner, now)
			before := strings.Count(log.String(), "ready index rebuilt")
			got := claimNextT(t, s, owner, time.Duration(1+r.IntN(120))*time.Second)
			claims++
			if strings.Count(log.String(), "ready index rebuilt") == before {
				served++
			}
			switch {
			case len(want) == 0 && got != nil:
				t.Fatalf("step %d: claimed %s, but nothing is ready", step, got.ID)
			case len(want) > 0 && got == nil:
				t.Fatalf("step %d: nothing claimed, want %s (of %v)", step, want[0], want)
			case len(want) > 0 && got.ID != want[0]:
				t.Fatalf("step %d: claimed %s, want %s (of %v)", step, got.ID, want[0], want)
			}
		case op < 37:
			if _, err := s.Cleanup(&task.CleanupRequest{IncludeDeleted: true}, nil); err != nil {
				t.Fatal(err)
			}
			ids = slices.DeleteFunc(ids, func(id string) bool { return !exists(filepath.Join(s.Dir, task.FileName(id))) })
		case op < 38:
			// Another program replaces a record (write a temp file, rename):
			// the stamp sees it.
			id := pick()
			tk, err := s.Get(id)
			if err != nil || tk == nil {
				continue
			}
			tk.Status = []task.Status{task.Pending, task.Completed}[r.IntN(2)]
			tk.Owner = ""
			claim.Clear(tk)
			data, err := task.Encode(tk)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(s.Dir, task.FileName(id))
			if err := os.WriteFile(p+".tmp", data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".tmp", p); err != nil {
				t.Fatal(err)
			}
		default:
			// A damaged index: a torn line at the end of the log, no base,
			// or a base cut short (its header says how long it is).
			switch r.IntN(3) {
			case 0:
				f, err := os.OpenFile(filepath.Join(readyDirPath, readyLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err == nil {
					f.WriteString("T-torn r 2")
					f.Close()
				}
			case 1:
				p := filepath.Join(readyDirPath, readyBaseFile)
				if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
					os.Truncate(p, r.Int64N(fi.Size()))
				}
			default:
				os.Remove(filepath.Join(readyDirPath, readyBaseFile))
				// the log then names tasks the base lost: only a rebuild is right
				os.Remove(filepath.Join(readyDirPath, readyStampFile))
			}
		}
	}
	folds := strings.Count(log.String(), "ready index compacted")
	t.Logf("%d claims, %d served without a rebuild, %d compactions, %d tasks; %d completions checked, %d refused", claims, served, folds, len(ids), checked, refusedN)
	if refusedN == 0 || refusedN == checked {
		t.Errorf("%d of %d completions refused: the test does not reach both sides of the subtask rule", refusedN, checked)
	}
	if folds == 0 {
		t.Errorf("the log was never folded into the base: the test does not reach compaction")
	}
	if served < claims/2 {
		t.Errorf("only %d of %d claims were served by the index without a rebuild", served, claims)
	}
}

// TestReadyIndexStampSeesMoves: a record rewritten in place behind the
// index (no directory change) is refused by the check under the lock, and
// the disagreement makes the claim scan before it answers nothing; an
// index moved with its files into another directory given the same mtime
// is not trusted (the stamp holds the directory's inode and ctime, which
// no copy or move can carry).
func TestReadyIndexStampSeesMoves(t *testing.T) {
	s := newStore(t)
	var log strings.Builder
	s.Log, s.LogDecisions = &log, true
	res := create(t, s, `{"items":[{"subject":"a"},{"subject":"b"}]}`)
	a, b := res.Tasks[0].ID, res.Tasks[1].ID
	if got := claimNextT(t, s, "w1", time.Hour); got == nil || got.ID != a {
		t.Fatalf("first claim: %+v", got)
	}
	// b is claimed in place by another program (no rename).
	tk, _ := s.Get(b)
	tk.Status, tk.Owner = task.InProgress, "other"
	claim.Set(tk, &claim.Claim{Owner: "other", ClaimedAt: claim.Stamp(time.Now())})
	data, _ := task.Encode(tk)
	if err := os.WriteFile(filepath.Join(s.Dir, task.FileName(b)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if got := claimNextT(t, s, "w1", time.Hour); got != nil {
		t.Fatalf("claimed %s held by another program", got.ID)
	}
	// The mismatch was seen, so "nothing ready" came from a scan.
	if !strings.Contains(log.String(), "ready index rebuilt") {
		t.Errorf("no rescan before answering nothing: %s", log.String())
	}
	log.Reset()
	if got := claimNextT(t, s, "w1", time.Hour); got != nil {
		t.Fatalf("claimed %s", got.ID)
	}
	if strings.Contains(log.String(), "rebuilt") {
		t.Errorf("a valid index was rebuilt: %s", log.String())
	}
	// Same content in another directory, same mtimes: a copy. The copy's
	// index must not be trusted.
	copyDir := filepath.Join(t.TempDir(), "tasks")
	if err := os.Rename(s.Dir, copyDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	des, _ := os.ReadDir(copyDir)
	for _, de := range des {
		if err := os.Rename(filepath.Join(copyDir, de.Name()), filepath.Join(s.Dir, de.Name())); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := os.Stat(copyDir)
	os.Chtimes(s.Dir, st.ModTime(), st.ModTime())
	log.Reset()
	claimNextT(t, s, "w1", time.Hour)
	if !strings.Contains(log.String(), "ready index rebuilt") {
		t.Errorf("the moved index was trusted: %s", log.String())
	}
}

// TestReadyIndexWriteCost: a write appends one line to the log and
// rewrites the stamp; the base is left alone.
func TestReadyIndexWriteCost(t *testing.T) {
	s := newStore(t)
	create(t, s, `{"items":[{"subject":"a"},{"subject":"b"},{"subject":"c"}]}`)
	claimNextT(t, s, "w1", time.Hour) // builds the index
	dir := filepath.Join(s.Dir, indexDir, readyDir)
	base, _ := os.Stat(filepath.Join(dir, readyBaseFile))
	logBefore, _ := os.ReadFile(filepath.Join(dir, readyLogFile))
	id := create(t, s, `{"subject":"d"}`).Tasks[0].ID
	logAfter, _ := os.ReadFile(filepath.Join(dir, readyLogFile))
	added := strings.TrimPrefix(string(logAfter), string(logBefore))
	if strings.Count(added, "\n") != 1 || !strings.HasPrefix(added, id+" r ") {
		t.Errorf("a create appended %q", added)
	}
	if base2, _ := os.Stat(filepath.Join(dir, readyBaseFile)); !os.SameFile(base, base2) || base.ModTime() != base2.ModTime() {
		t.Errorf("a create rewrote the base")
	}
	if got := claimNextT(t, s, "w2", time.Hour); got == nil {
		t.Errorf("nothing claimed")
	}
}

// blockerAndSubtask creates a, b blocked by a, p, and c a subtask of p.
func blockerAndSubtask(t *testing.T, s *Store) (a, b, p, c string) {
	t.Helper()
	a = create(t, s, `{"subject":"a"}`).Tasks[0].ID
	b = create(t, s, `{"subject":"b","blockedBy":["`+a+`"]}`).Tasks[0].ID
	p = create(t, s, `{"subject":"p"}`).Tasks[0].ID
	c = create(t, s, `{"subject":"c","parentID":"`+p+`"}`).Tasks[0].ID
	return a, b, p, c
}

// wantNext claims the next ready task for w1 and fails unless it is id
// ("": nothing).
func wantNext(t *testing.T, s *Store, id string) {
	t.Helper()
	got := claimNextT(t, s, "w1", time.Hour)
	switch {
	case id == "" && got != nil:
		t.Fatalf("claimed %s, want nothing", got.ID)
	case id != "" && (got == nil || got.ID != id):
		t.Fatalf("claimed %+v, want %s", got, id)
	}
}

// TestReadyIndexFollowsBlockersAndSubtasks: without a rebuild, a task
// becomes claimable when its blocker's completion is logged, and a parent
// only once its subtasks are done.
func TestReadyIndexFollowsBlockersAndSubtasks(t *testing.T) {
	s, log := newStore(t), &strings.Builder{}
	s.Log, s.LogDecisions = log, true
	a, b, p, c := blockerAndSubtask(t, s)
	want := func(id string) { t.Helper(); wantNext(t, s, id) }
	want(a) // builds the index; b is blocked, p has an active subtask
	log.Reset()
	want(c)
	want("")
	update(t, s, `{"id":"`+a+`","status":"completed"}`)
	want(b)
	update(t, s, `{"id":"`+c+`","status":"completed"}`)
	want(p)
	if strings.Contains(log.String(), "rebuilt") {
		t.Errorf("the index was rebuilt: %s", log.String())
	}
}

// TestReadyIndexFoldKeepsBlockersAndSubtasks: folding the log into the
// base (here at every claim) turns a blocked line whose blocker the log
// completed into a ready one, and keeps the lines that name a parent: the
// parent is not claimed while its subtask is active.
func TestReadyIndexFoldKeepsBlockersAndSubtasks(t *testing.T) {
	s, log := newStore(t), &strings.Builder{}
	s.Log, s.LogDecisions = log, true
	a, b, p, c := blockerAndSubtask(t, s)
	want := func(id string) { t.Helper(); wantNext(t, s, id) }
	want(a) // builds the index: b is blocked, p has an active subtask
	update(t, s, `{"id":"`+a+`","status":"completed"}`)
	s.Ready.FoldAt = 1 // fold at every claim
	log.Reset()
	want(b) // the fold settled b's line: its blocker is completed
	want(c) // the fold kept c's line among the parent lines
	update(t, s, `{"id":"`+c+`","status":"completed"}`)
	want(p)
	if n := strings.Count(log.String(), "ready index compacted"); n < 3 || strings.Contains(log.String(), "rebuilt") {
		t.Errorf("want folds and no rebuild: %s", log.String())
	}
}
