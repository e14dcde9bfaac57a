package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"
)

// scaleStore is a generated project whose store is measured at one size.
type scaleStore struct {
	root string
	dir  string
	ids  []string
}

// listResult is task-list against cat over one store.
type listResult struct {
	list, cat *series
	cmd       *command // the task-list command
	catCmd    *command // its cat baseline
}

// createResult is task-create into one store: steady state (the dedup
// index is valid), right after a foreign change (the index is rebuilt by
// stat-ing every file), with both blocks and blockedBy (the cycle check
// reads every record), and the durable-write floor.
type createResult struct {
	steady, rebuild, floor, cycle *series
}

// store returns the project holding n generated tasks, generating it once.
func (b *bench) store(n int) (*scaleStore, error) {
	if s, ok := b.stores[n]; ok {
		return s, nil
	}
	root := filepath.Join(b.tmp, fmt.Sprintf("store-%d", n))
	start := time.Now()
	ids, err := makeStore(root, storeShape{Tasks: n, Recent: min(20, n/10)}, uint64(n))
	if err != nil {
		return nil, err
	}
	b.logf("generated %s tasks in %v", thousands(n), time.Since(start).Round(time.Millisecond))
	s := &scaleStore{root: root, dir: filepath.Join(root, ".matrixx", "tasks"), ids: ids}
	b.stores[n] = s
	return s, nil
}

// measureList times task-list (active tasks, the default) against
// sh -c 'cat DIR/*.json >/dev/null' over the same store, alternated.
func (b *bench) measureList(n int) (*listResult, error) {
	if r, ok := b.lists[n]; ok {
		return r, nil
	}
	s, err := b.store(n)
	if err != nil {
		return nil, err
	}
	list := &command{Argv: []string{b.exe("task-list"), "-C", s.root}}
	script := "cat " + s.dir + "/*.json >/dev/null"
	if n > 20000 {
		// 50,000 paths pass the default 2 MiB argument limit (a quarter
		// of the 8 MiB stack limit); a larger stack limit raises it.
		script = "ulimit -s 65536; " + script
	}
	cat := &command{Argv: []string{"sh", "-c", script}}
	// One check run: every generated record must read as valid.
	x, err := b.r.run(list)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Problems []any `json:"problems"`
	}
	if err := json.Unmarshal(x.Stdout, &ans); err != nil || len(ans.Problems) > 0 {
		return nil, fmt.Errorf("task-list over the generated store: %v %s", err, x.Stderr)
	}
	sl, sc, err := b.r.alternate(b.runs, 2, list, cat)
	if err != nil {
		return nil, err
	}
	r := &listResult{list: sl, cat: sc, cmd: list, catCmd: cat}
	b.lists[n] = r
	return r, nil
}

// measureCreate times task-create of one task (unique subject, one
// blocker) into the store: steady state, after a foreign change of the
// directory (index rebuild), with both blocks and blockedBy (the cycle
// check reads every record), and readstdin writing the same record
// durably (the floor: process start, temp file, two fsyncs, rename).
func (b *bench) measureCreate(n int) (*createResult, error) {
	if r, ok := b.creates[n]; ok {
		return r, nil
	}
	s, err := b.store(n)
	if err != nil {
		return nil, err
	}
	seq := 0
	item := func(blocks bool) []byte {
		seq++
		v := map[string]any{
			"subject":     fmt.Sprintf("Benchmark task %d of store %d", seq, n),
			"description": "Created by the create-at-scale benchmark; it depends on an older task.",
			"blockedBy":   []string{s.ids[len(s.ids)/2]},
			"metadata":    map[string]any{"planName": "bench", "planItem": seq},
		}
		if blocks {
			v["blocks"] = []string{s.ids[len(s.ids)-1]}
		}
		data, _ := json.Marshal(v)
		return data
	}
	steady := &command{Argv: []string{b.exe("task-create"), "-C", s.root}}
	steady.Before = func() error { steady.Stdin = item(false); return nil }
	rebuild := &command{Argv: []string{b.exe("task-create"), "-C", s.root}}
	rebuild.Before = func() error {
		rebuild.Stdin = item(false)
		// A foreign change: the directory's mtime moves, so the dedup
		// index no longer matches and this create rebuilds it.
		now := time.Now()
		return os.Chtimes(s.dir, now, now)
	}
	cycle := &command{Argv: []string{b.exe("task-create"), "-C", s.root}}
	cycle.Before = func() error { cycle.Stdin = item(true); return nil }
	floorDir := filepath.Join(b.tmp, "floor")
	if err := os.MkdirAll(floorDir, 0o755); err != nil {
		return nil, err
	}
	floor := &command{Argv: []string{b.exe("readstdin"), filepath.Join(floorDir, "T-floor.json")}}
	floor.Before = func() error { floor.Stdin = item(false); return nil }
	// rebuild precedes steady in each rotation, so steady runs both right
	// after a rebuild and after another steady create.
	runs, err := b.r.rotate(b.runs, 2, rebuild, steady, cycle, floor)
	if err != nil {
		return nil, err
	}
	r := &createResult{rebuild: runs[0], steady: runs[1], cycle: runs[2], floor: runs[3]}
	b.creates[n] = r
	return r, nil
}

// list reports the list-at-scale bar: task-list over 10,000 tasks at most
// 1.0× cat of the same files.
func (b *bench) list() error {
	var rows [][]string
	for _, n := range []int{1000, 10000} {
		r, err := b.measureList(n)
		if err != nil {
			return err
		}
		q := ratio(r.list.median(), r.cat.median())
		bar, met := "—", ""
		if n == 10000 {
			bar, met = "≤ 1.0×", verdict(q <= 1.0)
		}
		rows = append(rows, []string{thousands(n), ms(r.list.median()), ms(r.cat.median()), fmt.Sprintf("%.2f×", q), bar, met,
			ms(r.list.quantile(0)) + " / " + ms(r.cat.quantile(0)), ms(r.list.cpu()) + " / " + ms(r.cat.cpu())})
	}
	b.table("List at scale: task-list vs sh -c 'cat DIR/*.json >/dev/null'",
		[]string{"tasks", "task-list median", "cat median", "ratio", "bar", "", "min (list / cat)", "CPU median (list / cat)"}, rows)
	return nil
}

// create reports the create-at-scale bar: median ≤ 15 ms into 10,000 tasks.
func (b *bench) create() error {
	r, err := b.measureCreate(10000)
	if err != nil {
		return err
	}
	steady := r.steady.median()
	row := func(name string, s *series, bar, met string) []string {
		return []string{name, ms(s.median()), ms(s.quantile(0.9)), ms(s.quantile(0)), ms(s.cpu()), bar, met}
	}
	rows := [][]string{
		row("steady state (dedup index valid)", r.steady, "≤ 15 ms", verdict(steady <= 15*time.Millisecond)),
		row("first create after a foreign change (index rebuild: stat every file)", r.rebuild, "—", ""),
		row("with blocks and blockedBy (cycle check reads every record)", r.cycle, "—", ""),
		row("floor: readstdin writing the same record durably", r.floor, "—", ""),
	}
	b.table("Create at scale: task-create of one task into 10,000 tasks",
		[]string{"case", "median", "p90", "min", "CPU median", "bar", ""}, rows)
	return nil
}

// growth shows how list and create cost grows with the store, and the
// peak memory of task-list.
func (b *bench) growth() error {
	sizes := []int{100, 1000, 10000, 50000}
	if b.quick {
		sizes = sizes[:3]
	}
	var rows [][]string
	for _, n := range sizes {
		l, err := b.measureList(n)
		if err != nil {
			return err
		}
		c, err := b.measureCreate(n)
		if err != nil {
			return err
		}
		rss, floor, err := b.peakRSS(l.cmd)
		if err != nil {
			return err
		}
		rows = append(rows, []string{
			thousands(n),
			ms(l.list.median()), ms(l.cat.median()), fmt.Sprintf("%.2f×", ratio(l.list.median(), l.cat.median())),
			fmt.Sprintf("%.1f MiB (floor %.1f)", float64(rss)/1024, float64(floor)/1024),
			ms(c.steady.median()), ms(c.rebuild.median()), ms(c.cycle.median()),
		})
	}
	b.table("Growth: cost by store size",
		[]string{"tasks", "task-list", "cat", "ratio", "task-list peak RSS (floor of the method)", "create (steady)", "create (index rebuild)", "create (cycle check)"}, rows)
	return nil
}
