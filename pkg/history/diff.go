package history

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// field is one top-level record field: how to read it as JSON (nil when
// unset) and how to set it from JSON (nil: unset).
type field struct {
	name string
	get  func(t *task.Task) any
	set  func(t *task.Task, v jsontext.Value) error
}

func str(p func(t *task.Task) *string) (func(t *task.Task) any, func(t *task.Task, v jsontext.Value) error) {
	return func(t *task.Task) any {
			if s := *p(t); s != "" {
				return s
			}
			return nil
		}, func(t *task.Task, v jsontext.Value) error {
			*p(t) = ""
			if v == nil {
				return nil
			}
			return json.Unmarshal(v, p(t))
		}
}

func list(p func(t *task.Task) *[]string) (func(t *task.Task) any, func(t *task.Task, v jsontext.Value) error) {
	return func(t *task.Task) any {
			if l := *p(t); len(l) > 0 {
				return l
			}
			return nil
		}, func(t *task.Task, v jsontext.Value) error {
			*p(t) = []string{}
			if v == nil {
				return nil
			}
			return json.Unmarshal(v, p(t))
		}
}

// fields are the record's fields but id and metadata, in record order.
// They are built on first use, not at start-up.
var fields = sync.OnceValue(func() []field {
	mk := func(name string, get func(t *task.Task) any, set func(t *task.Task, v jsontext.Value) error) field {
		return field{name, get, set}
	}
	var out []field
	add := func(name string, g func(t *task.Task) any, s func(t *task.Task, v jsontext.Value) error) {
		out = append(out, mk(name, g, s))
	}
	add("subject", func(t *task.Task) any { return t.Subject }, func(t *task.Task, v jsontext.Value) error {
		t.Subject = ""
		if v == nil {
			return nil
		}
		return json.Unmarshal(v, &t.Subject)
	})
	add("description", func(t *task.Task) any { return t.Description }, func(t *task.Task, v jsontext.Value) error {
		t.Description = ""
		if v == nil {
			return nil
		}
		return json.Unmarshal(v, &t.Description)
	})
	g, s := str(func(t *task.Task) *string { return (*string)(&t.Status) })
	add("status", g, s)
	g, s = str(func(t *task.Task) *string { return &t.ActiveForm })
	add("activeForm", g, s)
	g, s = list(func(t *task.Task) *[]string { return &t.Blocks })
	add("blocks", g, s)
	g, s = list(func(t *task.Task) *[]string { return &t.BlockedBy })
	add("blockedBy", g, s)
	g, s = str(func(t *task.Task) *string { return &t.Owner })
	add("owner", g, s)
	g, s = str(func(t *task.Task) *string { return (*string)(&t.Priority) })
	add("priority", g, s)
	g, s = str(func(t *task.Task) *string { return &t.RepoURL })
	add("repoURL", g, s)
	g, s = str(func(t *task.Task) *string { return &t.ParentID })
	add("parentID", g, s)
	g, s = str(func(t *task.Task) *string { return &t.ThreadID })
	add("threadID", g, s)
	g, s = str(func(t *task.Task) *string { return &t.ProjectRoot })
	add("projectRoot", g, s)
	return out
})

// MetadataPrefix starts the Field of a change to one metadata key.
const MetadataPrefix = "metadata."

func encode(v any) jsontext.Value {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return nil
	}
	return b
}

// Diff returns the changes that turn old into new, in record order
// (metadata key by key, sorted). A nil old is a task that did not exist:
// every set field of new is a change (subject and description always).
func Diff(old, new *task.Task) []Change {
	var out []Change
	for _, f := range fields() {
		var o, n jsontext.Value
		if old != nil {
			o = encode(f.get(old))
		}
		n = encode(f.get(new))
		if !bytes.Equal(o, n) {
			out = append(out, Change{Field: f.name, Old: o, New: n})
		}
	}
	var oldMeta task.Metadata
	if old != nil {
		oldMeta = old.Metadata
	}
	keys := make([]string, 0, len(oldMeta)+len(new.Metadata))
	for k := range oldMeta {
		keys = append(keys, k)
	}
	for k := range new.Metadata {
		if _, ok := oldMeta[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		o, n := compact(oldMeta[k]), compact(new.Metadata[k])
		if !bytes.Equal(o, n) {
			out = append(out, Change{Field: MetadataPrefix + k, Old: o, New: n})
		}
	}
	return out
}

func compact(v jsontext.Value) jsontext.Value {
	if v == nil {
		return nil
	}
	c := v.Clone()
	if c.Compact() != nil {
		return v
	}
	return c
}

// Apply sets each change's New value on t (Old with reverse, which undoes
// the changes). t must not be nil.
func Apply(t *task.Task, changes []Change, reverse bool) error {
	for _, c := range changes {
		v := c.New
		if reverse {
			v = c.Old
		}
		if k, ok := strings.CutPrefix(c.Field, MetadataPrefix); ok {
			if v == nil {
				delete(t.Metadata, k)
				if len(t.Metadata) == 0 {
					t.Metadata = nil
				}
				continue
			}
			if t.Metadata == nil {
				t.Metadata = task.Metadata{}
			}
			t.Metadata[k] = v.Clone()
			continue
		}
		i := slices.IndexFunc(fields(), func(f field) bool { return f.name == c.Field })
		if i < 0 {
			return fmt.Errorf("unknown field %q", c.Field)
		}
		if err := fields()[i].set(t, v); err != nil {
			return fmt.Errorf("field %s: %w", c.Field, err)
		}
	}
	return nil
}

// Value returns the current JSON value of a change's field on t (nil when
// unset), to compare with a change's New before undoing it.
func Value(t *task.Task, name string) jsontext.Value {
	if k, ok := strings.CutPrefix(name, MetadataPrefix); ok {
		return compact(t.Metadata[k])
	}
	i := slices.IndexFunc(fields(), func(f field) bool { return f.name == name })
	if i < 0 {
		return nil
	}
	return encode(fields()[i].get(t))
}

// Replay folds a task's events into the record they describe: nil when
// the events do not start with a created, adopted or compacted event (the
// history's beginning is unknown) or end with removed.
func Replay(id string, events []Event) *task.Task {
	var t *task.Task
	for _, e := range events {
		switch e.Kind {
		case Created, Adopted, Compacted:
			t = &task.Task{ID: id, Blocks: []string{}, BlockedBy: []string{}}
		case Removed:
			t = nil
			continue
		}
		if t == nil {
			continue
		}
		if Apply(t, e.Changes, false) != nil {
			return nil
		}
	}
	return t
}
