//go:build linux

package fault

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// TestKillWriters kills task-create and task-update processes with SIGKILL
// at random moments (before, while waiting for, while holding and after
// releasing the lock), hundreds of times, from four workers at once. It
// then requires: every T-*.json decodes strictly with the id of its name
// (so no temp file was taken for a task and no file is half-written), the
// lock is recovered (the lock budget is 5 s, far below the 30 s stale rule,
// so a .lock left by a killed holder must be evicted at once through its
// flock mark), every update acknowledged before the kill (exit 0 and the
// answer read) is in the record, and every acknowledged create exists.
// Temp files left by killed writers are swept by task-cleanup once old.
func TestKillWriters(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	var seed []string
	for i := range 8 {
		seed = append(seed, p.create(fmt.Sprintf(`{"subject":"Seed %d","description":%q}`, i, strings.Repeat("context ", 200))))
	}
	// Lock budget far below the 30 s stale rule: a .lock left by a killed
	// holder must be evicted through its flock mark, or calls fail.
	env := []string{"MATRIXX_LOCK_TIMEOUT_MS=5000"}

	// Typical duration of one call, to spread the kills over it.
	var durations []time.Duration
	for range 5 {
		t0 := time.Now()
		p.mustCall("task-update", fmt.Sprintf(`{"id":%q,"metadata":{"warm":true}}`, seed[0]))
		durations = append(durations, time.Since(t0))
	}
	slices.Sort(durations)
	typical := durations[len(durations)/2]

	const workers = 4
	kills := 300 * scale()
	type ack struct{ id, key string }
	var (
		mu           sync.Mutex
		acked        []ack
		created      []string
		killed       int
		heldAtDeath  int
		lockFailures []string
		otherErrors  []string
	)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for i := 0; ; i++ {
				mu.Lock()
				done := killed >= kills || len(lockFailures)+len(otherErrors) > 10
				mu.Unlock()
				if done {
					return
				}
				var name, doc string
				key := fmt.Sprintf("w%d-%d", w, i)
				id := seed[r.IntN(len(seed))]
				switch n := r.IntN(10); {
				case n < 6:
					name, doc = "task-update", fmt.Sprintf(`{"id":%q,"metadata":{%q:%d}}`, id, key, i)
				case n < 9:
					name, doc = "task-create", fmt.Sprintf(`{"subject":"Killed create %s","blockedBy":[%q]}`, key, id)
				default:
					name, doc = "task-create", fmt.Sprintf(`{"items":[{"subject":"Batch %s a"},{"subject":"Batch %s b"},{"subject":"Batch %s c"}]}`, key, key, key)
				}
				c := p.cmd(name, env)
				c.Stdin = strings.NewReader(doc)
				var out, errb bytes.Buffer
				c.Stdout, c.Stderr = &out, &errb
				if err := c.Start(); err != nil {
					t.Error(err)
					return
				}
				// Two thirds of the calls are killed somewhere in their
				// first 1.5 typical durations; the rest run to completion.
				doKill := r.IntN(3) < 2
				var timer *time.Timer
				if doKill {
					delay := time.Duration(r.Int64N(int64(typical*3/2) + 1))
					timer = time.AfterFunc(delay, func() { _ = c.Process.Kill() })
				}
				_ = c.Wait()
				if timer != nil {
					timer.Stop()
				}
				ps := c.ProcessState
				mu.Lock()
				switch {
				case ps.Success():
					switch name {
					case "task-update":
						acked = append(acked, ack{id, key})
					default:
						var ans struct {
							Tasks []struct {
								ID string `json:"id"`
							} `json:"tasks"`
						}
						if err := json.Unmarshal(out.Bytes(), &ans); err != nil || len(ans.Tasks) == 0 {
							otherErrors = append(otherErrors, fmt.Sprintf("%s: unreadable answer %q", name, out.Bytes()))
						}
						for _, tk := range ans.Tasks {
							created = append(created, tk.ID)
						}
					}
				case !ps.Exited(): // killed by the signal
					killed++
					if holder := lockHolderPID(p.dir()); holder == ps.Pid() {
						heldAtDeath++
					}
				default:
					res := result{code: ps.ExitCode(), stdout: out.Bytes(), stderr: errb.Bytes()}
					if res.errorCode() == "task_lock_unavailable" {
						lockFailures = append(lockFailures, res.String())
					} else {
						otherErrors = append(otherErrors, name+": "+res.String())
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls killed (%d while holding .lock), %d updates and %d creates acknowledged; typical call %v",
		killed, heldAtDeath, len(acked), len(created), typical.Round(time.Microsecond))
	for _, f := range lockFailures {
		t.Errorf("lock not recovered: %s", f)
	}
	for _, e := range otherErrors {
		t.Errorf("unexpected failure: %s", e)
	}

	st := validateStore(t, p.dir())
	lost := 0
	for _, a := range acked {
		rec := st.records[a.id]
		if rec == nil {
			t.Fatalf("task %s vanished", a.id)
		}
		if _, ok := rec.Metadata[a.key]; !ok {
			lost++
			t.Errorf("acknowledged update %s of %s is missing", a.key, a.id)
		}
	}
	for _, id := range created {
		if st.records[id] == nil {
			lost++
			t.Errorf("acknowledged create %s is missing", id)
		}
	}
	t.Logf("%d records valid, %d temp files left, .lock present: %v, lost acknowledged writes: %d",
		len(st.records), len(st.temps), st.lock, lost)

	// The lock is recovered: a create with default settings succeeds even
	// when the last kill left a .lock behind.
	id := p.create(`{"subject":"After the storm"}`)
	if p.get(id).Subject != "After the storm" {
		t.Fatal("create after the storm did not stick")
	}
	if _, err := os.Stat(filepath.Join(p.dir(), ".lock")); err == nil {
		t.Error(".lock still present after a successful create")
	}

	// The dedup index is a cache written in place without fsync: nothing
	// but its directory should be in .index.
	if idx, err := os.ReadDir(filepath.Join(p.dir(), ".index")); err == nil {
		for _, e := range idx {
			if e.Name() != "dedup" {
				t.Logf("left in .index: %s", e.Name())
			}
		}
	}

	// Temp files of killed writers are swept by task-cleanup once older
	// than the stale threshold.
	if len(st.temps) > 0 {
		old := time.Now().Add(-time.Minute)
		for _, name := range st.temps {
			_ = os.Chtimes(filepath.Join(p.dir(), name), old, old)
		}
		r := p.mustCall("task-cleanup", "", "--older-than", "9999d")
		var ans struct {
			SweptTemps []string `json:"sweptTemps"`
		}
		if err := json.Unmarshal(r.stdout, &ans); err != nil {
			t.Fatal(err)
		}
		after := validateStore(t, p.dir())
		if len(after.temps) > 0 {
			t.Errorf("temp files left after task-cleanup: %v (swept %v)", after.temps, ans.SweptTemps)
		}
		slices.Sort(ans.SweptTemps)
		t.Logf("task-cleanup swept %d temp files", len(ans.SweptTemps))
	}
}

// lockHolderPID returns the pid recorded in dir/.lock, or 0.
func lockHolderPID(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return 0
	}
	var rec struct {
		PID int `json:"pid"`
	}
	if json.Unmarshal(data, &rec) != nil {
		return 0
	}
	return rec.PID
}
