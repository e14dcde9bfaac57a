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
	var res *Checked
	err := s.change(name, false, func(p *Plan) (*hashline.Result, error) {
		it, err := Find(p.Items(), name, n)
		if err != nil {
			return nil, err
		}
		lines := slices.Clone(p.Text.Lines)
		lines[it.Line-1] = SetDone(lines[it.Line-1], it, done)
		t := p.Text
		t.Lines = lines
		return &hashline.Result{Text: t, Changed: []int{it.Line}}, nil
	}, func(p *Plan, r *hashline.Result, changed bool) {
		res = &Checked{Info: p.Info(), Item: n, Done: done, Changed: changed, Lines: linesAt(p.Text, r.Changed)}
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
}

// Sync ticks every open numbered item of plan name for which finished(n)
// is true (see Links.Finished), under the lock. Items are never unticked.
// Errors: as Check.
func (s *Store) Sync(name string, finished func(item int) bool) (*Synced, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var res *Synced
	err := s.change(name, false, func(p *Plan) (*hashline.Result, error) {
		items := p.Items()
		if err := Unique(items, name); err != nil {
			return nil, err
		}
		t := p.Text
		t.Lines = slices.Clone(p.Text.Lines)
		r := &hashline.Result{Changed: []int{}}
		for _, it := range items {
			if !it.Done && finished(it.Number) {
				t.Lines[it.Line-1] = SetDone(t.Lines[it.Line-1], it, true)
				r.Changed = append(r.Changed, it.Line)
			}
		}
		r.Text = t
		return r, nil
	}, func(p *Plan, r *hashline.Result, changed bool) {
		res = &Synced{Info: p.Info(), Checked: []int{}, Lines: linesAt(p.Text, r.Changed)}
		for _, it := range p.Items() {
			if slices.Contains(r.Changed, it.Line) {
				res.Checked = append(res.Checked, it.Number)
			}
		}
	})
	return res, err
}
