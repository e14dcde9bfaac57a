//go:build linux

package sync

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// idleNote is what task-sync says (with MATRIXX_DEBUG) when it finds
// nothing to do and skips the locked step (docs/sync.md, "Speed").
const idleNote = "nothing changed on either side since the last sync"

// debugSync runs task-sync with MATRIXX_DEBUG=1 and reports its answer and
// whether it took the shortcut for a sync with nothing to do.
func (m *machine) debugSync() (syncAnswer, bool) {
	m.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "task-sync"))
	cmd.Dir = m.dir
	cmd.Env = append(append([]string{}, m.env...), "MATRIXX_DEBUG=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		m.t.Fatalf("%s: task-sync: %v: %s %s", m.name, err, out.String(), errb.String())
	}
	var a syncAnswer
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		m.t.Fatalf("%s: task-sync answered %q: %v", m.name, out.String(), err)
	}
	return a, strings.Contains(errb.String(), idleNote)
}

// settle waits out the stat cache's racy window (2 s: a file younger than
// that is rehashed by every sync) and syncs every machine until each one's
// next sync takes the idle shortcut: the state the shortcut must never
// mistake a change for.
func settle(t *testing.T, ms ...*machine) {
	t.Helper()
	time.Sleep(2100 * time.Millisecond)
	for _, m := range ms {
		m.sync() // records the settled stat data
	}
	for _, m := range ms {
		a, idle := m.debugSync()
		if !idle || a.Pulled+a.Pushed+a.Merged != 0 {
			t.Fatalf("%s: a sync with nothing to do did not take the idle shortcut (answer %+v, idle %v)", m.name, a, idle)
		}
	}
}

// TestIdleShortcutNeverWrong: a sync with nothing to do skips the locked
// step on the strength of its stat cache and the refs. Every change the
// shortcut could overlook is still synced by the next run: a record
// rewritten in place with the same size and its mtime put back (touch -d:
// only the ctime tells), a file added behind the toolkit's back, a file
// removed, and a remote that moved while the store stayed the same.
func TestIdleShortcutNeverWrong(t *testing.T) {
	_, ms := newMachines(t, 2)
	a, b := ms[0], ms[1]
	var created struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	a.must(&created, "", "task-create", "-s", "idle-alpha")
	if len(created.Tasks) != 1 {
		t.Fatalf("task-create answered %+v", created)
	}
	id := created.Tasks[0].ID
	a.must(nil, "", "task-create", "-s", "second")
	a.must(nil, "# Idle\n\n1. [ ] one\n", "plan", "create", "idle")
	a.sync()
	b.sync()
	rec := filepath.Join(a.dir, ".matrixx", "tasks", id+".json")

	// in-place rewrite, same size and mtime.
	{
		settle(t, a, b)
		before := statOf(t, rec)
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte("idle-alpha"))
		if i < 0 {
			t.Fatalf("the record lacks its subject: %s", data)
		}
		f, err := os.OpenFile(rec, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("idle-omega"), int64(i)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		mt := fmt.Sprintf("@%d.%09d", before.Mtim.Sec, before.Mtim.Nsec)
		if out, err := exec.Command("touch", "-m", "-d", mt, rec).CombinedOutput(); err != nil {
			t.Fatalf("touch: %v: %s", err, out)
		}
		after := statOf(t, rec)
		if after.Size != before.Size || after.Mtim != before.Mtim || after.Ino != before.Ino {
			t.Fatalf("the rewrite changed more than the ctime: %+v then %+v", before, after)
		}
		if ans, idle := a.debugSync(); idle || ans.Pushed != 1 {
			t.Fatalf("the rewritten record was not pushed: %+v (idle shortcut %v)", ans, idle)
		}
		if ans, idle := b.debugSync(); idle || ans.Pulled != 1 {
			t.Fatalf("the rewritten record was not pulled: %+v (idle shortcut %v)", ans, idle)
		}
		if !strings.Contains(b.files()["tasks/"+id+".json"], "idle-omega") {
			t.Fatalf("the other machine lacks the rewrite: %s", b.files()["tasks/"+id+".json"])
		}
	}

	// a file added behind its back.
	{
		settle(t, a, b)
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		nid := id[:len(id)-4] + "abcd"
		if nid == id {
			nid = id[:len(id)-4] + "dcba"
		}
		p := filepath.Join(a.dir, ".matrixx", "tasks", nid+".json")
		if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte(id), []byte(nid)), 0o644); err != nil {
			t.Fatal(err)
		}
		if ans, idle := a.debugSync(); idle || ans.Pushed != 1 {
			t.Fatalf("the new file was not pushed: %+v (idle shortcut %v)", ans, idle)
		}
		if ans, idle := b.debugSync(); idle || ans.Pulled != 1 {
			t.Fatalf("the new file was not pulled: %+v (idle shortcut %v)", ans, idle)
		}
		if _, ok := b.files()["tasks/"+nid+".json"]; !ok {
			t.Fatal("the other machine lacks the new file")
		}
	}

	// a file removed.
	{
		settle(t, a, b)
		if err := os.Remove(filepath.Join(a.dir, ".matrixx", "plans", "idle.md")); err != nil {
			t.Fatal(err)
		}
		if ans, idle := a.debugSync(); idle || ans.Pushed != 1 {
			t.Fatalf("the removal was not pushed: %+v (idle shortcut %v)", ans, idle)
		}
		if ans, idle := b.debugSync(); idle || ans.Pulled != 1 {
			t.Fatalf("the removal was not pulled: %+v (idle shortcut %v)", ans, idle)
		}
		if _, ok := b.files()["plans/idle.md"]; ok {
			t.Fatal("the other machine still has the removed plan")
		}
	}

	// the remote moved.
	{
		settle(t, a, b)
		a.must(nil, "", "task-update", id, "-s", "moved on")
		if ans := a.sync(); ans.Pushed != 1 {
			t.Fatalf("the update was not pushed: %+v", ans)
		}
		if ans, idle := b.debugSync(); idle || ans.Pulled != 1 {
			t.Fatalf("the remote's change was not pulled: %+v (idle shortcut %v)", ans, idle)
		}
		if !strings.Contains(b.files()["tasks/"+id+".json"], "moved on") {
			t.Fatal("the other machine lacks the remote's change")
		}
	}

	for p, c := range a.files() {
		if b.files()[p] != c {
			t.Fatalf("%s differs between the machines", p)
		}
	}
	if len(a.files()) != len(b.files()) {
		t.Fatalf("the machines hold %d and %d files", len(a.files()), len(b.files()))
	}
}

func statOf(t *testing.T, p string) syscall.Stat_t {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st
}
