package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// goals prints the scale-and-speed goals in one table, each figure beside
// its floor from the same run (docs/benchmarks.md "Goals"): task-list and
// task-list --ready against cat of the files at 10,000 and 50,000 tasks
// (≤ 0.45× and ≤ 0.40×), their peak RSS at 50,000 (≤ 64 MiB), task-get
// and matrixx-hook against readstdin, an empty static Go process reading
// stdin (≤ 1.5×), and task-create and task-update against readstdin
// -lock, the durable-write floor of one record under the lock
// (≤ 1.3×).
func (b *bench) goals() error {
	var rows [][]string
	row := func(goal, fig, floor string, q float64, bar string, ok bool, note string) {
		rows = append(rows, []string{goal, fig, floor, fmt.Sprintf("%.2f×", q), bar, verdict(ok), note})
	}
	sizes := []int{10000, 50000}
	if b.quick {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		s, err := b.store(n)
		if err != nil {
			return err
		}
		list, err := b.measureList(n)
		if err != nil {
			return err
		}
		q := ratio(list.list.median(), list.cat.median())
		row(fmt.Sprintf("task-list, %s tasks", thousands(n)), ms(list.list.median()), "cat "+ms(list.cat.median()), q, "≤ 0.45×", q <= 0.45,
			"CPU "+ms(list.list.cpu())+" / "+ms(list.cat.cpu()))
		ready := &command{Argv: []string{b.exe("task-list"), "--ready", "-C", s.root}}
		sr, sc, err := b.r.alternate(b.runs, 2, ready, list.catCmd)
		if err != nil {
			return err
		}
		q = ratio(sr.median(), sc.median())
		row(fmt.Sprintf("task-list --ready, %s tasks", thousands(n)), ms(sr.median()), "cat "+ms(sc.median()), q, "≤ 0.40×", q <= 0.40,
			"CPU "+ms(sr.cpu())+" / "+ms(sc.cpu()))
		if n == 50000 || b.quick {
			for _, c := range []*command{list.cmd, ready} {
				rss, floor, err := b.peakRSS(c)
				if err != nil {
					return err
				}
				mib := float64(rss) / 1024
				name := "task-list"
				if c == ready {
					name = "task-list --ready"
				}
				row(fmt.Sprintf("%s peak RSS, %s tasks", name, thousands(n)), fmt.Sprintf("%.1f MiB", mib), fmt.Sprintf("readstdin %.1f MiB", float64(floor)/1024),
					float64(rss)/float64(floor), "≤ 64 MiB", mib <= 64, "")
			}
		}
	}
	s, err := b.store(10000)
	if err != nil {
		return err
	}
	target := s.ids[len(s.ids)-1]
	get := &command{Argv: []string{b.exe("task-get"), "-C", s.root, target}}
	reader := &command{Argv: []string{b.exe("readstdin")}, Stdin: []byte(fmt.Sprintf(`{"id":%q}`, target))}
	libs := &command{Argv: []string{b.exe("linkfloor")}, Stdin: reader.Stdin}
	gr, err := b.r.rotate(b.runs, 3, get, reader, libs)
	if err != nil {
		return err
	}
	sg, sb, sl := gr[0], gr[1], gr[2]
	q := ratio(sg.median(), sb.median())
	row("task-get, 10,000 tasks", ms(sg.median()), "readstdin "+ms(sb.median()), q, "≤ 1.5×", q <= 1.5, "CPU "+ms(sg.cpu())+" / "+ms(sb.cpu())+linkNote(sl, sb))

	seq := 0
	createDoc := func() []byte {
		seq++
		return []byte(fmt.Sprintf(`{"subject":"Goal bench task %d","description":"Created by the goals benchmark."}`, seq))
	}
	create := &command{Argv: []string{b.exe("task-create"), "-C", s.root}}
	create.Before = func() error { create.Stdin = createDoc(); return nil }
	update := &command{Argv: []string{b.exe("task-update"), "-C", s.root}}
	update.Before = func() error {
		seq++
		update.Stdin = []byte(fmt.Sprintf(`{"id":%q,"owner":"agent-%d"}`, target, seq))
		return nil
	}
	floorDir := filepath.Join(b.tmp, "floor-lock")
	if err := os.MkdirAll(floorDir, 0o755); err != nil {
		return err
	}
	floor := &command{Argv: []string{b.exe("readstdin"), "-lock", filepath.Join(floorDir, "T-floor.json")}}
	floor.Before = func() error { floor.Stdin = createDoc(); return nil }
	runs, err := b.r.rotate(b.runs, 2, create, update, floor)
	if err != nil {
		return err
	}
	for i, name := range []string{"task-create", "task-update"} {
		q := ratio(runs[i].median(), runs[2].median())
		row(name+", 10,000 tasks", ms(runs[i].median()), "locked durable write "+ms(runs[2].median()), q, "≤ 1.3×", q <= 1.3,
			"CPU "+ms(runs[i].cpu())+" / "+ms(runs[2].cpu()))
	}

	ev := hookEvent(s.root, "Bash", map[string]any{"command": "go test ./... 2>&1 | tail -n 20", "description": "Run tests"})
	hook := &command{Argv: []string{b.exe("matrixx-hook")}, Dir: s.root, Env: []string{"CLAUDE_PROJECT_DIR=" + s.root}, Stdin: ev, Exits: []int{0, 2}}
	base := &command{Argv: []string{b.exe("readstdin")}, Dir: s.root, Stdin: ev}
	hlibs := &command{Argv: []string{b.exe("linkfloor")}, Dir: s.root, Stdin: ev}
	hr, err := b.r.rotate(b.runs, 3, hook, base, hlibs)
	if err != nil {
		return err
	}
	sh, sbh := hr[0], hr[1]
	q = ratio(sh.median(), sbh.median())
	row("matrixx-hook PreToolUse Bash (allow)", ms(sh.median()), "readstdin "+ms(sbh.median()), q, "≤ 1.5×", q <= 1.5, "CPU "+ms(sh.cpu())+" / "+ms(sbh.cpu())+linkNote(hr[2], sbh))

	b.table("Goals: each figure beside its floor from the same run (medians)",
		[]string{"goal", "figure", "floor", "ratio", "bar", "", "CPU median (figure / floor)"}, rows)
	return nil
}

// linkNote is the start-up rows' note on linkfloor, readstdin linked with
// the libraries our binaries link: what those libraries alone cost at
// every process start, as a median and a ratio to readstdin.
func linkNote(libs, reader *series) string {
	return fmt.Sprintf("; linkfloor (readstdin with our libraries linked) %s, %.2f×", ms(libs.median()), ratio(libs.median(), reader.median()))
}
