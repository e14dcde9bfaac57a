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
}

// mirrorsFor reads, under the lock, every task named by a request's new
// edges of id (blockedBy: id waits for them; blocks: they wait for id) and
// returns the mirror edges they lack: "A blockedBy B" is kept together
// with "B blocks A" (docs/claims.md). An id that names no task is refused
// with task_not_found naming the field and the id, nothing written.
func (tx *txn) mirrorsFor(id string, blockedBy, blocks []string, fieldBlockedBy, fieldBlocks string) ([]*mirror, error) {
	byID := map[string]*mirror{}
	var order []*mirror
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
	out := order[:0]
	for _, m := range order {
		if len(m.blocks)+len(m.blockedBy) > 0 {
			out = append(out, m)
		}
	}
	return out, nil
}

// writeMirrors adds the mirror edges. They are bookkeeping: each file
// keeps its mtime.
func (tx *txn) writeMirrors(ms []*mirror) error {
	for _, m := range ms {
		m.t.Blocks = appendMissing(m.t.Blocks, m.blocks)
		m.t.BlockedBy = appendMissing(m.t.BlockedBy, m.blockedBy)
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

func appendMissing(list, add []string) []string {
	for _, id := range add {
		if !slices.Contains(list, id) {
			list = append(list, id)
		}
	}
	return list
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
