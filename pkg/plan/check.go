package plan

import (
	"slices"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
)

// Checked is plan check's answer.
type Checked struct {
	Info
	// Item is the item's number.
	Item int `json:"item"`
	// Done is the item's state now.
	Done bool `json:"done"`
	// Changed is false when the item already was in that state.
	Changed bool `json:"changed"`
	// Lines is the item's line with its fresh anchor.
	Lines []hashline.Line `json:"lines"`
}

// Check sets numbered item n of plan name to done ("[x]") or open ("[ ]")
// under the lock. No anchor is needed: the item's number names it, and
// checking an item that already is in that state changes nothing. Errors:
// invalid_file_path, file_not_found, invalid_edit (no item numbered n),
// validation_error (two items share a number), task_lock_unavailable,
// internal_error.
func (s *Store) Check(name string, n int, done bool) (*Checked, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, errcode.New(errcode.InvalidEdit, "item numbers start at 1, got %d", n)
	}
	return s.check(name, done, func(p *Plan) (Item, error) { return Find(p.Items(), name, n) })
}

// CheckTask sets the item task id stands for to done or open, like Check:
// links are the plan's links (LinksOf), id's among them; the item is found
// by Resolve against the plan as it is under the lock, so a renumbered item
// is followed by its text. relink is called, still under the plan lock and
// before anything is written, with the links to rewrite (Resolution.Moves).
// Errors: as Check, plan_link_broken (*LinkError) when id's link cannot be
// followed or its item is gone, and relink's.
func (s *Store) CheckTask(name, id string, links Links, done bool, relink func([]Move) error) (*Checked, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var link *Link
	for i := range links {
		if links[i].ID == id {
			link = &links[i]
		}
	}
	if link == nil {
		return nil, errcode.New(errcode.ValidationError, "task %s is not linked to plan %s (metadata planName and planItem)", id, name)
	}
	return s.check(name, done, func(p *Plan) (Item, error) {
		items := p.Items()
		if err := Unique(items, name); err != nil {
			return Item{}, err
		}
		r := Resolve(items, links)
		n := r.Item(id)
		if n == 0 {
			for _, br := range r.Broken {
				if br.ID == id {
					return Item{}, newLinkError(name, []Broken{br})
				}
			}
			return Item{}, newLinkError(name, []Broken{{Link: *link, Reason: Gone}})
		}
		if err := relink(r.Moves); err != nil {
			return Item{}, err
		}
		return Find(items, name, n)
	})
}

// check sets the item find returns to done or open under the lock.
func (s *Store) check(name string, done bool, find func(*Plan) (Item, error)) (*Checked, error) {
	var res *Checked
	var item int
	err := s.change(name, false, func(p *Plan) (*hashline.Result, error) {
		it, err := find(p)
		if err != nil {
			return nil, err
		}
		item = it.Number
		lines := slices.Clone(p.Text.Lines)
		lines[it.Line-1] = SetDone(lines[it.Line-1], it, done)
		t := p.Text
		t.Lines = lines
		return &hashline.Result{Text: t, Changed: []int{it.Line}}, nil
	}, func(p *Plan, r *hashline.Result, changed bool) {
		res = &Checked{Info: p.Info(), Item: item, Done: done, Changed: changed, Lines: linesAt(p.Text, r.Changed)}
	})
	return res, err
}

// Synced is plan sync's answer.
type Synced struct {
	Info
	// Checked are the numbers of the items this call ticked.
	Checked []int `json:"checked"`
	// Lines are their lines with fresh anchors.
	Lines []hashline.Line `json:"lines"`
	// Notes name the tasks whose item is gone (Resolution.Notes), for
	// stderr.
	Notes []string `json:"-"`
}

// Sync ticks every open numbered item of plan name that Resolution.Finished
// reports, under the lock; links are the plan's links (LinksOf), resolved
// against the plan as it is under the lock, so a renumbered item is
// followed by its text and a number alone never ticks anything. relink is
// called, still under the plan lock and before the plan is written, with
// the links to rewrite (Resolution.Moves). Items are never unticked.
// Errors: as Check, plan_link_broken (*LinkError; nothing is changed), and
// relink's.
func (s *Store) Sync(name string, links Links, relink func([]Move) error) (*Synced, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var res *Synced
	var notes []string
	err := s.change(name, false, func(p *Plan) (*hashline.Result, error) {
		rs, err := p.Resolve(links)
		if err != nil {
			return nil, err
		}
		notes = rs.Notes(name)
		if err := relink(rs.Moves); err != nil {
			return nil, err
		}
		t := p.Text
		t.Lines = slices.Clone(p.Text.Lines)
		r := &hashline.Result{Changed: []int{}}
		for _, it := range p.Items() {
			if !it.Done && rs.Finished(it.Number) {
				t.Lines[it.Line-1] = SetDone(t.Lines[it.Line-1], it, true)
				r.Changed = append(r.Changed, it.Line)
			}
		}
		r.Text = t
		return r, nil
	}, func(p *Plan, r *hashline.Result, changed bool) {
		res = &Synced{Info: p.Info(), Checked: []int{}, Lines: linesAt(p.Text, r.Changed), Notes: notes}
		for _, it := range p.Items() {
			if slices.Contains(r.Changed, it.Line) {
				res.Checked = append(res.Checked, it.Number)
			}
		}
	})
	return res, err
}
