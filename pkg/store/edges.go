package store

import (
	"slices"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// mirror is the other end of new dependency edges: a task read under the
// lock, with the ids to add to its blocks and blockedBy lists.
type mirror struct {
	t         *task.Task
	mtime     time.Time
	blocks    []string
	blockedBy []string
	// unBlocks and unBlockedBy are ids to remove (edges removed).
	unBlocks    []string
	unBlockedBy []string
}

// mirrorsFor reads, under the lock, every task named by a request's new
// edges of id (blockedBy: id waits for them; blocks: they wait for id) and
// returns the mirror edges they lack: "A blockedBy B" is kept together
// with "B blocks A" (docs/claims.md). An id that names no task is refused
// with task_not_found naming the field and the id, nothing written.
func (tx *txn) mirrorsFor(id string, blockedBy, blocks []string, fieldBlockedBy, fieldBlocks string) ([]*mirror, error) {
	return tx.mirrorsOf(id, nil, blockedBy, blocks, fieldBlockedBy, fieldBlocks, nil, nil)
}

// edgeMirrors is mirrorsFor for an update that may also remove edges of
// t (unBlockedBy: t no longer waits for them; unBlocks: they no longer
// wait for t): the other ends lose their mirror edge in the same
// transaction. An edge to remove that neither end records is refused
// (validation_error naming the field), as is an id both added and
// removed; a task named by a removal that no longer exists is not an
// error (the edge goes from t alone).
func (tx *txn) edgeMirrors(t *task.Task, blockedBy, blocks []string, fieldBlockedBy, fieldBlocks string, unBlockedBy, unBlocks []string) ([]*mirror, error) {
	return tx.mirrorsOf(t.ID, t, blockedBy, blocks, fieldBlockedBy, fieldBlocks, unBlockedBy, unBlocks)
}

func (tx *txn) mirrorsOf(id string, t *task.Task, blockedBy, blocks []string, fieldBlockedBy, fieldBlocks string, unBlockedBy, unBlocks []string) ([]*mirror, error) {
	byID := map[string]*mirror{}
	var order []*mirror
	absent := map[string]bool{}
	get := func(field, other string) (*mirror, error) {
		if m, ok := byID[other]; ok {
			return m, nil
		}
		t, mtime, err := tx.readRec(other)
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, errcode.Field(errcode.TaskNotFound, field, "no task %s in %s (dependencies must name existing tasks; nothing was written)", other, tx.s.Dir)
		}
		m := &mirror{t: t, mtime: mtime}
		byID[other] = m
		order = append(order, m)
		return m, nil
	}
	for _, b := range blockedBy {
		if b == id {
			continue // a self-edge: refused by the cycle check
		}
		m, err := get(fieldBlockedBy, b)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(m.t.Blocks, id) {
			m.blocks = append(m.blocks, id)
		}
	}
	for _, x := range blocks {
		if x == id {
			continue
		}
		m, err := get(fieldBlocks, x)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(m.t.BlockedBy, id) {
			m.blockedBy = append(m.blockedBy, id)
		}
	}
	remove := func(field string, list []string, mine []string, theirs func(m *mirror) *[]string) error {
		for _, x := range list {
			if slices.Contains(blockedBy, x) && field == "removeBlockedBy" || slices.Contains(blocks, x) && field == "removeBlocks" {
				return errcode.Field(errcode.ValidationError, field, "%s is both added and removed (nothing was written)", x)
			}
			m, ok := byID[x]
			if !ok && !absent[x] {
				o, mtime, err := tx.readRec(x)
				if err != nil {
					return err
				}
				if o == nil {
					absent[x] = true
				} else {
					m = &mirror{t: o, mtime: mtime}
					byID[x] = m
					order = append(order, m)
				}
			}
			has := m != nil && slices.Contains(*theirs(m), id)
			if !has && !slices.Contains(mine, x) {
				what := "waits for"
				if field == "removeBlocks" {
					what = "blocks"
				}
				return errcode.Field(errcode.ValidationError, field, "%s %s no %s: there is no such dependency to remove (nothing was written)", id, what, x)
			}
			if has {
				if field == "removeBlockedBy" {
					m.unBlocks = append(m.unBlocks, id)
				} else {
					m.unBlockedBy = append(m.unBlockedBy, id)
				}
			}
		}
		return nil
	}
	if t != nil {
		if err := remove("removeBlockedBy", unBlockedBy, t.BlockedBy, func(m *mirror) *[]string { return &m.t.Blocks }); err != nil {
			return nil, err
		}
		if err := remove("removeBlocks", unBlocks, t.Blocks, func(m *mirror) *[]string { return &m.t.BlockedBy }); err != nil {
			return nil, err
		}
	}
	out := order[:0]
	for _, m := range order {
		if len(m.blocks)+len(m.blockedBy)+len(m.unBlocks)+len(m.unBlockedBy) > 0 {
			out = append(out, m)
		}
	}
	return out, nil
}

// writeMirrors adds the mirror edges. They are bookkeeping: each file
// keeps its mtime.
func (tx *txn) writeMirrors(ms []*mirror) error {
	tx.mirroring = true
	defer func() { tx.mirroring = false }()
	for _, m := range ms {
		m.t.Blocks = task.AppendIDs(task.RemoveIDs(m.t.Blocks, m.unBlocks), m.blocks)
		m.t.BlockedBy = task.AppendIDs(task.RemoveIDs(m.t.BlockedBy, m.unBlockedBy), m.blockedBy)
		if err := tx.writeKeep(m.t, m.mtime); err != nil {
			return err
		}
		if tx.graph != nil {
			for _, x := range m.blocks {
				tx.graph[m.t.ID] = append(tx.graph[m.t.ID], x)
			}
		}
	}
	return nil
}

// checkParent refuses a parentID that names no task.
func (tx *txn) checkParent(parent string) error {
	if parent == "" {
		return nil
	}
	t, _, err := tx.s.read(parent)
	if err != nil {
		return err
	}
	if t == nil {
		return errcode.Field(errcode.TaskNotFound, "parentID", "no task %s in %s (nothing was written)", parent, tx.s.Dir)
	}
	return nil
}
