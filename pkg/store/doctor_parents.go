package store

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// KindParentCycle is a loop of parentIDs: tasks that are each other's
// parent, or a task that is its own parent. No task of the loop has a root
// to hang from, so a tree cannot draw it. An error when a task of the loop
// is active, else a warning. Never repaired by --repair: which parent is
// wrong is for a person to say.
const KindParentCycle = "parent_cycle"

// parentCycles finds every parentID loop of tasks (one finding per loop,
// ids sorted); entries are the snapshot's, sorted by id, tasks the same by
// id. Each chain is followed once, so it costs linear time; a task without
// a parent is in no loop and starts no chain.
func parentCycles(entries []Entry, tasks map[string]*task.Task) []Finding {
	var out []Finding
	done := map[string]bool{}
	on := map[string]int{}
	var path []string
	for _, e := range entries {
		start := e.Task.ID
		if e.Task.ParentID == "" || done[start] {
			continue
		}
		path = path[:0]
		clear(on)
		for id := start; id != "" && !done[id]; {
			if i, ok := on[id]; ok {
				out = append(out, parentCycle(tasks, slices.Clone(path[i:])))
				break
			}
			on[id] = len(path)
			path = append(path, id)
			t := tasks[id]
			if t == nil {
				break
			}
			id = t.ParentID
		}
		for _, id := range path {
			done[id] = true
		}
	}
	return out
}

// parentCycle is the finding for one loop.
func parentCycle(tasks map[string]*task.Task, loop []string) Finding {
	sev := SeverityWarning
	for _, id := range loop {
		if tasks[id].Status.Active() {
			sev = SeverityError
		}
	}
	slices.Sort(loop)
	f := Finding{Kind: KindParentCycle, Severity: sev, IDs: loop}
	if len(loop) == 1 {
		f.Message = fmt.Sprintf("%s is its own parent (parentID names itself)", loop[0])
		f.Repair = fmt.Sprintf("by hand: set the parentID of %s to its real parent, or remove it, in its file", loop[0])
		return f
	}
	f.Message = fmt.Sprintf("%d task(s) are each other's parent: %s (a parentID loop has no root)", len(loop), strings.Join(loop, ", "))
	f.Repair = "by hand: set the parentID of one of them to its real parent, or remove it, in its file"
	return f
}
