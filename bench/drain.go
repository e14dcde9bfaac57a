package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// drain runs 64 concurrent claimers (real task-claim and task-update
// processes) over a store of pending tasks with dependencies until every
// task is completed: each claimer claims the next ready task, checks that
// its blockers are completed, and completes it (--expect-owner). It
// reports claims per second and checks that no task was claimed twice
// and none before its blockers. -quick drains 1,000 tasks.
func (b *bench) drain() error {
	n, workers := 10000, 64
	if b.quick {
		n = 1000
	}
	root := filepath.Join(b.tmp, fmt.Sprintf("drain-%d", n))
	deps, err := makeDrainStore(root, n)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, ".matrixx", "tasks")
	var mu sync.Mutex
	claimed := map[string][]string{} // id → owners that claimed it
	var early []string               // claimed before a blocker completed
	var failures []string
	completed, empty, busy := 0, 0, 0
	// run runs a task binary; a call that waited its whole lock budget
	// (task_lock_unavailable: on a loaded machine 64 queued writers can
	// take longer than 10 s) is retried, as a worker would, and counted.
	run := func(args ...string) ([]byte, error) {
		for {
			cmd := exec.Command(b.exe(args[0]), args[1:]...)
			cmd.Env = b.r.env
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if err == nil {
				return out.Bytes(), nil
			}
			if bytes.Contains(errb.Bytes(), []byte("task_lock_unavailable")) && bytes.Contains(errb.Bytes(), []byte("whole")) {
				mu.Lock()
				busy++
				mu.Unlock()
				continue
			}
			return nil, fmt.Errorf("%s: %v: %s", args[0], err, errb.Bytes())
		}
	}
	start := time.Now()
	deadline := start.Add(30 * time.Minute)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := fmt.Sprintf("drainer-%d", w)
			for time.Now().Before(deadline) {
				out, err := run("task-claim", "-C", root, "--owner", owner, "--lease", "1h")
				if err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					return
				}
				var ans struct {
					Task *struct {
						ID string `json:"id"`
					} `json:"task"`
				}
				if err := json.Unmarshal(out, &ans); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("task-claim answered %q: %v", out, err))
					mu.Unlock()
					return
				}
				if ans.Task == nil {
					mu.Lock()
					done := completed == n
					empty++
					mu.Unlock()
					if done {
						return
					}
					time.Sleep(20 * time.Millisecond) // others still hold blockers
					continue
				}
				id := ans.Task.ID
				var open []string
				for _, bl := range deps[id] {
					data, err := os.ReadFile(filepath.Join(dir, task.FileName(bl)))
					t, derr := task.DecodeRecord(data)
					if err != nil || derr != nil || t.Status != task.Completed {
						open = append(open, bl)
					}
				}
				mu.Lock()
				claimed[id] = append(claimed[id], owner)
				if len(open) > 0 {
					early = append(early, id)
				}
				mu.Unlock()
				if _, err := run("task-update", "-C", root, id, "--status", "completed", "--expect-owner", owner); err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					return
				}
				mu.Lock()
				completed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	twice := 0
	for _, owners := range claimed {
		if len(owners) > 1 {
			twice++
		}
	}
	slices.Sort(failures)
	ok := len(failures) == 0 && twice == 0 && len(early) == 0 && completed == n && len(claimed) == n
	rows := [][]string{{
		fmt.Sprintf("%d claimers drain %s tasks (%d with blockers)", workers, thousands(n), len(deps)),
		fmt.Sprintf("%d of %d", len(claimed), n),
		fmt.Sprintf("%.1f/s", float64(len(claimed))/wall.Seconds()),
		fmt.Sprintf("%.1f s", wall.Seconds()),
		fmt.Sprint(twice), fmt.Sprint(len(early)), fmt.Sprint(empty), fmt.Sprint(busy), fmt.Sprint(len(failures)), verdict(ok),
	}}
	b.table("Swarm drain: concurrent task-claim and task-update processes until every task is completed",
		[]string{"run", "tasks claimed", "claims/s (each with its completing update)", "wall", "claimed twice", "claimed before a blocker completed", "empty answers (nothing ready yet)", "lock budget ran out (retried)", "failed calls", "no task twice, none early"}, rows)
	if len(failures) > 0 {
		return fmt.Errorf("drain: %d failed calls, the first: %s", len(failures), failures[0])
	}
	return nil
}

// makeDrainStore writes n pending tasks into root's store as task-create
// makes them (blocks mirrored): half wait for one or two of the 60 tasks
// before them; a fifth have a priority. It returns each blocked task's
// blockers.
func makeDrainStore(root string, n int) (map[string][]string, error) {
	dir := filepath.Join(root, ".matrixx", "tasks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	base := uint64(time.Now().Add(-time.Hour).UnixMilli())
	tasks := make([]*task.Task, n)
	byID := map[string]*task.Task{}
	deps := map[string][]string{}
	for i := range tasks {
		ms := base + uint64(i)
		id := fmt.Sprintf("T-%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, r.IntN(0x1000), 0x8000|r.IntN(0x4000), r.Uint64()&0xffffffffffff)
		t := &task.Task{ID: id, Subject: fmt.Sprintf("job %d", i), Status: task.Pending, ProjectRoot: root, ThreadID: "ses_drain"}
		if i > 0 && r.IntN(2) == 0 {
			for range 1 + r.IntN(2) {
				bl := tasks[max(0, i-1-r.IntN(60))].ID
				if !slices.Contains(t.BlockedBy, bl) {
					t.BlockedBy = append(t.BlockedBy, bl)
					byID[bl].Blocks = append(byID[bl].Blocks, id)
				}
			}
			deps[id] = t.BlockedBy
		}
		if r.IntN(5) == 0 {
			t.Priority = []task.Priority{"high", "medium", "low"}[r.IntN(3)]
		}
		tasks[i], byID[id] = t, t
	}
	for _, t := range tasks {
		data, err := task.Encode(t)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, task.FileName(t.ID)), data, 0o644); err != nil {
			return nil, err
		}
	}
	return deps, nil
}
