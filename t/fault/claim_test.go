//go:build linux

package fault

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Sizes of the claim proofs: the CI size, and the size under
// `make stress` (FAULT_SCALE=10).
func claimSizes() (racers, rounds, workers, tasks int) {
	if scale() >= 10 {
		return 32, 100, 64, 2000
	}
	return 32, 3, 8, 60
}

// claimAnswer decodes task-claim's answer.
func claimAnswer(t testing.TB, r result) *task.Task {
	t.Helper()
	var ans struct {
		Task *task.Task `json:"task"`
	}
	if err := json.Unmarshal(r.stdout, &ans); err != nil {
		t.Fatalf("task-claim answer: %v\n%s", err, r)
	}
	return ans.Task
}

// readRecord reads a record straight from disk (the test's own view,
// independent of the binaries).
func readRecord(t testing.TB, dir, id string) *task.Task {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, task.FileName(id)))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := task.DecodeRecord(data)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return rec
}

// TestClaimRace: 32 processes claim the same task at once, round after
// round. Exactly one wins each round, every loser answers claim_conflict
// (exit 1), and the store stays valid with the winner as owner.
func TestClaimRace(t *testing.T) {
	racers, rounds, _, _ := claimSizes()
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	for round := range rounds {
		id := p.create(fmt.Sprintf(`{"subject":"contested %d"}`, round))
		cmds := make([]*exec.Cmd, racers)
		outs := make([]*strings.Builder, racers)
		for i := range cmds {
			outs[i] = &strings.Builder{}
			cmds[i] = p.cmd("task-claim", []string{"MATRIXX_SESSION_ID=race"}, id, "--owner", fmt.Sprintf("racer-%d", i))
			cmds[i].Stdout = outs[i]
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		winners := []string{}
		for i, c := range cmds {
			err := c.Wait()
			r := result{stdout: []byte(outs[i].String())}
			if ee, ok := err.(*exec.ExitError); ok {
				r.code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			switch {
			case r.code == 0:
				if got := claimAnswer(t, r); got == nil || got.Owner != fmt.Sprintf("racer-%d", i) {
					t.Fatalf("round %d: racer %d won with a wrong answer: %s", round, i, r)
				}
				winners = append(winners, fmt.Sprintf("racer-%d", i))
			case r.code == 1 && r.errorCode() == "claim_conflict":
			default:
				t.Fatalf("round %d: racer %d: want a win or claim_conflict, got %s", round, i, r)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners %v, want exactly 1", round, len(winners), winners)
		}
		st := validateStore(t, p.dir())
		rec := st.records[id]
		if rec.Status != task.InProgress || rec.Owner != winners[0] || claim.Of(rec).Owner != winners[0] {
			t.Fatalf("round %d: the record says %s/%s, the winner was %s", round, rec.Status, rec.Owner, winners[0])
		}
	}
	t.Logf("%d rounds of %d racers: exactly one winner each", rounds, racers)
}

// TestClaimDrain: workers drain a queue with dependencies through
// `task-claim --owner W` in a loop, completing each task. Every task is
// claimed exactly once and completed; no task is claimed before its
// blockers completed: right after a claim its blockers are completed on
// disk, and right before a worker completes a task none of the tasks that
// wait for it has been claimed.
func TestClaimDrain(t *testing.T) {
	_, _, workers, n := claimSizes()
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	r := rand.New(rand.NewPCG(uint64(n), 7))
	var ids []string
	deps := map[string][]string{}
	for len(ids) < n {
		var items []map[string]any
		for range min(10, n-len(ids)) {
			it := map[string]any{"subject": fmt.Sprintf("job %d", len(ids)+len(items))}
			if len(ids) > 0 && r.IntN(2) == 0 {
				var bs []string
				for range 1 + r.IntN(2) {
					b := ids[max(0, len(ids)-1-r.IntN(60))%len(ids)]
					if !slices.Contains(bs, b) {
						bs = append(bs, b)
					}
				}
				it["blockedBy"] = bs
			}
			if r.IntN(5) == 0 {
				it["priority"] = []string{"high", "medium", "low"}[r.IntN(3)]
			}
			items = append(items, it)
		}
		doc, _ := json.Marshal(map[string]any{"items": items})
		res := p.mustCall("task-create", string(doc))
		var ans struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		}
		if err := json.Unmarshal(res.stdout, &ans); err != nil || len(ans.Tasks) != len(items) {
			t.Fatalf("create: %v %s", err, res)
		}
		for i, c := range ans.Tasks {
			ids = append(ids, c.ID)
			if bs, ok := items[i]["blockedBy"].([]string); ok {
				deps[c.ID] = bs
			}
		}
	}
	var mu sync.Mutex
	claims := map[string][]string{} // id → workers that claimed it
	completed := 0
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	fail := func(format string, args ...any) {
		select {
		case errs <- fmt.Sprintf(format, args...):
		default:
		}
	}
	start := time.Now()
	deadline := start.Add(20 * time.Minute)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("W%d", w)
			for time.Now().Before(deadline) {
				res := p.call("task-claim", "", []string{"MATRIXX_SESSION_ID=drain-" + owner}, "--owner", owner)
				if res.code != 0 {
					fail("%s: task-claim: %s", owner, res)
					return
				}
				got := claimAnswer(t, res)
				if got == nil {
					mu.Lock()
					done := completed == n
					mu.Unlock()
					if done {
						return
					}
					time.Sleep(20 * time.Millisecond) // others still hold blockers
					continue
				}
				mu.Lock()
				claims[got.ID] = append(claims[got.ID], owner)
				mu.Unlock()
				for _, b := range deps[got.ID] {
					if st := readRecord(t, p.dir(), b).Status; st != task.Completed {
						fail("%s claimed %s while its blocker %s was %s", owner, got.ID, b, st)
					}
				}
				for _, x := range readRecord(t, p.dir(), got.ID).Blocks {
					if st := readRecord(t, p.dir(), x).Status; st != task.Pending {
						fail("%s is still %s (not completed) but %s, which waits for it, is %s", got.ID, task.InProgress, x, st)
					}
				}
				up := p.call("task-update", "", nil, got.ID, "--status", "completed", "--expect-status", "in_progress", "--expect-owner", owner)
				if up.code != 0 {
					fail("%s completing %s: %s", owner, got.ID, up)
					return
				}
				mu.Lock()
				completed++
				mu.Unlock()
			}
			fail("%s: the drain did not finish in time", owner)
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if t.Failed() {
		return
	}
	st := validateStore(t, p.dir())
	for _, id := range ids {
		if len(claims[id]) != 1 {
			t.Errorf("%s was claimed %d times (%v)", id, len(claims[id]), claims[id])
		}
		if rec := st.records[id]; rec.Status != task.Completed {
			t.Errorf("%s ended %s", id, rec.Status)
		}
	}
	withDeps := 0
	for _, bs := range deps {
		if len(bs) > 0 {
			withDeps++
		}
	}
	took := time.Since(start)
	t.Logf("%d workers drained %d tasks (%d with blockers) in %v: %d claims, each task exactly once, %.1f claims/s (each with its completing update)",
		workers, n, withDeps, took.Round(time.Millisecond), completed, float64(completed)/took.Seconds())
}

// agent is a stand-in for a live agent: a shell process that claims a
// task, then runs the PostToolUse hook every 100 ms (as tool calls would),
// until it is killed.
type agent struct {
	cmd *exec.Cmd
}

func startAgent(t *testing.T, p *project, id, owner, session, lease string) *agent {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	event := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"x"},"tool_response":{}}`, session, p.root)
	if err := os.WriteFile(filepath.Join(p.home, "post.json"), []byte(event), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `FAULT_EXEC=task-claim "$SELF" -C "$ROOT" "$ID" --owner "$OWNER" --lease "$LEASE" >"$HOME/claimed.json" || exit 3
while :; do FAULT_EXEC=matrixx-hook "$SELF" <"$HOME/post.json"; sleep 0.1; done`
	c := exec.Command("sh", "-c", script)
	c.Env = []string{"SELF=" + self, "ROOT=" + p.root, "ID=" + id, "OWNER=" + owner, "LEASE=" + lease,
		"HOME=" + p.home, "PATH=" + os.Getenv("PATH"), "MATRIXX_SESSION_ID=" + session,
		"CLAUDE_PROJECT_DIR=" + p.root, "OPENCODE_CONFIG_DIR=" + filepath.Join(p.home, ".config", "opencode")}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	a := &agent{cmd: c}
	t.Cleanup(a.kill)
	// Wait for the claim.
	for start := time.Now(); time.Since(start) < callTimeout; time.Sleep(20 * time.Millisecond) {
		if rec := readRecord(t, p.dir(), id); rec.Owner == owner {
			return a
		}
	}
	t.Fatal("the agent did not claim its task")
	return nil
}

// kill sends SIGKILL to the agent's whole process group (the shell and the
// hook it may be running).
func (a *agent) kill() {
	if a.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
	_ = a.cmd.Wait()
}

// TestClaimLeaseKilledClaimant: a live agent whose hook renews its lease
// is never taken over, for two leases in a row; once it is killed with
// SIGKILL its task cannot be taken before the lease ends and can be taken
// after. (The lease leaves the renewing hook, due every third of it, more
// than a second and a half of slack on a loaded machine.)
func TestClaimLeaseKilledClaimant(t *testing.T) {
	const lease = 2500 * time.Millisecond
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	id := p.create(`{"subject":"long job"}`)
	a := startAgent(t, p, id, "agent-1", "ses-live", lease.String())
	first := claim.Of(readRecord(t, p.dir(), id))
	firstExp, _ := first.Expiry()

	// Live: two leases long, every takeover attempt conflicts.
	tries := 0
	for end := time.Now().Add(2 * lease); time.Now().Before(end); time.Sleep(150 * time.Millisecond) {
		r := p.call("task-claim", "", []string{"MATRIXX_SESSION_ID=ses-thief"}, id, "--owner", "thief")
		if r.code != 1 || r.errorCode() != "claim_conflict" {
			t.Fatalf("a live agent's task was taken (attempt %d): %s", tries, r)
		}
		tries++
	}
	rec := readRecord(t, p.dir(), id)
	c := claim.Of(rec)
	exp, _ := c.Expiry()
	if !exp.After(firstExp) || c.ClaimedAt != first.ClaimedAt || rec.Owner != "agent-1" {
		t.Fatalf("the lease was not renewed: first expiry %v, now %v (%+v)", firstExp, exp, c)
	}

	a.kill()
	// Dead: not takeable before the lease ends.
	c = claim.Of(readRecord(t, p.dir(), id))
	exp, _ = c.Expiry()
	early := 0
	for time.Until(exp) > 200*time.Millisecond {
		r := p.call("task-claim", "", []string{"MATRIXX_SESSION_ID=ses-thief"}, id, "--owner", "thief")
		if r.code != 1 || r.errorCode() != "claim_conflict" {
			t.Fatalf("taken %v before the lease ended: %s", time.Until(exp), r)
		}
		early++
		time.Sleep(100 * time.Millisecond)
	}
	if early == 0 {
		t.Fatalf("no attempt landed before the lease ended (it ends %v after the kill)", time.Until(exp))
	}
	time.Sleep(time.Until(exp) + 50*time.Millisecond)
	r := p.call("task-claim", "", []string{"MATRIXX_SESSION_ID=ses-thief"}, "--owner", "thief")
	if r.code != 0 {
		t.Fatalf("takeover after the lease: %s", r)
	}
	if got := claimAnswer(t, r); got == nil || got.ID != id || got.Owner != "thief" {
		t.Fatalf("takeover answered %s", r.stdout)
	}
	validateStore(t, p.dir())
	t.Logf("%d takeover attempts on the live agent and %d after its SIGKILL conflicted; taken after the lease", tries, early)
}

// TestClaimForeignLock: another implementation of the lock protocol (a
// plain exclusive .lock with {"id","timestamp"}, no flock) holds the store
// while claimants start, and gives the task to its own owner before it
// releases. Every claimant waits for that .lock, then sees the foreign
// owner's work and answers claim_conflict: none overwrites it.
func TestClaimForeignLock(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	id := p.create(`{"subject":"shared with another tool"}`)
	lockPath := filepath.Join(p.dir(), ".lock")
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"id":"foreign-tool","timestamp":%d}`, time.Now().UnixMilli())
	f.Close()
	const n = 8
	cmds := make([]*exec.Cmd, n)
	outs := make([]*strings.Builder, n)
	for i := range cmds {
		outs[i] = &strings.Builder{}
		cmds[i] = p.cmd("task-claim", []string{"MATRIXX_LOCK_TIMEOUT_MS=8000"}, id, "--owner", fmt.Sprintf("ours-%d", i))
		cmds[i].Stdout = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	rec := readRecord(t, p.dir(), id)
	if rec.Status != task.Pending {
		t.Fatalf("a claimant wrote while the foreign .lock was held: %s", rec.Status)
	}
	rec.Status, rec.Owner = task.InProgress, "foreign-owner"
	data, err := task.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(p.dir(), ".foreign.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(p.dir(), task.FileName(id))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(lockPath); err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		err := c.Wait()
		r := result{stdout: []byte(outs[i].String())}
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		}
		if r.code != 1 || r.errorCode() != "claim_conflict" {
			t.Errorf("claimant %d: want claim_conflict after the foreign write, got %s", i, r)
		}
	}
	if rec := validateStore(t, p.dir()).records[id]; rec.Owner != "foreign-owner" {
		t.Errorf("the foreign owner's claim was overwritten by %s", rec.Owner)
	}
}
