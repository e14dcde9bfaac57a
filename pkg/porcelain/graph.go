package porcelain

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

type graphCmd struct {
	Format string `short:"f" enum:"text,mermaid,dot" default:"text" placeholder:"FORMAT" help:"text (for the terminal), mermaid (renders in GitHub markdown) or dot (Graphviz)."`
	All    bool   `short:"a" help:"Include completed tasks (deleted ones are never drawn)."`
	Label  string `enum:"both,handle,subject" default:"both" placeholder:"LABEL" help:"Node labels: both (handle and subject), handle or subject."`
}

func (c *graphCmd) Help() string {
	return `Example: matrixx graph --format mermaid > graph.md

The dependency graph: an edge A -> B means B waits for A (B's blockedBy names A, or A's blocks
names B). Tasks are ranked in waves: wave 1 waits for nothing shown, wave N for tasks of earlier
waves only; without --all only active tasks are shown, so wave 1 is what can run now. Status is
the node's style. Tasks in a dependency cycle get no wave and are drawn apart; blockers with no
task (missing or deleted) are drawn as such.

  matrixx graph                         waves as text
  matrixx graph -f mermaid              paste into GitHub markdown
  matrixx graph -f dot | dot -Tsvg > g.svg

--json prints task-list --waves's document.`
}

// graph is the drawable dependency graph of a view.
type graph struct {
	nodes   []*task.Task        // shown tasks, creation order
	num     map[string]int      // id → node number (1-based)
	preds   map[string][]string // id → shown or missing blockers, sorted
	missing []string            // blocker ids with no shown task and no completed one
	waves   [][]*task.Task
	cycle   []*task.Task
}

// buildGraph ranks the shown tasks in waves (longest path from a task with
// no shown blocker; Kahn's algorithm, so cycles cannot hang it).
func buildGraph(v *view, all bool) *graph {
	g := &graph{num: map[string]int{}, preds: map[string][]string{}}
	shown := func(t *task.Task) bool {
		return t != nil && t.Status != task.Deleted && (all || t.Status.Active())
	}
	for _, t := range v.tasks {
		if shown(t) {
			g.nodes = append(g.nodes, t)
			g.num[t.ID] = len(g.nodes)
		}
	}
	miss := map[string]bool{}
	for _, t := range g.nodes {
		for _, b := range v.blockers(t.ID) {
			bt := v.get(b)
			switch {
			case shown(bt):
				g.preds[t.ID] = append(g.preds[t.ID], b)
			case bt != nil && bt.Status == task.Completed:
				// resolved and not drawn
			default:
				g.preds[t.ID] = append(g.preds[t.ID], b)
				miss[b] = true
			}
		}
	}
	for b := range miss {
		g.missing = append(g.missing, b)
	}
	slices.Sort(g.missing)
	// Kahn: a node's wave is one more than its latest shown blocker's.
	wave := map[string]int{}
	indeg := map[string]int{}
	succ := map[string][]string{}
	for _, t := range g.nodes {
		for _, b := range g.preds[t.ID] {
			if _, ok := g.num[b]; ok {
				indeg[t.ID]++
				succ[b] = append(succ[b], t.ID)
			}
		}
	}
	var queue []string
	for _, t := range g.nodes {
		if indeg[t.ID] == 0 {
			queue = append(queue, t.ID)
			wave[t.ID] = 1
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, s := range succ[id] {
			wave[s] = max(wave[s], wave[id]+1)
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	for _, t := range g.nodes {
		w, ok := wave[t.ID]
		if !ok || indeg[t.ID] > 0 {
			g.cycle = append(g.cycle, t)
			continue
		}
		for len(g.waves) < w {
			g.waves = append(g.waves, nil)
		}
		g.waves[w-1] = append(g.waves[w-1], t)
	}
	return g
}

func (c *graphCmd) run(r *runner) error {
	if r.g.JSON {
		if c.Format != "text" || c.Label != "both" {
			return errcode.New(errcode.InvalidArguments, "--json prints task-list --waves's document, which has no --format or --label: give one or the other")
		}
		_, a := r.listOp(&task.ListRequest{Waves: true})
		return r.passJSON(a)
	}
	v, err := r.listing(false)
	if err != nil {
		return err
	}
	if v == nil {
		return nil // no store here: said
	}
	g := buildGraph(v, c.All)
	switch c.Format {
	case "mermaid":
		g.mermaid(r.stdout, v, c.Label)
	case "dot":
		g.dot(r.stdout, v, c.Label)
	default:
		g.text(r, v)
	}
	return nil
}

// maxLabel is the most display cells of a subject in a node: a longer one
// is cut with "…" (a 300-character subject makes a node nobody can read).
const maxLabel = 60

// label is a node's text.
func label(v *view, t *task.Task, kind string) string {
	subject := runewidth.Truncate(clean(t.Subject), maxLabel, "…")
	switch kind {
	case "handle":
		return v.h(t.ID)
	case "subject":
		return subject
	}
	return v.h(t.ID) + " " + subject
}

// node is the graph's name for a shown task (n1, n2, … in creation order)
// or a missing blocker (m1, m2, …).
func (g *graph) node(id string) string {
	if n, ok := g.num[id]; ok {
		return fmt.Sprintf("n%d", n)
	}
	return fmt.Sprintf("m%d", slices.Index(g.missing, id)+1)
}

// styles per status: fill and stroke colours, shared by mermaid and dot.
var graphStyle = map[string][2]string{
	"pending":     {"#f1f5f9", "#64748b"},
	"in_progress": {"#fef3c7", "#d97706"},
	"completed":   {"#dcfce7", "#16a34a"},
	"missing":     {"#fee2e2", "#dc2626"},
}

func (g *graph) edges(fn func(from, to string)) {
	for _, t := range g.nodes {
		for _, b := range g.preds[t.ID] {
			fn(g.node(b), g.node(t.ID))
		}
	}
}

// cycleGroup is one group of the tasks that got no wave: a cycle (tasks
// that wait for each other), or, with after, the tasks that only wait for
// a cycle.
type cycleGroup struct {
	tasks []*task.Task
	after bool
}

// cycleGroups splits g.cycle into its cycles (strongly connected
// components over the shown edges, in creation order of their first task),
// then one group of the tasks that only wait for a cycle. Two separate
// cycles are two groups. Cycles are rare and small: mutual reachability
// per task is enough.
func (g *graph) cycleGroups() []cycleGroup {
	in := map[string]bool{}
	for _, t := range g.cycle {
		in[t.ID] = true
	}
	succ := map[string][]string{}
	for _, t := range g.cycle {
		for _, b := range g.preds[t.ID] {
			if in[b] {
				succ[b] = append(succ[b], t.ID)
			}
		}
	}
	reach := func(from string, next func(string) []string) map[string]bool {
		seen := map[string]bool{}
		stack := []string{from}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range next(x) {
				if in[y] && !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		return seen
	}
	done := map[string]bool{}
	var out []cycleGroup
	var after []*task.Task
	for _, t := range g.cycle {
		if done[t.ID] {
			continue
		}
		fwd := reach(t.ID, func(x string) []string { return succ[x] })
		if !fwd[t.ID] {
			after = append(after, t)
			done[t.ID] = true
			continue
		}
		back := reach(t.ID, func(x string) []string { return g.preds[x] })
		var grp []*task.Task
		for _, u := range g.cycle {
			if fwd[u.ID] && back[u.ID] && !done[u.ID] {
				grp = append(grp, u)
				done[u.ID] = true
			}
		}
		out = append(out, cycleGroup{tasks: grp})
	}
	if len(after) > 0 {
		out = append(out, cycleGroup{tasks: after, after: true})
	}
	return out
}

// mermaid prints a Mermaid flowchart: one subgraph per wave, an edge per
// dependency, a class per status.
func (g *graph) mermaid(w io.Writer, v *view, kind string) {
	esc := func(s string) string {
		// Mermaid's entity codes start with # and end with ;: a literal
		// "#35;" or "&amp;" in a subject must not turn into a character.
		return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "#", "#35;", "&", "#amp;").Replace(s)
	}
	fmt.Fprintln(w, "flowchart LR")
	used := map[string][]string{}
	group := func(title, id string, ts []*task.Task) {
		fmt.Fprintf(w, "  subgraph %s[\"%s\"]\n", id, title)
		for _, t := range ts {
			n := g.node(t.ID)
			fmt.Fprintf(w, "    %s[\"%s\"]\n", n, esc(label(v, t, kind)))
			used[string(t.Status)] = append(used[string(t.Status)], n)
		}
		fmt.Fprintln(w, "  end")
	}
	for i, ts := range g.waves {
		group(fmt.Sprintf("wave %d", i+1), fmt.Sprintf("wave%d", i+1), ts)
	}
	for i, ts := range g.cycleGroups() {
		title := "cycle: waits for itself"
		if ts.after {
			title = "waits for a cycle"
		}
		group(title, fmt.Sprintf("cycle%d", i+1), ts.tasks)
	}
	for _, id := range g.missing {
		n := g.node(id)
		fmt.Fprintf(w, "  %s[\"%s (no such task)\"]\n", n, esc(id))
		used["missing"] = append(used["missing"], n)
	}
	g.edges(func(from, to string) { fmt.Fprintf(w, "  %s --> %s\n", from, to) })
	for _, st := range []string{"pending", "in_progress", "completed", "missing"} {
		if len(used[st]) == 0 {
			continue
		}
		c := graphStyle[st]
		extra := ""
		if st == "missing" {
			extra = ",stroke-dasharray:4 3"
		}
		fmt.Fprintf(w, "  classDef %s fill:%s,stroke:%s%s\n", st, c[0], c[1], extra)
		fmt.Fprintf(w, "  class %s %s\n", strings.Join(used[st], ","), st)
	}
}

// dot prints a Graphviz digraph: one rank=same subgraph per wave, nodes
// filled by status.
func (g *graph) dot(w io.Writer, v *view, kind string) {
	esc := func(s string) string { return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) }
	fmt.Fprintln(w, "digraph tasks {")
	fmt.Fprintln(w, "  rankdir=LR;")
	fmt.Fprintln(w, `  node [shape=box, style="rounded,filled", fontname="Helvetica"];`)
	nodeLine := func(n, text, st string) {
		c := graphStyle[st]
		extra := ""
		if st == "missing" {
			extra = `, style="rounded,filled,dashed"`
		}
		fmt.Fprintf(w, "    %s [label=\"%s\", fillcolor=\"%s\", color=\"%s\"%s];\n", n, esc(text), c[0], c[1], extra)
	}
	for i, ts := range g.waves {
		fmt.Fprintf(w, "  subgraph wave_%d {\n    rank=same;\n", i+1)
		for _, t := range ts {
			nodeLine(g.node(t.ID), label(v, t, kind), string(t.Status))
		}
		fmt.Fprintln(w, "  }")
	}
	for i, grp := range g.cycleGroups() {
		title := "cycle: waits for itself"
		if grp.after {
			title = "waits for a cycle"
		}
		fmt.Fprintf(w, "  subgraph cluster_cycle%d {\n    label=\"%s\";\n", i+1, title)
		for _, t := range grp.tasks {
			nodeLine(g.node(t.ID), label(v, t, kind), string(t.Status))
		}
		fmt.Fprintln(w, "  }")
	}
	for _, id := range g.missing {
		nodeLine(g.node(id), id+" (no such task)", "missing")
	}
	g.edges(func(from, to string) { fmt.Fprintf(w, "  %s -> %s;\n", from, to) })
	fmt.Fprintln(w, "}")
}

// text prints the waves for the terminal.
func (g *graph) text(r *runner, v *view) {
	w := r.stdout
	if len(g.nodes) == 0 {
		fmt.Fprintln(w, "no active tasks (matrixx add \"subject\" adds one)")
		return
	}
	line := func(t *task.Task) {
		s := "  " + r.st.paint(t.Status, r.st.glyph(t.Status)+" "+v.h(t.ID)) + "  " + clean(t.Subject)
		if ps := g.preds[t.ID]; len(ps) > 0 {
			var names []string
			for _, p := range ps {
				if _, ok := g.num[p]; ok {
					names = append(names, v.h(p))
				} else {
					names = append(names, p+" (no such task)")
				}
			}
			s += r.st.dim("  " + r.st.pick("⟵ ", "<- ") + strings.Join(names, ", "))
		}
		if r.st.width > 0 && !r.st.color {
			s = r.st.truncate(s, r.st.width)
		}
		fmt.Fprintln(w, s)
	}
	for i, ts := range g.waves {
		fmt.Fprintln(w, r.st.bold(fmt.Sprintf("wave %d", i+1)))
		for _, t := range ts {
			line(t)
		}
	}
	if len(g.cycle) > 0 {
		fmt.Fprintln(w, r.st.bold("cycle (these tasks wait for each other: matrixx doctor)"))
		for _, t := range g.cycle {
			line(t)
		}
	}
}
