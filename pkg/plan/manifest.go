package plan

import (
	"fmt"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Metadata keys that tie a task to a plan item (D18).
const (
	KeyPlanName = task.KeyPlanName
	KeyPlanItem = task.KeyPlanItem
)

// Links are the tasks of one plan, by item number: the tasks whose
// metadata.planName is the plan's name and whose metadata.planItem is the
// item's number (a JSON integer, or a string of digits), in the same
// project: tasks for which sameProject(projectRoot) is false are ignored
// (project.Matcher.Same: every task of the project's own store counts; in
// a shared store, tasks whose projectRoot names another project do not,
// tasks without one do; docs/design.md S24).
type Links map[int][]task.Status

// LinksOf collects the links of plan name among tasks. sameProject is
// called once per task and must be cheap (project.Matcher caches).
func LinksOf(tasks []*task.Task, name string, sameProject func(projectRoot string) bool) Links {
	links := Links{}
	for _, t := range tasks {
		if !sameProject(t.ProjectRoot) {
			continue
		}
		pn, n, ok := t.Metadata.PlanItem()
		if !ok || pn != name {
			continue
		}
		links[n] = append(links[n], t.Status)
	}
	return links
}

// Filed reports whether item n has a task that is not deleted: such an
// item is left out of the manifest. Deleting an item's task files it again.
func (l Links) Filed(n int) bool {
	for _, st := range l[n] {
		if st != task.Deleted {
			return true
		}
	}
	return false
}

// Finished reports whether item n has a completed task and no active one:
// plan sync ticks such items.
func (l Links) Finished(n int) bool {
	done := false
	for _, st := range l[n] {
		switch {
		case st == task.Completed:
			done = true
		case st.Active():
			return false
		}
	}
	return done
}

// Manifest is plan tasks' answer: exactly a task-create batch (D18), so
// `plan tasks NAME | task-create` files the items.
//
//	{"items":[{"subject":"…","metadata":{"planName":"auth","planItem":3}}]}
type Manifest struct {
	Items []ManifestItem `json:"items"`
}

// ManifestItem is one task to create for one open item.
type ManifestItem struct {
	// Subject is the item's text (what follows the checkbox).
	Subject  string       `json:"subject"`
	Metadata ItemMetadata `json:"metadata"`
}

// ItemMetadata ties a task to its plan item.
type ItemMetadata struct {
	PlanName string `json:"planName"`
	PlanItem int    `json:"planItem"`
}

// ManifestOf returns the open items of p that have no task yet (see
// Links.Filed), in plan order, and notes about items left out for another
// reason (no text). Error: validation_error when two items share a number.
func ManifestOf(p *Plan, links Links) (*Manifest, []string, error) {
	items := p.Items()
	if err := Unique(items, p.Name); err != nil {
		return nil, nil, err
	}
	m := &Manifest{Items: []ManifestItem{}}
	var notes []string
	for _, it := range items {
		switch {
		case it.Done || links.Filed(it.Number):
		case it.Text == "":
			notes = append(notes, fmt.Sprintf("%s has no text after its checkbox; left out (a task needs a subject)", it))
		default:
			m.Items = append(m.Items, ManifestItem{Subject: it.Text, Metadata: ItemMetadata{PlanName: p.Name, PlanItem: it.Number}})
		}
	}
	return m, notes, nil
}
