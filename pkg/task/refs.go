package task

import (
	"fmt"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// A batch's items may name themselves: an item's "ref" is a name (1 to 64
// ASCII letters, digits, '.', '_' or '-'), and a later item of the same
// batch may write "@NAME" wherever it gives a task id in blockedBy, blocks
// or parentID. task-create creates the items in order and puts the named
// item's id in place of each "@NAME"; the answer's refs maps each name to
// its id. The batch is refused whole, with nothing written, when a ref is
// malformed or given twice, an "@NAME" names no ref or one defined by a
// later item (or by the item itself), or the refs' dependency edges close
// a cycle (dependency_cycle); when a batch uses refs at all, an item that
// fails its own checks refuses the batch too, since the items name each
// other.

// RefPrefix starts a reference to a batch item's ref in an id field.
const RefPrefix = "@"

// validRefName reports whether s is a ref: 1 to 64 letters, digits, '.',
// '_' or '-' (ASCII only). It is a loop, not a regular expression: compiling
// one at start-up cost every binary that links this package about 1 ms.
func validRefName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// IsRef reports whether s is a reference to a batch item ("@NAME").
func IsRef(s string) bool { return strings.HasPrefix(s, RefPrefix) }

// checkRefsOrIDs is checkIDs accepting "@NAME" references too.
func checkRefsOrIDs(field string, ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		if err := checkRefOrID(fmt.Sprintf("%s[%d]", field, i), id); err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// checkRefOrID accepts a task id, or a well-formed "@NAME" (resolved
// against the batch by resolveRefs).
func checkRefOrID(field, s string) error {
	if IsRef(s) {
		if !validRefName(s[len(RefPrefix):]) {
			return errcode.Field(errcode.ValidationError, field, "%q is not a reference to a batch item (want @ followed by 1 to 64 letters, digits, '.', '_' or '-')", trimRef(s))
		}
		return nil
	}
	return CheckID(errcode.ValidationError, field, s)
}

func trimRef(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// CheckRefs checks the refs of a batch whose every item parsed (items in
// input order): names unique, every "@NAME" defined by an earlier item, no
// cycle among the edges between the batch's items. Errors:
// validation_error, dependency_cycle.
// Fields are named items[i].… in a batch, by their own names otherwise.
func CheckRefs(items []CreateItem, batch bool) error {
	at := func(i int, field string) string {
		if batch {
			return fmt.Sprintf("items[%d].%s", i, field)
		}
		return field
	}
	def := map[string]int{}
	for i, it := range items {
		if it.Ref == "" {
			continue
		}
		if j, ok := def[it.Ref]; ok {
			return errcode.Field(errcode.ValidationError, at(i, "ref"), "%q is already the ref of item %d: each ref names one item of the batch", it.Ref, j)
		}
		def[it.Ref] = i
	}
	// after[i] lists the items i waits for, within the batch.
	after := make([][]int, len(items))
	for i, it := range items {
		check := func(field, s string) (int, error) {
			name := s[len(RefPrefix):]
			j, ok := def[name]
			switch {
			case !ok:
				return 0, errcode.Field(errcode.ValidationError, at(i, field), "%q names no item of this batch (give an item \"ref\":%q)", s, name)
			case j == i:
				return 0, errcode.Field(errcode.DependencyCycle, at(i, field), "%q is this item itself", s)
			case j > i:
				return 0, errcode.Field(errcode.ValidationError, at(i, field), "%q is used before it is defined (item %d): items are created in order, so an item can name only earlier ones; move item %d up", s, j, j)
			}
			return j, nil
		}
		if IsRef(it.ParentID) {
			if _, err := check("parentID", it.ParentID); err != nil {
				return err
			}
		}
		for k, s := range it.BlockedBy {
			if IsRef(s) {
				j, err := check(fmt.Sprintf("blockedBy[%d]", k), s)
				if err != nil {
					return err
				}
				after[i] = append(after[i], j)
			}
		}
		for k, s := range it.Blocks {
			if IsRef(s) {
				j, err := check(fmt.Sprintf("blocks[%d]", k), s)
				if err != nil {
					return err
				}
				after[j] = append(after[j], i)
			}
		}
	}
	if cyc := refCycle(after); cyc != nil {
		names := make([]string, len(cyc))
		for k, i := range cyc {
			names[k] = fmt.Sprintf("item %d", i)
			if items[i].Ref != "" {
				names[k] += " (" + items[i].Ref + ")"
			}
		}
		return errcode.Field(errcode.DependencyCycle, "items", "the batch's items wait for each other: %s waits for %s", strings.Join(names, " waits for "), names[0])
	}
	return nil
}

// refCycle returns one cycle of the graph (i waits for after[i]), or nil.
func refCycle(after [][]int) []int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(after))
	var stack []int
	var found []int
	var visit func(i int) bool
	visit = func(i int) bool {
		color[i] = grey
		stack = append(stack, i)
		for _, j := range after[i] {
			switch color[j] {
			case grey:
				for k := len(stack) - 1; k >= 0; k-- {
					if stack[k] == j {
						found = append([]int(nil), stack[k:]...)
						return true
					}
				}
			case white:
				if visit(j) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
		return false
	}
	for i := range after {
		if color[i] == white && visit(i) {
			return found
		}
	}
	return nil
}

// ResolveItemRefs puts ids in place of an item's "@NAME" references, from
// refs (name → id of the item created under that name). A name missing
// from refs belongs to an item that was not created: the error says so.
func ResolveItemRefs(it *CreateItem, refs map[string]string) error {
	one := func(field, s string) (string, error) {
		if !IsRef(s) {
			return s, nil
		}
		id, ok := refs[s[len(RefPrefix):]]
		if !ok {
			return "", errcode.Field(errcode.ValidationError, field, "%q names an item of this batch that was not created (see its error)", s)
		}
		return id, nil
	}
	var err error
	if it.ParentID, err = one("parentID", it.ParentID); err != nil {
		return err
	}
	for _, l := range []struct {
		name string
		ids  []string
	}{{"blockedBy", it.BlockedBy}, {"blocks", it.Blocks}} {
		for k, s := range l.ids {
			if l.ids[k], err = one(fmt.Sprintf("%s[%d]", l.name, k), s); err != nil {
				return err
			}
		}
	}
	it.BlockedBy, _ = checkIDs("blockedBy", it.BlockedBy)
	it.Blocks, _ = checkIDs("blocks", it.Blocks)
	return nil
}
