package plan

import (
	"path/filepath"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// OpenItems tells task-cleanup which completed tasks still stand for an
// unticked plan item (docs/plans.md, docs/design/decisions.md): deleting
// such a task before plan sync ticks its item would make plan tasks file
// the finished work again. Each plan is read at most once, without the
// lock (reads never lock).
type OpenItems struct {
	root  string
	same  func(projectRoot string) bool
	plans map[string][]Item // plan file → its items (nil: no readable plan)
}

// NewOpenItems looks up plans in the project at root; sameProject tells
// which tasks belong to it (project.Matcher.Same, docs/design/decisions.md).
func NewOpenItems(root string, sameProject func(projectRoot string) bool) *OpenItems {
	return &OpenItems{root: root, same: sameProject, plans: map[string][]Item{}}
}

// Has reports whether t's metadata planName and planItem (task.PlanItem)
// name an unticked numbered item of an existing plan, following the item's
// text as plan sync does but erring on the side of keeping: the
// item numbered planItem when it carries the task's planItemText (the
// subject for a task filed before texts were recorded); else any item
// carrying that text; else the item numbered planItem, which an edit of
// the text may have left behind. The plan is looked
// up in root when t belongs to this project (sameProject: always in the
// project's own store, so a moved project finds its plans), else in the
// project of t's projectRoot when that is an absolute path (a task
// directory shared by several projects). A missing or unreadable plan, a
// planName that is not a valid plan name, and a number the plan does not
// have answer false: nothing is left to tick, and task-cleanup deletes the
// task as usual.
func (o *OpenItems) Has(t *task.Task) bool {
	name, _, ok := t.Metadata.PlanItem()
	if !ok || !ValidName(name) {
		return false
	}
	l, _ := LinkOf(t, name)
	root := o.root
	if !o.same(t.ProjectRoot) && filepath.IsAbs(t.ProjectRoot) {
		root = t.ProjectRoot
	}
	s := &Store{Dir: DirOf(root), Root: root}
	path := s.Path(name)
	items, seen := o.plans[path]
	if !seen {
		if p, err := s.Read(name); err == nil {
			items = p.Items()
		}
		o.plans[path] = items
	}
	var atNumber *Item
	carriers, open := 0, false
	for i, it := range items {
		if it.Number == l.Item && atNumber == nil {
			atNumber = &items[i]
		}
		if SameText(it.Text, l.Text) {
			carriers++
			open = open || !it.Done
		}
	}
	switch {
	case atNumber != nil && SameText(atNumber.Text, l.Text):
		return !atNumber.Done
	case carriers > 0:
		return open
	}
	return atNumber != nil && !atNumber.Done
}
