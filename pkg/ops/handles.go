package ops

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// ResolveHandles replaces the short handles among a command line's task
// ids (positional ids and id flags; never ids inside a JSON document) with
// the full ids they name (store.ResolveID: task_not_found when none,
// ambiguous_id when several). The project is opened only when a handle is
// given, so full ids cost nothing extra.
func (o *Ops) ResolveHandles(one []*string, many []*[]string) error {
	need := false
	for _, p := range one {
		need = need || task.IsHandle(*p)
	}
	for _, p := range many {
		for _, s := range *p {
			need = need || task.IsHandle(s)
		}
	}
	if !need {
		return nil
	}
	e, err := o.Project()
	if err != nil {
		return err
	}
	for _, p := range one {
		if *p, err = e.Store.ResolveID(*p); err != nil {
			return err
		}
	}
	for _, p := range many {
		if *p, err = e.Store.ResolveIDs(*p); err != nil {
			return err
		}
	}
	return nil
}
