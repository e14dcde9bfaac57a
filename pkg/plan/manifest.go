package plan

import (
	"fmt"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Metadata keys that tie a task to a plan item.
const (
	KeyPlanName     = task.KeyPlanName
	KeyPlanItem     = task.KeyPlanItem
	KeyPlanItemText = task.KeyPlanItemText
)

// Manifest is plan tasks' answer: exactly a task-create batch, so
// `plan tasks NAME | task-create` files the items.
//
//	{"items":[{"subject":"…","metadata":{"planName":"auth","planItem":3,"planItemText":"…"}}]}
type Manifest struct {
	Items []ManifestItem `json:"items"`
}

// ManifestItem is one task to create for one open item.
type ManifestItem struct {
	// Subject is the item's text (what follows the checkbox).
	Subject  string       `json:"subject"`
	Metadata ItemMetadata `json:"metadata"`
}

// ItemMetadata ties a task to its plan item: the plan, the item's number
// and the item's text (the same as the subject when filed; kept apart so a
// renamed task still finds its item).
type ItemMetadata struct {
	PlanName     string `json:"planName"`
	PlanItem     int    `json:"planItem"`
	PlanItemText string `json:"planItemText"`
}

// ManifestOf returns the open items of p that have no task yet (see
// Resolution.Filed; r resolves the plan's links against p's items, see
// Plan.Resolve), in plan order, and notes about items left out for another
// reason (no text).
func ManifestOf(p *Plan, r *Resolution) (*Manifest, []string) {
	m := &Manifest{Items: []ManifestItem{}}
	var notes []string
	for _, it := range p.Items() {
		switch {
		case it.Done || r.Filed(it.Number):
		case it.Text == "":
			notes = append(notes, fmt.Sprintf("%s has no text after its checkbox; left out (a task needs a subject)", it))
		case it.Number < 1:
			notes = append(notes, fmt.Sprintf("%s is numbered 0; left out (planItem numbers start at 1: renumber the items 1, 2, 3, …)", it))
		default:
			m.Items = append(m.Items, ManifestItem{Subject: it.Text, Metadata: ItemMetadata{PlanName: p.Name, PlanItem: it.Number, PlanItemText: it.Text}})
		}
	}
	return m, notes
}

// Resolve resolves links against p's items (see Resolve). Errors:
// validation_error when two items share a number, plan_link_broken
// (*LinkError) when a link cannot be followed.
func (p *Plan) Resolve(links Links) (*Resolution, error) {
	items := p.Items()
	if err := Unique(items, p.Name); err != nil {
		return nil, err
	}
	r := Resolve(items, links)
	if err := r.Err(p.Name); err != nil {
		return nil, err
	}
	return r, nil
}
