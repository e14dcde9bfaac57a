package main

import "fmt"

// porcelain reports the porcelain's bars at 10,000 tasks, each against
// task-list (active tasks) over the same store in the same rotation:
// matrixx ls and matrixx ready ≤ 1.2×, and completing a task handle
// (`matrixx __complete bash -- task-get ""`, what Tab runs) ≤ 1.2×.
func (b *bench) porcelain() error {
	const n = 10000
	s, err := b.store(n)
	if err != nil {
		return err
	}
	mx := b.exe("matrixx")
	list := &command{Argv: []string{b.exe("task-list"), "-C", s.root}}
	cmds := []*command{
		list,
		{Argv: []string{mx, "-C", s.root, "ls"}},
		{Argv: []string{mx, "-C", s.root, "ready"}},
		{Argv: []string{mx, "__complete", "bash", "--", "task-get", "-C", s.root, ""}},
	}
	names := []string{"task-list", "matrixx ls", "matrixx ready", "complete task-get <Tab>"}
	for _, c := range cmds[1:] {
		if x, err := b.r.run(c); err != nil {
			return fmt.Errorf("%v: %v %s", c.Argv, err, x.Stderr)
		} else if len(x.Stdout) == 0 {
			return fmt.Errorf("%v printed nothing", c.Argv)
		}
	}
	series, err := b.r.rotate(b.runs, 2, cmds...)
	if err != nil {
		return err
	}
	base := series[0].median()
	var rows [][]string
	for i := 1; i < len(cmds); i++ {
		q := ratio(series[i].median(), base)
		rows = append(rows, []string{names[i], ms(series[i].median()), ms(base), fmt.Sprintf("%.2f×", q), "≤ 1.2×", verdict(q <= 1.2),
			ms(series[i].quantile(0)) + " / " + ms(series[0].quantile(0)), ms(series[i].cpu()) + " / " + ms(series[0].cpu())})
	}
	b.table(fmt.Sprintf("Porcelain at %s tasks: matrixx vs task-list (same store, same rotation)", thousands(n)),
		[]string{"command", "median", "task-list median", "ratio", "bar", "", "min (cmd / list)", "CPU median (cmd / list)"}, rows)
	return nil
}
