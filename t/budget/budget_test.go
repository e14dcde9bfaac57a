package budget

import (
	"fmt"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/t/hostkit"
)

// TestBudget holds the context budget: each text the toolkit puts into an
// agent's context, measured through the built binaries in its largest
// case, stays within its bound (SessionStart at 50 and 50,000 tasks;
// -short: 50 and 5,000).
func TestBudget(t *testing.T) {
	bin := t.TempDir()
	if err := hostkit.Build(bin); err != nil {
		t.Fatal(err)
	}
	sizes := []int{50, 50000}
	if testing.Short() {
		sizes = []int{50, 5000}
	}
	start := time.Now()
	figs, err := Measure(Options{Bin: bin, Dir: t.TempDir(), Sizes: sizes})
	t.Logf("measured in %v", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		line := fmt.Sprintf("%-28s %6d bytes (%5d tokens) of %6d (%5d tokens): %s", f.Name, f.Bytes, Tokens(f.Bytes), f.Bound, Tokens(f.Bound), f.Case)
		t.Log(line)
		if f.Bytes > f.Bound {
			t.Errorf("over the bound: %s", line)
		}
		if f.Bytes == 0 {
			t.Errorf("nothing measured: %s", line)
		}
	}
}
