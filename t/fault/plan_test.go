//go:build linux

package fault

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// TestKillPlanWriters kills `plan check` processes with SIGKILL at random
// moments, from four workers ticking items of one plan. Afterwards the
// plan reads whole (plan read --json), every tick acknowledged before the
// kill (exit 0) is there, no temp file is taken for a plan, and a next
// write succeeds (the lock is recovered).
func TestKillPlanWriters(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	const items = 300
	var md strings.Builder
	md.WriteString("# Killed writers\n\nEvery item is ticked by a writer that may be killed.\n\n")
	for i := 1; i <= items; i++ {
		fmt.Fprintf(&md, "%d. [ ] Item %d with some words to make the line longer\n", i, i)
	}
	p.mustCall("plan", md.String(), "create", "storm")
	env := []string{"MATRIXX_LOCK_TIMEOUT_MS=5000"}

	t0 := time.Now()
	p.mustCall("plan", "", "check", "storm", "1")
	typical := time.Since(t0)

	kills := 100 * scale()
	var (
		mu      sync.Mutex
		acked   = map[int]bool{1: true}
		killed  int
		failure []string
		wg      sync.WaitGroup
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for {
				mu.Lock()
				done := killed >= kills || len(failure) > 10
				mu.Unlock()
				if done {
					return
				}
				item := 2 + r.IntN(items-1)
				c := p.cmd("plan", env, "check", "storm", fmt.Sprint(item))
				var out, errb bytes.Buffer
				c.Stdout, c.Stderr = &out, &errb
				if err := c.Start(); err != nil {
					t.Error(err)
					return
				}
				var timer *time.Timer
				if r.IntN(3) < 2 {
					timer = time.AfterFunc(time.Duration(r.Int64N(int64(typical*3/2)+1)), func() { _ = c.Process.Kill() })
				}
				_ = c.Wait()
				if timer != nil {
					timer.Stop()
				}
				ps := c.ProcessState
				mu.Lock()
				switch {
				case ps.Success():
					acked[item] = true
				case !ps.Exited():
					killed++
				default:
					failure = append(failure, result{code: ps.ExitCode(), stdout: out.Bytes(), stderr: errb.Bytes()}.String())
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, f := range failure {
		t.Errorf("plan check failed: %s", f)
	}

	r := p.mustCall("plan", "", "read", "storm", "--json")
	var plan struct {
		Lines []struct {
			Text string `json:"text"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(r.stdout, &plan); err != nil {
		t.Fatalf("plan read --json: %v\n%s", err, r.stdout)
	}
	if len(plan.Lines) != items+4 {
		t.Fatalf("plan has %d lines, want %d: a write was lost or torn", len(plan.Lines), items+4)
	}
	for item := range acked {
		want := fmt.Sprintf("%d. [x] Item %d ", item, item)
		if !strings.HasPrefix(plan.Lines[item+3].Text, want) {
			t.Errorf("acknowledged tick of item %d is missing: %q", item, plan.Lines[item+3].Text)
		}
	}
	dir := filepath.Join(p.root, ".matrixx", "plans")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var temps []string
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "storm.md":
		case durable.IsTemp(name) || name == ".lock":
			temps = append(temps, name)
		default:
			t.Errorf("unexpected file %s in the plans directory", name)
		}
	}
	t.Logf("%d plan writers killed, %d ticks acknowledged, all present; %d temp files left in .matrixx/plans (e.g. %v)",
		killed, len(acked), len(temps), temps[:min(3, len(temps))])
	p.mustCall("plan", "", "check", "storm", "--uncheck", "1")
}
