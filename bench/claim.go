package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"
)

// claim reports the claim and wave bars (docs/claims.md): task-claim with
// no id (the next ready task) into 10,000 tasks at most 1.2× task-list
// --ready over the same store, and task-list --waves at most 1.5× plain
// task-list, each alternated with its baseline. task-claim writes, so it
// runs on its own copy of the 10,000-task store; every run claims one more
// of its ~2,000 ready tasks.
func (b *bench) claim() error {
	const n = 10000
	root := filepath.Join(b.tmp, "store-claim-10000")
	start := time.Now()
	if _, err := makeStore(root, storeShape{Tasks: n, Recent: min(20, n/10)}, uint64(n)); err != nil {
		return err
	}
	b.logf("generated the claim store (%s tasks) in %v", thousands(n), time.Since(start).Round(time.Millisecond))
	claim := &command{Argv: []string{b.exe("task-claim"), "-C", root, "--owner", "bench-worker", "--lease", "1h"}}
	ready := &command{Argv: []string{b.exe("task-list"), "-C", root, "--ready"}}
	x, err := b.r.run(claim)
	if err != nil {
		return err
	}
	var ans struct {
		Task *struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if err := json.Unmarshal(x.Stdout, &ans); err != nil || ans.Task == nil {
		return fmt.Errorf("task-claim over the generated store claimed nothing: %v %s", err, x.Stdout)
	}
	sc, sr, err := b.r.alternate(b.runs, 2, claim, ready)
	if err != nil {
		return err
	}
	s, err := b.store(n)
	if err != nil {
		return err
	}
	waves := &command{Argv: []string{b.exe("task-list"), "-C", s.root, "--waves"}}
	list := &command{Argv: []string{b.exe("task-list"), "-C", s.root}}
	sw, sl, err := b.r.alternate(b.runs, 2, waves, list)
	if err != nil {
		return err
	}
	qc := ratio(sc.median(), sr.median())
	qw := ratio(sw.median(), sl.median())
	rows := [][]string{
		{"task-claim --owner W (next ready task)", "task-list --ready", ms(sc.median()), ms(sr.median()), fmt.Sprintf("%.2f×", qc), "≤ 1.2×", verdict(qc <= 1.2),
			ms(sc.quantile(0)) + " / " + ms(sr.quantile(0)), ms(sc.cpu()) + " / " + ms(sr.cpu())},
		{"task-list --waves", "task-list", ms(sw.median()), ms(sl.median()), fmt.Sprintf("%.2f×", qw), "≤ 1.5×", verdict(qw <= 1.5),
			ms(sw.quantile(0)) + " / " + ms(sl.quantile(0)), ms(sw.cpu()) + " / " + ms(sl.cpu())},
	}
	b.table("Claims and waves at 10,000 tasks",
		[]string{"command", "baseline", "median", "baseline median", "ratio", "bar", "", "min (command / baseline)", "CPU median (command / baseline)"}, rows)
	return nil
}
