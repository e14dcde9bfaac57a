//go:build linux

package sync

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestClaimRace: eight machines race to claim the same task with
// `task-claim --remote`, round after round: exactly one wins each round,
// every other gets claim_conflict naming the winner and holds the winner's
// claim in its own store, the remote holds the winner's claim, and after a
// sync every machine holds the same store. 3 rounds; 50 with SYNC_SCALE≥1.
func TestClaimRace(t *testing.T) {
	rounds := 3
	if scale() > 0 {
		rounds = 50 * scale()
	}
	bare, ms := newMachines(t, 8)
	for _, m := range ms {
		m.sync()
	}
	for round := 0; round < rounds; round++ {
		var created struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		}
		ms[round%len(ms)].must(&created, "", "task-create", "-s", "race "+strings.Repeat("x", round%3))
		id := created.Tasks[0].ID
		ms[round%len(ms)].sync()
		type outcome struct {
			code int
			out  string
		}
		res := make([]outcome, len(ms))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				out, code := m.run("", "task-claim", id, "--owner", m.name, "--lease", "10m", "--remote")
				res[i] = outcome{code, out}
			}()
		}
		close(start)
		wg.Wait()
		winner := ""
		for i, r := range res {
			switch {
			case r.code == 0:
				if winner != "" {
					t.Fatalf("round %d: two winners, %s and %s", round, winner, ms[i].name)
				}
				winner = ms[i].name
			case strings.Contains(r.out, `"claim_conflict"`):
			default:
				t.Fatalf("round %d: %s answered %d %s", round, ms[i].name, r.code, r.out)
			}
		}
		if winner == "" {
			t.Fatalf("round %d: nobody won: %+v", round, res)
		}
		// The winner's answer is its claim; every loser was told who won and
		// its store now holds the winner's claim.
		var won struct {
			Task struct {
				Owner  string `json:"owner"`
				Status string `json:"status"`
			} `json:"task"`
		}
		for i, r := range res {
			if r.code == 0 {
				if err := json.Unmarshal([]byte(r.out), &won); err != nil || won.Task.Owner != winner || won.Task.Status != "in_progress" {
					t.Fatalf("round %d: the winner answered %s", round, r.out)
				}
				continue
			}
			if !strings.Contains(r.out, "claimed by "+winner+" ") {
				t.Fatalf("round %d: %s's claim_conflict does not name the winner %s: %s", round, ms[i].name, winner, r.out)
			}
			var local struct {
				Owner string `json:"owner"`
			}
			rec := ms[i].files()["tasks/"+id+".json"]
			if err := json.Unmarshal([]byte(rec), &local); err != nil || local.Owner != winner {
				t.Fatalf("round %d: %s's store holds owner %q after losing, want the winner %s", round, ms[i].name, local.Owner, winner)
			}
		}
		// What the remote holds: the winner's claim.
		var got struct {
			Owner    string `json:"owner"`
			Status   string `json:"status"`
			Metadata struct {
				Claim struct {
					Owner string `json:"owner"`
				} `json:"claim"`
			} `json:"metadata"`
		}
		rec := git(t, bare, "show", "matrixx-tasks:tasks/"+id+".json")
		if err := json.Unmarshal([]byte(rec), &got); err != nil {
			t.Fatal(err)
		}
		if got.Owner != winner || got.Status != "in_progress" || got.Metadata.Claim.Owner != winner {
			t.Fatalf("round %d: the remote holds owner %q status %s claim %q, want the winner %s", round, got.Owner, got.Status, got.Metadata.Claim.Owner, winner)
		}
	}
	// Every machine, once synced, holds the last winner's claim.
	for _, m := range ms {
		m.sync()
	}
	last := ms[0].files()
	for _, m := range ms[1:] {
		if f := m.files(); len(f) != len(last) {
			t.Fatalf("%s holds %d files, m0 %d", m.name, len(f), len(last))
		} else {
			for p, c := range last {
				if f[p] != c {
					t.Fatalf("%s: %s differs from m0's", m.name, p)
				}
			}
		}
	}
	t.Logf("%d rounds, one winner each", rounds)
}
