package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// writes reports the write goal: task-create and task-update (a metadata
// change, and a completion, which checks the task's subtasks) at most 1.3×
// the durable-write floor (readstdin -lock: process start, the lock, one
// record written durably) at 1,000, 10,000 and 100,000 tasks, on a store
// whose every task was written within the dedup window (an import, a
// swarm, a batch: "fresh") and on one used for a month ("aged"). Each
// store is a writable copy of the generated one; the first create of a
// fresh store rebuilds the dedup index (a foreign change: the files were
// generated behind the toolkit's back), so it runs as a warm-up.
func (b *bench) writes() error {
	sizes := []int{1000, 10000, 100000}
	if b.quick {
		sizes = sizes[:2]
	}
	var rows [][]string
	for _, n := range sizes {
		for _, fresh := range []bool{true, false} {
			root, ids, err := b.writableStore(n, fresh)
			if err != nil {
				return err
			}
			seq := 0
			doc := func() []byte {
				seq++
				return []byte(fmt.Sprintf(`{"subject":"Write bench task %d","description":"Created by the write benchmark."}`, seq))
			}
			create := &command{Argv: []string{b.exe("task-create"), "-C", root}}
			create.Before = func() error { create.Stdin = doc(); return nil }
			update := &command{Argv: []string{b.exe("task-update"), "-C", root}}
			update.Before = func() error {
				seq++
				// A different task each time, spread over the store: an
				// update of an old task is as common as one of a new one.
				id := ids[(seq*7919)%len(ids)]
				update.Stdin = []byte(fmt.Sprintf(`{"id":%q,"metadata":{"benchSeq":%d}}`, id, seq))
				return nil
			}
			// A completion of a pending task without subtasks: the update
			// whose subtask check scanned the store. Each run completes
			// another pending task, in a shuffled order over the store.
			pending, err := pendingIDs(root, ids)
			if err != nil {
				return err
			}
			complete := &command{Argv: []string{b.exe("task-update"), "-C", root}}
			complete.Before = func() error {
				if len(pending) == 0 {
					return fmt.Errorf("the %d-task store has no pending task left to complete", n)
				}
				id := pending[len(pending)-1]
				pending = pending[:len(pending)-1]
				complete.Stdin = []byte(fmt.Sprintf(`{"id":%q,"status":"completed"}`, id))
				return nil
			}
			floorDir := filepath.Join(b.tmp, "floor-writes")
			if err := os.MkdirAll(floorDir, 0o755); err != nil {
				return err
			}
			floor := &command{Argv: []string{b.exe("readstdin"), "-lock", filepath.Join(floorDir, "T-floor.json")}}
			floor.Before = func() error { floor.Stdin = doc(); return nil }
			runs, err := b.r.rotate(b.runs, 2, create, update, complete, floor)
			if err != nil {
				return err
			}
			fl := runs[3]
			shape := "aged"
			if fresh {
				shape = "fresh (every task inside the dedup window)"
			}
			for i, name := range []string{"task-create", "task-update", "task-update completed"} {
				q := ratio(runs[i].median(), fl.median())
				rows = append(rows, []string{thousands(n), shape, name, ms(runs[i].median()), ms(fl.median()), fmt.Sprintf("%.2f×", q), "≤ 1.3×", verdict(q <= 1.3),
					ms(runs[i].cpu()) + " / " + ms(fl.cpu())})
			}
			if err := os.RemoveAll(root); err != nil {
				return err
			}
		}
	}
	b.table("Writes by store size and age: task-create and task-update vs the locked durable write (readstdin -lock)",
		[]string{"tasks", "store", "command", "median", "floor median", "ratio", "bar", "", "CPU median (command / floor)"}, rows)
	return nil
}

// writableStore returns a fresh copy of the generated n-task store (see
// cachedStore) and its ids, every file dated inside the dedup window when
// fresh is set (as after an import), else spread over 30 days as
// makeStore dates them.
func (b *bench) writableStore(n int, fresh bool) (string, []string, error) {
	tmpl, ids, err := b.cachedStore(n)
	if err != nil {
		return "", nil, err
	}
	b.seq++
	root := filepath.Join(b.tmp, fmt.Sprintf("copy-%d-%d", n, b.seq))
	start := time.Now()
	if out, err := exec.Command("cp", "-a", tmpl, root).CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("copying the %d-task store: %v: %s", n, err, out)
	}
	if fresh {
		// Dated over the last five minutes, oldest first.
		dir := filepath.Join(root, ".matrixx", "tasks")
		now := time.Now()
		for i, id := range ids {
			m := now.Add(-5 * time.Minute * time.Duration(len(ids)-i) / time.Duration(len(ids)))
			if err := os.Chtimes(filepath.Join(dir, task.FileName(id)), m, m); err != nil {
				return "", nil, err
			}
		}
	}
	b.logf("copied the %s-task store in %v", thousands(n), time.Since(start).Round(time.Millisecond))
	return root, ids, nil
}

// storeGen names the generator's output: bump it when makeStore changes,
// so cached stores of the old shape are not reused.
const storeGen = "v1"

// cachedStore returns the generated n-task store kept in the cache
// directory (-cache; generated there on first use, as makeStore(n) with
// 20 recent tasks) and its ids in creation order. Cached stores are only
// read: every writer works on a copy (writableStore).
func (b *bench) cachedStore(n int) (string, []string, error) {
	dir := filepath.Join(b.cache, fmt.Sprintf("store-%s-%d", storeGen, n))
	root := filepath.Join(dir, "project")
	idsFile := filepath.Join(dir, "ids")
	if data, err := os.ReadFile(idsFile); err == nil {
		ids := strings.Fields(string(data))
		if len(ids) == n {
			return root, ids, nil
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", nil, err
	}
	start := time.Now()
	ids, err := makeStore(root, storeShape{Tasks: n, Recent: min(20, n/10)}, uint64(n))
	if err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(idsFile, []byte(strings.Join(ids, "\n")+"\n"), 0o644); err != nil {
		return "", nil, err
	}
	b.logf("generated %s tasks into the cache %s in %v", thousands(n), dir, time.Since(start).Round(time.Millisecond))
	return root, ids, nil
}

// pendingIDs returns the ids of the store's pending tasks without
// subtasks (a completion of a task with active subtasks is refused), in a
// fixed shuffled order.
func pendingIDs(root string, ids []string) ([]string, error) {
	dir := filepath.Join(root, ".matrixx", "tasks")
	parents := map[string]bool{}
	var pending []string
	for _, id := range ids {
		data, err := os.ReadFile(filepath.Join(dir, task.FileName(id)))
		if err != nil {
			return nil, err
		}
		t, err := task.DecodeRecord(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", id, err)
		}
		if t.ParentID != "" {
			parents[t.ParentID] = true
		}
		if t.Status == task.Pending {
			pending = append(pending, id)
		}
	}
	pending = slices.DeleteFunc(pending, func(id string) bool { return parents[id] })
	r := rand.New(rand.NewPCG(uint64(len(ids)), 7))
	r.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
	return pending, nil
}
