package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func snapOf(tasks ...*task.Task) *Snapshot {
	s := &Snapshot{}
	for _, t := range tasks {
		s.Entries = append(s.Entries, Entry{Task: t})
	}
	return s
}

func tk(id string, st task.Status, blockedBy ...string) *task.Task {
	return &task.Task{ID: id, Subject: id, Status: st, BlockedBy: blockedBy, Blocks: []string{}}
}

// TestWavesLongChainAndCycle: a 20,000-long chain is planned in 20,000
// waves (no recursion), and a long cycle is found without a hang.
func TestWavesLongChainAndCycle(t *testing.T) {
	const n = 20000
	var ts []*task.Task
	for i := range n {
		var b []string
		if i > 0 {
			b = []string{fmt.Sprintf("T-c%05d", i-1)}
		}
		ts = append(ts, tk(fmt.Sprintf("T-c%05d", i), task.Pending, b...))
	}
	res := PlanWaves(snapOf(ts...), &task.ListRequest{}, time.Now())
	if len(res.Waves) != n || res.Waves[n-1].Tasks[0].ID != "T-c19999" {
		t.Fatalf("chain: %d waves", len(res.Waves))
	}
	ts[0].BlockedBy = []string{"T-c19999"} // close the loop
	res = PlanWaves(snapOf(ts...), &task.ListRequest{}, time.Now())
	if len(res.Waves) != 0 || len(res.Cycles) != 1 || len(res.Cycles[0]) != n || len(res.Missing) != 0 {
		t.Fatalf("cycle: %d waves, %d cycles, %d missing", len(res.Waves), len(res.Cycles), len(res.Missing))
	}
}

func TestWavesMissingAndResolved(t *testing.T) {
	res := PlanWaves(snapOf(
		tk("T-a", task.Completed),
		tk("T-b", task.Pending, "T-a"),
		tk("T-c", task.Pending, "T-gone"),
		tk("T-d", task.Pending, "T-c", "T-b"),
		tk("T-e", task.Deleted),
		tk("T-f", task.InProgress, "T-e"),
		tk("T-s", task.Pending, "T-s"),
	), &task.ListRequest{}, time.Now())
	if len(res.Waves) != 1 || len(res.Waves[0].Tasks) != 1 || res.Waves[0].Tasks[0].ID != "T-b" {
		t.Fatalf("waves: %+v", res.Waves)
	}
	want := []Stuck{{"T-c", []string{"T-gone"}}, {"T-d", []string{"T-c"}}, {"T-f", []string{"T-e"}}}
	if fmt.Sprint(res.Missing) != fmt.Sprint(want) {
		t.Fatalf("missing: %v", res.Missing)
	}
	if fmt.Sprint(res.Cycles) != "[[T-s]]" {
		t.Fatalf("self-edge: %v", res.Cycles)
	}
}
