//go:build linux

package fault

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestLeaseRace: 16 processes each claim a task of their own at once, all
// asking for overlapping path leases (docs/leases.md), round after round.
// Exactly one lease is granted each round, every other racer answers
// lease_conflict (exit 1) with its task left pending, and the lease index
// lists exactly the winner's globs. The winner then completes, which ends
// its lease for the next round.
func TestLeaseRace(t *testing.T) {
	racers, rounds := 16, 3
	if scale() >= 10 {
		rounds = 30
	}
	globs := []string{"src/api/**", "src/**", "src/api/x.go", "src", "src/*/x.go", "src/api"}
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	for round := range rounds {
		ids := make([]string, racers)
		for i := range ids {
			ids[i] = p.create(fmt.Sprintf(`{"subject":"lease %d/%d"}`, round, i))
		}
		cmds := make([]*exec.Cmd, racers)
		outs := make([]*strings.Builder, racers)
		for i := range cmds {
			outs[i] = &strings.Builder{}
			cmds[i] = p.cmd("task-claim", []string{fmt.Sprintf("MATRIXX_SESSION_ID=racer-%d", i)}, ids[i],
				"--owner", fmt.Sprintf("racer-%d", i), "--paths", globs[i%len(globs)])
			cmds[i].Stdout = outs[i]
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		winner := -1
		for i, c := range cmds {
			err := c.Wait()
			r := result{stdout: []byte(outs[i].String())}
			if ee, ok := err.(*exec.ExitError); ok {
				r.code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			switch {
			case r.code == 0:
				if winner >= 0 {
					t.Fatalf("round %d: racers %d and %d both got an overlapping lease", round, winner, i)
				}
				winner = i
			case r.code == 1 && r.errorCode() == "lease_conflict":
			default:
				t.Fatalf("round %d: racer %d: want a lease or lease_conflict, got %s", round, i, r)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no racer got the lease", round)
		}
		st := validateStore(t, p.dir())
		for i, id := range ids {
			rec := st.records[id]
			c := claim.Of(rec)
			if i == winner {
				if rec.Status != task.InProgress || c == nil || len(c.Paths) != 1 || c.Paths[0] != globs[i%len(globs)] {
					t.Fatalf("round %d: the winner's record: %s %+v", round, rec.Status, c)
				}
				continue
			}
			if rec.Status != task.Pending || c != nil {
				t.Fatalf("round %d: loser %d's task is %s with claim %+v", round, i, rec.Status, c)
			}
		}
		ix, err := claim.ReadIndex(claim.IndexFile(p.dir()))
		if err != nil {
			t.Fatal(err)
		}
		if es := ix.Entries(); len(es) != 1 || es[0].Task != ids[winner] || es[0].Owner != fmt.Sprintf("racer-%d", winner) {
			t.Fatalf("round %d: the lease index lists %+v, want the winner's lease only", round, es)
		}
		p.mustCall("task-update", "", ids[winner], "--status", "completed")
		if ix, _ := claim.ReadIndex(claim.IndexFile(p.dir())); !ix.Empty() {
			t.Fatalf("round %d: the lease index outlived the completed claim: %+v", round, ix.Entries())
		}
	}
	t.Logf("%d rounds of %d racers for overlapping leases: exactly one granted each", rounds, racers)
}
