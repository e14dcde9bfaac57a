package store

import (
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Wave is one wave of task-list --waves: tasks that can run together once
// every earlier wave is done.
type Wave struct {
	Wave  int            `json:"wave"`
	Tasks []task.Summary `json:"tasks"`
}

// Stuck is one entry of the waves answer's "missing": a task that can never
// start as things stand, and the blockers that hold it (docs/claims.md).
type Stuck struct {
	ID        string   `json:"id"`
	BlockedBy []string `json:"blockedBy"`
}

// WavesResult is task-list --waves's answer: {"waves":[…],"cycles":[[…]],
// "missing":[…]}, plus "problems" (unreadable files) when there are any.
type WavesResult struct {
	Waves    []Wave     `json:"waves"`
	Cycles   [][]string `json:"cycles"`
	Missing  []Stuck    `json:"missing"`
	Problems []Problem  `json:"problems,omitempty"`
}

// Waves reads the store and plans its active tasks in waves (PlanWaves).
func (s *Store) Waves(req *task.ListRequest) (*WavesResult, error) {
	snap, err := s.Scan(ScanOptions{})
	if err != nil {
		return nil, err
	}
	return PlanWaves(snap, req, s.now()), nil
}

// PlanWaves plans the active (pending and in_progress) tasks of a snapshot
// by their blockedBy lists, as --ready reads them (docs/claims.md):
//
//   - a completed blocker is resolved; wave 1 holds the active tasks with
//     no unresolved blocker (in_progress ones run now, pending ones are
//     runnable now); wave n+1 the tasks whose active blockers are all in
//     waves 1..n;
//   - cycles lists each set of tasks that wait for each other (a strongly
//     connected component of the blockedBy graph: ids sorted), such as a
//     cycle written by hand or by another tool: never a hang;
//   - missing lists every other task that can never start: blockedBy names
//     its blockers that are missing from the store or deleted, or, for a
//     task that only waits behind such tasks or behind a cycle, the
//     blockers that hold it (themselves in missing or cycles).
//
// Tasks, cycles and missing are sorted by id; with req.ParentID only that
// parent's subtasks are shown (waves keep the numbers of the whole plan;
// empty waves are left out). It runs in time linear in the store.
func PlanWaves(snap *Snapshot, req *task.ListRequest, now time.Time) *WavesResult {
	return planWaves(snap, req, now, false)
}

// waveCycles is PlanWaves(snap, every task, now).Cycles alone: the waves'
// summaries and missing are not made (task-doctor's cycle check).
func waveCycles(snap *Snapshot, now time.Time) [][]string {
	return planWaves(snap, &task.ListRequest{}, now, true).Cycles
}

// planWaves is PlanWaves; with cyclesOnly the answer holds only cycles.
func planWaves(snap *Snapshot, req *task.ListRequest, now time.Time, cyclesOnly bool) *WavesResult {
	res := &WavesResult{Waves: []Wave{}, Cycles: [][]string{}, Missing: []Stuck{}, Problems: snap.Problems}
	status := make(map[string]task.Status, len(snap.Entries))
	for _, e := range snap.Entries {
		status[e.Task.ID] = e.Task.Status
	}
	// Nodes: the active tasks, indexed.
	var nodes []*task.Task
	index := make(map[string]int, len(snap.Entries))
	for _, e := range snap.Entries {
		if e.Task.Status.Active() {
			index[e.Task.ID] = len(nodes)
			nodes = append(nodes, e.Task)
		}
	}
	n := len(nodes)
	deps := make([][]int, n)       // active unresolved blockers
	dependents := make([][]int, n) // reverse edges
	bad := make([][]string, n)     // missing or deleted blockers
	unresolved := make([][]string, n)
	for i, t := range nodes {
		unresolved[i] = task.Unresolved(t.BlockedBy, status)
		for _, b := range unresolved[i] {
			j, ok := index[b]
			if !ok { // missing, or deleted (completed ones are resolved)
				bad[i] = append(bad[i], b)
				continue
			}
			if !slices.Contains(deps[i], j) {
				deps[i] = append(deps[i], j)
				dependents[j] = append(dependents[j], i)
			}
		}
	}
	// Kahn's algorithm, level by level; a task with a bad blocker never
	// becomes ready, nor does anything behind it.
	wave := make([]int, n)
	pending := make([]int, n)
	var level []int
	for i := range nodes {
		pending[i] = len(deps[i])
		if pending[i] == 0 && len(bad[i]) == 0 {
			level = append(level, i)
		}
	}
	for w := 1; len(level) > 0; w++ {
		var next []int
		for _, i := range level {
			wave[i] = w
			for _, k := range dependents[i] {
				if pending[k]--; pending[k] == 0 && len(bad[k]) == 0 {
					next = append(next, k)
				}
			}
		}
		level = next
	}
	show := func(t *task.Task) bool { return req.ParentID == "" || t.ParentID == req.ParentID }
	byWave := map[int][]task.Summary{}
	maxWave := 0
	for i, t := range nodes {
		if cyclesOnly || wave[i] == 0 || !show(t) {
			continue
		}
		byWave[wave[i]] = append(byWave[wave[i]], summaryOf(t, unresolved[i], now))
		maxWave = max(maxWave, wave[i])
	}
	for w := 1; w <= maxWave; w++ {
		if ts := byWave[w]; len(ts) > 0 {
			res.Waves = append(res.Waves, Wave{Wave: w, Tasks: ts}) // nodes are in id order
		}
	}
	// The unscheduled tasks: cycles among them, then what holds the rest.
	onCycle := make([]bool, n)
	for _, comp := range components(n, deps, func(i int) bool { return wave[i] == 0 }) {
		if len(comp) == 1 && !slices.Contains(deps[comp[0]], comp[0]) {
			continue
		}
		ids := make([]string, 0, len(comp))
		visible := false
		for _, i := range comp {
			onCycle[i] = true
			ids = append(ids, nodes[i].ID)
			visible = visible || show(nodes[i])
		}
		if visible {
			slices.Sort(ids)
			res.Cycles = append(res.Cycles, ids)
		}
	}
	slices.SortFunc(res.Cycles, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	if cyclesOnly {
		return res
	}
	for i, t := range nodes {
		if wave[i] != 0 || !show(t) {
			continue
		}
		holders := append([]string{}, bad[i]...)
		if len(holders) == 0 && onCycle[i] {
			continue // reported in cycles
		}
		if len(holders) == 0 {
			for _, j := range deps[i] {
				if wave[j] == 0 {
					holders = append(holders, nodes[j].ID)
				}
			}
		}
		res.Missing = append(res.Missing, Stuck{ID: t.ID, BlockedBy: holders})
	}
	return res
}

// components returns the strongly connected components of the graph
// restricted to the nodes keep accepts (Tarjan's algorithm without
// recursion, so a long chain cannot overflow the stack).
func components(n int, adj [][]int, keep func(int) bool) [][]int {
	idx := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range idx {
		idx[i] = -1
	}
	var out [][]int
	var st []int
	counter := 0
	type frame struct{ v, next int }
	for root := 0; root < n; root++ {
		if idx[root] >= 0 || !keep(root) {
			continue
		}
		call := []frame{{root, 0}}
		idx[root], low[root] = counter, counter
		counter++
		st = append(st, root)
		on[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < len(adj[v]) {
				w := adj[v][f.next]
				f.next++
				if !keep(w) {
					continue
				}
				if idx[w] < 0 {
					idx[w], low[w] = counter, counter
					counter++
					st = append(st, w)
					on[w] = true
					call = append(call, frame{w, 0})
				} else if on[w] {
					low[v] = min(low[v], idx[w])
				}
				continue
			}
			if low[v] == idx[v] {
				var comp []int
				for {
					w := st[len(st)-1]
					st = st[:len(st)-1]
					on[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				out = append(out, comp)
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
		}
	}
	return out
}
