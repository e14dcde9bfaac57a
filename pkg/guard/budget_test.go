package guard

import (
	"runtime"
	"strings"
	"testing"
)

// TestBudgets runs inputs that made the analysis blow up (memory growing
// as 2^n with v=$v$v, quadratic time and memory over cd and pushd, a
// function calling itself, eval of a big string over and over): each is
// decided within the budgets — a store write in it is still denied, by
// the raw rule — and allocates a bounded amount of memory. Wall time is
// not asserted: the budgets and the allocation bound stand for it.
func TestBudgets(t *testing.T) {
	big := strings.Repeat("x", 400<<10)
	for _, c := range []struct {
		name string
		cmd  string
		deny bool
		over bool // a budget must have been spent
	}{
		{"doubling 24", "v=.matrixx; " + strings.Repeat("v=$v$v; ", 24) + "rm .matrixx/tasks/x", true, true},
		{"doubling 40", "v=.matrixx; " + strings.Repeat("v=$v$v; ", 40) + "rm .matrixx/tasks/x", true, true},
		{"doubling quoted", `v=.matrixx; ` + strings.Repeat(`v="$v$v"; `, 40) + `echo x > .matrixx/plans/p.md`, true, true},
		{"doubling append", "v=x; " + strings.Repeat("v+=$v; ", 40) + "ls", false, true},
		{"doubling array", "v=(.matrixx); " + strings.Repeat("v=(${v[@]} ${v[@]}); ", 40) + "ls", false, false},
		{"cd 80000", strings.Repeat("cd a; ", 80000) + "rm .matrixx/tasks/x", true, true},
		{"cd 80000 allowed", strings.Repeat("cd a; ", 80000) + "ls", false, true},
		{"pushd 20000", strings.Repeat("pushd a; ", 20000) + "rm .matrixx/tasks/x", true, true},
		{"recursion", "f(){ f; f; }; f; rm .matrixx/tasks/x", true, false},
		{"fan-out", "f(){ g; g; g; g; g; g; g; g; }; g(){ h; h; h; h; h; h; h; h; }; h(){ i; i; i; i; i; i; i; i; }; " +
			"i(){ j; j; j; j; j; j; j; j; }; j(){ k; k; k; k; k; k; k; k; }; k(){ l; l; l; l; l; l; l; l; }; " +
			"l(){ m; m; m; m; m; m; m; m; }; m(){ :; }; f; echo x > .matrixx/tasks/T-1.json", true, true},
		{"eval big", "v='" + big + "'; " + strings.Repeat(`eval "$v"; `, 200) + "rm .matrixx/tasks/x", true, true},
		{"many statements", strings.Repeat(":;", 400000) + "rm .matrixx/tasks/x", true, true},
		{"many parses", strings.Repeat("eval :; ", 100000) + "rm .matrixx/tasks/x", true, true},
		{"syntax error prefix", "<<\"\\B\\\\<\"\\", false, false}, // found by FuzzCheck: 15 s of re-parsing
		{"misread comments", strings.Repeat("''#x\n", 2000) + "rm .matrixx/tasks/x", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			d, e := analyse(Request{Tool: "Bash", Cwd: testCwd, Command: c.cmd})
			runtime.ReadMemStats(&after)
			if d.Deny != c.deny {
				t.Errorf("deny = %v, want %v (%s)", d.Deny, c.deny, d.Reason)
			}
			if e.over != c.over {
				t.Errorf("over = %v, want %v (steps %d, bytes %d)", e.over, c.over, e.steps, e.spent)
			}
			// One charge may pass a budget; none goes far past it.
			if e.steps > 2*maxSteps || e.spent > 2*maxBytes {
				t.Errorf("budget overrun: steps %d, bytes %d", e.steps, e.spent)
			}
			// The parser's tree of a 1 MiB command is most of it.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 400<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}
