package task

import (
	"strconv"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Unresolved returns the blockers in blockedBy that are not completed,
// looking each up in status: a missing or deleted blocker
// stays unresolved. The result is never nil.
func Unresolved(blockedBy []string, status map[string]Status) []string {
	out := make([]string, 0, len(blockedBy))
	for _, id := range blockedBy {
		if status[id] != Completed {
			out = append(out, id)
		}
	}
	return out
}

// Edge is one ordering constraint: From must finish before To.
// A task T with blockedBy [B] gives B→T; with blocks [X] it gives T→X.
type Edge struct{ From, To string }

// Graph is the "must finish before" relation over a set of tasks, as
// adjacency lists keyed by id.
type Graph map[string][]string

// NewGraph builds the graph from every task's blockedBy and blocks.
func NewGraph(tasks []*Task) Graph {
	g := Graph{}
	for _, t := range tasks {
		for _, b := range t.BlockedBy {
			g[b] = append(g[b], t.ID)
		}
		for _, x := range t.Blocks {
			g[t.ID] = append(g[t.ID], x)
		}
	}
	return g
}

// EdgesOf returns the edges a task would add through its blockedBy and
// blocks lists.
func EdgesOf(id string, blockedBy, blocks []string) []Edge {
	edges := make([]Edge, 0, len(blockedBy)+len(blocks))
	for _, b := range blockedBy {
		edges = append(edges, Edge{From: b, To: id})
	}
	for _, x := range blocks {
		edges = append(edges, Edge{From: id, To: x})
	}
	return edges
}

// Add inserts edges into g, refusing the first one that is a self-edge or
// closes a cycle with dependency_cycle naming the path. Edges before
// the refused one stay added; callers add to a throwaway graph.
func (g Graph) Add(edges []Edge) error {
	for _, e := range edges {
		if e.From == e.To {
			return errcode.New(errcode.DependencyCycle, "%s cannot depend on itself", e.From)
		}
		if path := g.path(e.To, e.From); path != nil {
			cycle := append([]string{e.From}, path...)
			return errcode.New(errcode.DependencyCycle, "the edge %s → %s would close the cycle %s", e.From, e.To, showPath(cycle))
		}
		g[e.From] = append(g[e.From], e.To)
	}
	return nil
}

// path returns a path from → … → to through g (breadth-first), or nil.
func (g Graph) path(from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == to {
			var p []string
			for ; n != ""; n = prev[n] {
				p = append([]string{n}, p...)
			}
			return p
		}
		for _, m := range g[n] {
			if _, seen := prev[m]; !seen {
				prev[m] = n
				queue = append(queue, m)
			}
		}
	}
	return nil
}

// showPath joins a cycle with arrows, eliding the middle of long ones so a
// message stays readable: a → b → … (n more) … → y → z.
func showPath(ids []string) string {
	const keep = 4
	if len(ids) <= 2*keep+1 {
		return strings.Join(ids, " → ")
	}
	head := strings.Join(ids[:keep], " → ")
	tail := strings.Join(ids[len(ids)-keep:], " → ")
	return head + " → … (" + strconv.Itoa(len(ids)-2*keep) + " more) … → " + tail
}

// ActiveChildren maps each parent id to its subtasks that are still
// active (pending or in_progress), in the order given. A parent with
// active subtasks is not work to hand out: task-list --ready and a claim
// without id skip it, and completing it is refused (children_active)
// unless forced.
func ActiveChildren(tasks []*Task) map[string][]string {
	out := map[string][]string{}
	for _, t := range tasks {
		if t.ParentID != "" && t.ParentID != t.ID && t.Status.Active() {
			out[t.ParentID] = append(out[t.ParentID], t.ID)
		}
	}
	return out
}
