package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	root := t.TempDir()
	return &Store{Dir: filepath.Join(root, ".matrixx", "tasks"), Root: root, Session: "ses_test"}
}

func create(t *testing.T, s *Store, doc string) *CreateResult {
	t.Helper()
	req, err := task.ParseCreate([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Create(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestResolve(t *testing.T) {
	def := config.Defaults()
	with := func(f func(*config.Tasks)) config.Tasks { c := def; f(&c); return c }
	tests := []struct {
		name        string
		root        string
		cfg         config.Tasks
		env         string
		dir, legacy string
		own         bool
	}{
		{"project default", "/p/my app", def, "", "/p/my app/.matrixx/tasks", "/oc/tasks/my-app", true},
		{"global", "/p/app", with(func(c *config.Tasks) { c.Scope = "global" }), "", "/oc/tasks/app", "", false},
		{"env list id", "/p/app", with(func(c *config.Tasks) { c.Scope = "global"; c.TaskListID = "cfg" }), " env/id ", "/oc/tasks/env-id", "", false},
		{"config list id", "/p/app", with(func(c *config.Tasks) { c.Scope = "global"; c.TaskListID = "cfg" }), "", "/oc/tasks/cfg", "", false},
		{"absolute storage", "/p/app", with(func(c *config.Tasks) { c.StoragePath = "/abs/store/" }), "", "/abs/store", "", false},
		{"relative storage", "/p/app", with(func(c *config.Tasks) { c.StoragePath = "../shared" }), "", "/p/shared", "", false},
		{"storage is the default", "/p/app", with(func(c *config.Tasks) { c.StoragePath = "./.matrixx/tasks/" }), "", "/p/app/.matrixx/tasks", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Resolve(tt.root, tt.cfg, tt.env, "/oc")
			if l.Dir != tt.dir || l.LegacyDir != tt.legacy || l.Own != tt.own {
				t.Fatalf("got %+v, want dir %q legacy %q own %v", l, tt.dir, tt.legacy, tt.own)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{"my-app_1": "my-app_1", "a b/c": "a-b-c", "": "default", "..": "--", "café": "caf-", "a😀b": "a--b", "\U0001F600": "--", "x\uFFFDy": "x-y", "x\xffy": "x-y"} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestResolveRootSlash: the root "/" has an empty base name in Node, so
// the list id is "default", not "-".
func TestResolveRootSlash(t *testing.T) {
	l := Resolve("/", config.Tasks{Scope: "global"}, "", "/oc")
	if l.ListID != "default" || l.Dir != "/oc/tasks/default" {
		t.Errorf("Resolve(/) = %+v", l)
	}
	if l := Resolve("/p", config.Tasks{Scope: "global"}, "\u00a0x\ufeff", "/oc"); l.ListID != "x" {
		t.Errorf("env list id not trimmed as JavaScript does: %+v", l)
	}
}

func TestCreateDedupUsesIndexAndSeesForeignFiles(t *testing.T) {
	s := newStore(t)
	first := create(t, s, `{"subject":"Build"}`).Tasks[0]
	if _, err := os.Stat(filepath.Join(s.Dir, indexDir, dedupDir, stampFile)); err != nil {
		t.Fatalf("index not written: %v", err)
	}
	again := create(t, s, `{"subject":" Build "}`).Tasks[0]
	if again.ID != first.ID || !again.Deduplicated {
		t.Fatalf("expected dedup to %s, got %+v", first.ID, again)
	}

	// A record written by another tool invalidates the index (directory mtime).
	foreign := `{"id":"T-foreign","subject":"Other","description":"","status":"pending","blocks":[],"blockedBy":[],"threadID":"x","projectRoot":"` + s.Root + `"}`
	if err := os.WriteFile(filepath.Join(s.Dir, "T-foreign.json"), []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	got := create(t, s, `{"subject":"Other"}`).Tasks[0]
	if got.ID != "T-foreign" || !got.Deduplicated {
		t.Fatalf("foreign task not found: %+v", got)
	}

	// A different project root never deduplicates.
	other := *s
	other.Root = "/elsewhere"
	if got := create(t, &other, `{"subject":"Build"}`).Tasks[0]; got.Deduplicated {
		t.Fatalf("deduplicated across projects: %+v", got)
	}
}

// TestDedupProjectRoots: in the project's own store every record is the
// project's (a moved or re-linked project keeps deduplicating); in a shared
// store the roots are compared once resolved through symbolic links (S24).
func TestDedupProjectRoots(t *testing.T) {
	s := newStore(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(s.Root, link); err != nil {
		t.Fatal(err)
	}
	record := func(id, subject, root string) {
		t.Helper()
		doc := `{"id":"` + id + `","subject":"` + subject + `","description":"","status":"pending","blocks":[],"blockedBy":[],"threadID":"x","projectRoot":"` + root + `"}`
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir, id+".json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record("T-linked", "Linked", link)
	record("T-moved", "Moved", "/old/place/of/the/project")
	record("T-other", "Other", t.TempDir())

	own := *s
	own.Own = true
	for subject, want := range map[string]string{"Linked": "T-linked", "Moved": "T-moved", "Other": "T-other"} {
		got := create(t, &own, `{"subject":"`+subject+`"}`).Tasks[0]
		if !got.Deduplicated || got.ID != want {
			t.Errorf("own store, %s: got %+v, want dedup to %q", subject, got, want)
		}
	}
	shared := *s // e.g. scope global: roots decide
	for subject, want := range map[string]string{"Linked": "T-linked", "Moved": "", "Other": ""} {
		got := create(t, &shared, `{"subject":"`+subject+`"}`).Tasks[0]
		if (want != "") != got.Deduplicated || (want != "" && got.ID != want) {
			t.Errorf("shared store, %s: got %+v, want dedup to %q", subject, got, want)
		}
	}
}

func TestDedupIndexIsOnlyAHint(t *testing.T) {
	s := newStore(t)
	first := create(t, s, `{"subject":"Build"}`).Tasks[0]
	// Complete the task behind the index's back, keeping the directory
	// mtime: an in-place rewrite. The hit must be re-checked and refused.
	path := filepath.Join(s.Dir, task.FileName(first.ID))
	data, _ := os.ReadFile(path)
	fi, _ := os.Stat(s.Dir)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), `"pending"`, `"completed"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(s.Dir, fi.ModTime(), fi.ModTime())
	if got := create(t, s, `{"subject":"Build"}`).Tasks[0]; got.Deduplicated {
		t.Fatalf("deduplicated against a completed task: %+v", got)
	}
}

// TestDedupComparesPlanItems: a plan item is identified by planName and
// planItem, not by its subject (S21).
func TestDedupComparesPlanItems(t *testing.T) {
	s := newStore(t)
	a1 := create(t, s, `{"subject":"Write tests","metadata":{"planName":"a","planItem":1}}`).Tasks[0]
	res := create(t, s, `{"items":[
		{"subject":"Write tests","metadata":{"planName":"b","planItem":1}},
		{"subject":"Docs","metadata":{"planName":"b","planItem":2}},
		{"subject":"Docs","metadata":{"planName":"b","planItem":3}},
		{"subject":"Write tests"},
		{"subject":"Write tests","metadata":{"planName":"a","planItem":"1"}},
		{"subject":"Docs","metadata":{"planItem":3,"planName":"b","note":"x"}}]}`)
	ids := map[string]bool{a1.ID: true}
	for i, c := range res.Tasks[:4] {
		if c.Deduplicated || ids[c.ID] {
			t.Fatalf("item %d deduplicated: %+v", i, res.Tasks)
		}
		ids[c.ID] = true
	}
	if got := res.Tasks[4]; !got.Deduplicated || got.ID != a1.ID {
		t.Fatalf("the same plan item (planItem \"1\" = 1) was not deduplicated: %+v", got)
	}
	if got := res.Tasks[5]; !got.Deduplicated || got.ID != res.Tasks[2].ID {
		t.Fatalf("the same plan item was not deduplicated within the batch: %+v", got)
	}
	// Without the index (rebuilt by scan) the answer is the same.
	os.RemoveAll(filepath.Join(s.Dir, indexDir))
	if got := create(t, s, `{"subject":"Docs","metadata":{"planName":"b","planItem":2}}`).Tasks[0]; got.ID != res.Tasks[1].ID {
		t.Fatalf("after a rebuild: %+v, want %s", got, res.Tasks[1].ID)
	}
	if got := create(t, s, `{"subject":"Docs"}`).Tasks[0]; got.Deduplicated {
		t.Fatalf("a task without plan keys deduplicated against plan items: %+v", got)
	}
}

// TestOldIndexIsRebuilt: an index of another version (an earlier
// format's stamp) is rebuilt, and the single-file index of earlier
// versions is removed.
func TestOldIndexIsRebuilt(t *testing.T) {
	s := newStore(t)
	first := create(t, s, `{"subject":"Docs","metadata":{"planName":"b","planItem":2}}`).Tasks[0]
	path := filepath.Join(s.Dir, indexDir, dedupDir, stampFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(data), stampMagic+" 3 ", stampMagic+" 2 ", 1)
	if old == string(data) {
		t.Fatalf("unexpected stamp: %s", data)
	}
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(s.Dir, indexDir, oldIndexFile)
	if err := os.WriteFile(legacy, []byte(`{"v":2,"dirMtimeNs":0,"entries":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	s.Log, s.LogDecisions = &log, true
	got := create(t, s, `{"subject":"Docs","metadata":{"planName":"b","planItem":2}}`).Tasks[0]
	if got.ID != first.ID || !got.Deduplicated {
		t.Fatalf("got %+v, want a dedup to %s", got, first.ID)
	}
	if !strings.Contains(log.String(), "dedup index rebuilt") {
		t.Fatalf("the old index was used: %q", log.String())
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the earlier versions' recent.json is still there: %v", err)
	}
}

func TestDedupWindow(t *testing.T) {
	s := newStore(t)
	first := create(t, s, `{"subject":"Build"}`).Tasks[0]
	old := time.Now().Add(-DedupWindow - time.Minute)
	os.Chtimes(filepath.Join(s.Dir, task.FileName(first.ID)), old, old)
	os.RemoveAll(filepath.Join(s.Dir, indexDir)) // force a rebuild from mtimes
	if got := create(t, s, `{"subject":"Build"}`).Tasks[0]; got.Deduplicated {
		t.Fatalf("deduplicated outside the window: %+v", got)
	}
}

func TestScanReportsProblems(t *testing.T) {
	s := newStore(t)
	create(t, s, `{"items":[{"subject":"a"},{"subject":"b"}]}`)
	for name, content := range map[string]string{
		"T-empty.json":   "",
		"T-broken.json":  "{",
		"T-foreign.json": `{"hello":"world"}`,
		"T-other.json":   `{"id":"T-else","subject":"s","description":"","status":"pending"}`,
		"README.md":      "not a task",
	} {
		os.WriteFile(filepath.Join(s.Dir, name), []byte(content), 0o644)
	}
	snap, err := s.Scan(ScanOptions{Mtime: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Entries) != 2 || snap.Entries[0].ModTime.IsZero() {
		t.Fatalf("entries: %+v", snap.Entries)
	}
	var files []string
	for _, p := range snap.Problems {
		files = append(files, p.File)
	}
	if strings.Join(files, ",") != "T-broken.json,T-empty.json,T-foreign.json,T-other.json" {
		t.Fatalf("problems: %+v", snap.Problems)
	}
}

func TestWriteRefusedAfterLosingTheLock(t *testing.T) {
	s := newStore(t)
	id := create(t, s, `{"subject":"a"}`).Tasks[0].ID
	path := filepath.Join(s.Dir, task.FileName(id))
	before, _ := os.ReadFile(path)
	err := s.transact(func(tx *txn) error {
		// Someone evicted us and took the lock (we were paused past 30 s).
		os.WriteFile(filepath.Join(s.Dir, ".lock"), []byte(`{"id":"successor","timestamp":1}`), 0o644)
		t2, _ := s.Get(id)
		t2.Status = task.Completed
		return tx.write(t2)
	})
	if errcode.Of(err) != errcode.TaskLockUnavailable {
		t.Fatalf("err = %v, want task_lock_unavailable", err)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Fatalf("the record was overwritten after the lock was lost")
	}
	lock, _ := os.ReadFile(filepath.Join(s.Dir, ".lock"))
	if !strings.Contains(string(lock), "successor") {
		t.Fatalf("the successor's lock was removed: %s", lock)
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temp file left behind: %s", e.Name())
		}
	}
}

func TestUpdateCycleAndNotFound(t *testing.T) {
	s := newStore(t)
	a := create(t, s, `{"subject":"a"}`).Tasks[0].ID
	b := create(t, s, `{"subject":"b","blockedBy":["`+a+`"]}`).Tasks[0].ID
	req, _ := task.ParseUpdate([]byte(`{"id":"` + a + `","addBlockedBy":["` + b + `"]}`))
	if _, _, err := s.Update(req); errcode.Of(err) != errcode.DependencyCycle {
		t.Fatalf("err = %v, want dependency_cycle", err)
	}
	req, _ = task.ParseUpdate([]byte(`{"id":"T-nope","status":"completed"}`))
	if _, _, err := s.Update(req); errcode.Of(err) != errcode.TaskNotFound {
		t.Fatalf("err = %v, want task_not_found", err)
	}
	missing := &Store{Dir: filepath.Join(t.TempDir(), "none"), Root: "/"}
	if _, _, err := missing.Update(req); errcode.Of(err) != errcode.TaskNotFound {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(missing.Dir); !os.IsNotExist(err) {
		t.Fatalf("update of a missing task created the directory")
	}
}

// TestUpdateWithoutChangeDoesNotWrite: no fields, or only the values the
// record has, leave the file and its mtime alone (S14) and the dedup index
// valid; a real change writes.
func TestUpdateWithoutChangeDoesNotWrite(t *testing.T) {
	s := newStore(t)
	x := create(t, s, `{"subject":"x"}`).Tasks[0].ID
	id := create(t, s, `{"subject":"a","owner":"o","blockedBy":["`+x+`"],"metadata":{"k":1}}`).Tasks[0].ID
	path := filepath.Join(s.Dir, task.FileName(id))
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	var log strings.Builder
	s.Log, s.LogDecisions = &log, true
	for _, doc := range []string{
		`{"id":"` + id + `"}`,
		`{"id":"` + id + `","status":"pending","subject":"a","owner":"o","addBlockedBy":["` + x + `"],"metadata":{"k":1,"gone":null}}`,
	} {
		req, err := task.ParseUpdate([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		got, changed, err := s.Update(req)
		if err != nil || changed || got.ID != id || got.Owner != "o" {
			t.Fatalf("%s: %+v changed=%v err=%v", doc, got, changed, err)
		}
		fi, _ := os.Stat(path)
		after, _ := os.ReadFile(path)
		if !fi.ModTime().Equal(old) || string(after) != string(before) {
			t.Fatalf("%s: the file was written (mtime %v)", doc, fi.ModTime())
		}
	}
	if got := create(t, s, `{"subject":"b"}`); len(got.Tasks) != 1 || strings.Contains(log.String(), "rebuilt") {
		t.Fatalf("the dedup index was invalidated by a no-op update: %q", log.String())
	}
	req, _ := task.ParseUpdate([]byte(`{"id":"` + id + `","owner":"p"}`))
	if _, changed, err := s.Update(req); err != nil || !changed {
		t.Fatalf("a real change: changed=%v err=%v", changed, err)
	}
	if fi, _ := os.Stat(path); fi.ModTime().Equal(old) {
		t.Fatal("a real change did not write")
	}
}

func TestCleanupSelection(t *testing.T) {
	s := newStore(t)
	res := create(t, s, `{"items":[{"subject":"done-old"},{"subject":"done-new"},{"subject":"gone"},{"subject":"idle"},{"subject":"blocker"}]}`)
	ids := map[string]string{}
	for _, c := range res.Tasks {
		ids[c.Subject] = c.ID
	}
	create(t, s, `{"subject":"dependent","blockedBy":["`+ids["blocker"]+`"]}`)
	set := func(subject, status string) {
		req, _ := task.ParseUpdate([]byte(`{"id":"` + ids[subject] + `","status":"` + status + `"}`))
		if _, _, err := s.Update(req); err != nil {
			t.Fatal(err)
		}
	}
	set("done-old", "completed")
	set("done-new", "completed")
	set("gone", "deleted")
	set("blocker", "completed")
	old := time.Now().Add(-48 * time.Hour)
	for _, n := range []string{"done-old", "idle"} {
		os.Chtimes(filepath.Join(s.Dir, task.FileName(ids[n])), old, old)
	}
	s.StaleAfter = 24 * time.Hour
	tests := []struct {
		req  string
		want []string
		kept []string
	}{
		{`{"dryRun":true}`, []string{"done-old", "done-new"}, []string{"blocker"}},
		{`{"dryRun":true,"olderThan":"24h"}`, []string{"done-old"}, nil},
		{`{"dryRun":true,"includeDeleted":true}`, []string{"done-old", "done-new", "gone"}, []string{"blocker"}},
		{`{"dryRun":true,"stale":true,"olderThan":"24h"}`, []string{"done-old", "idle"}, nil},
	}
	for _, tt := range tests {
		req, err := task.ParseCleanup([]byte(tt.req))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Cleanup(req, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range tt.want {
			want = append(want, ids[n])
		}
		if strings.Join(res.DeletedIDs, ",") != strings.Join(sorted(want), ",") {
			t.Errorf("%s: deleted %v, want %v", tt.req, res.DeletedIDs, tt.want)
		}
		if len(res.KeptBlockers) != len(tt.kept) {
			t.Errorf("%s: kept %v, want %v", tt.req, res.KeptBlockers, tt.kept)
		}
	}
}

// TestCleanupKeepsOpenPlanItems: a completed task whose plan item is still
// open stays (S22); a blocker that is both is reported as a blocker.
func TestCleanupKeepsOpenPlanItems(t *testing.T) {
	s := newStore(t)
	res := create(t, s, `{"items":[{"subject":"open"},{"subject":"ticked"},{"subject":"both"},{"subject":"plain"}]}`)
	ids := map[string]string{}
	for _, c := range res.Tasks {
		ids[c.Subject] = c.ID
		req, _ := task.ParseUpdate([]byte(`{"id":"` + c.ID + `","status":"completed"}`))
		if _, _, err := s.Update(req); err != nil {
			t.Fatal(err)
		}
	}
	create(t, s, `{"subject":"waits","blockedBy":["`+ids["both"]+`"]}`)
	open := func(tk *task.Task) bool { return tk.Subject == "open" || tk.Subject == "both" }
	for _, dry := range []bool{true, false} {
		res, err := s.Cleanup(&task.CleanupRequest{DryRun: dry}, open)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(res.KeptPlanItems, ",") != ids["open"] || strings.Join(res.KeptBlockers, ",") != ids["both"] {
			t.Errorf("dry run %v: kept plan items %v, blockers %v", dry, res.KeptPlanItems, res.KeptBlockers)
		}
		if strings.Join(res.DeletedIDs, ",") != strings.Join(sorted([]string{ids["ticked"], ids["plain"]}), ",") || res.Remaining != 3 {
			t.Errorf("dry run %v: deleted %v, remaining %d", dry, res.DeletedIDs, res.Remaining)
		}
	}
	if tk, _ := s.Get(ids["open"]); tk == nil {
		t.Fatal("the task of an open plan item was deleted")
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestLongTransactionRenewsTheLock: a transaction running longer than a
// third of the stale threshold renews .lock's timestamp before its next
// write, so writers without the kernel lock never take it for dead.
func TestLongTransactionRenewsTheLock(t *testing.T) {
	s := newStore(t)
	id := create(t, s, `{"subject":"a"}`).Tasks[0].ID
	err := s.transact(func(tx *txn) error {
		stamp := func() string {
			b, _ := os.ReadFile(filepath.Join(s.Dir, ".lock"))
			return string(b)
		}
		before := stamp()
		tx.refreshed = time.Now().Add(-time.Minute) // pretend we have been busy
		time.Sleep(2 * time.Millisecond)
		tk, _ := tx.get(id)
		if err := tx.write(tk); err != nil {
			return err
		}
		after := stamp()
		if after == before || !strings.Contains(after, tx.l.ID()) {
			t.Errorf(".lock not renewed: before %s after %s", before, after)
		}
		return tx.l.Check()
	})
	if err != nil {
		t.Fatal(err)
	}
}
