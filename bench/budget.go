package main

import (
	"fmt"
	"path/filepath"

	"github.com/matrixx-dev/matrixx-tasks/t/budget"
)

// budgetSection prints the context budget: each text the toolkit puts into
// an agent's context in its largest case (SessionStart at 50 and 50,000
// tasks, or 5,000 with -quick), against its bound, in bytes and in tokens
// estimated as bytes / 4 (t/budget holds the bounds in a test).
func (b *bench) budgetSection() error {
	sizes := []int{50, 50000}
	if b.quick {
		sizes = []int{50, 5000}
	}
	figs, err := budget.Measure(budget.Options{Bin: b.bin, Dir: filepath.Join(b.tmp, "budget"), Sizes: sizes})
	if err != nil {
		return err
	}
	var rows [][]string
	for _, f := range figs {
		rows = append(rows, []string{f.Name, thousands(f.Bytes), thousands(budget.Tokens(f.Bytes)), thousands(f.Bound), thousands(budget.Tokens(f.Bound)), verdict(f.Bytes <= f.Bound), f.Case})
	}
	b.table(fmt.Sprintf("Context budget: the largest text of each kind (SessionStart over stores of %s and %s tasks; tokens = bytes / 4, rounded up)", thousands(sizes[0]), thousands(sizes[1])),
		[]string{"text", "bytes", "tokens", "bound (bytes)", "bound (tokens)", "", "largest case"}, rows)
	return nil
}
