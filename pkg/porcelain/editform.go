package porcelain

import (
	"bufio"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The form matrixx edit hands to the editor (docs/porcelain.md, "Editing
// in an editor"): comment lines starting with "#", then one "key: value"
// line per field, then the line "description:" and the description as
// written, to the end of the file. An empty value removes the field. A
// value that needs it (a newline, leading or trailing spaces, a leading
// quote) is written as a JSON string in double quotes, and a value in
// double quotes that is a JSON string is read as one.

// formKeys are the form's fields in the order they are written; metadata
// keys follow as "metadata.KEY".
var formKeys = []string{"subject", "status", "priority", "owner", "activeForm", "labels", "blockedBy", "blocks"}

// descKey is the line after which everything is the description.
const descKey = "description:"

// metaPrefix starts a metadata key's line.
const metaPrefix = "metadata."

// form is an edit form as written or as read back: each key's value text,
// the description, the keys in the order they came.
type form struct {
	values map[string]string
	keys   []string
	desc   string
}

// formOf is the form for t as shown: handles from v for its dependencies.
func formOf(v *view, t *task.Task) (*form, []string) {
	f := &form{values: map[string]string{}, desc: t.Description}
	set := func(k, val string) {
		f.values[k] = val
		f.keys = append(f.keys, k)
	}
	set("subject", quoteValue(t.Subject))
	set("status", string(t.Status))
	set("priority", string(t.Priority))
	set("owner", quoteValue(t.Owner))
	set("activeForm", quoteValue(t.ActiveForm))
	set("labels", labelsText(t.Metadata["labels"]))
	set("blockedBy", v.handles(t.BlockedBy))
	set("blocks", v.handles(t.Blocks))
	var hidden []string
	keys := make([]string, 0, len(t.Metadata))
	for k := range t.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == claim.Key || k == "labels" {
			continue // the tool's claim (not editable); labels have their line
		}
		if !plainKey(k) {
			hidden = append(hidden, k)
			continue
		}
		val := slices.Clone(t.Metadata[k])
		_ = val.Compact()
		set(metaPrefix+k, string(val))
	}
	return f, hidden
}

// plainKey reports a metadata key the form can carry on a "key: value"
// line: no colon, blank or control character.
func plainKey(k string) bool {
	return k != "" && !strings.ContainsAny(k, ": \t") && strings.IndexFunc(k, isControl) < 0
}

// quoteValue writes s on one line: as it is, or as a JSON string when it
// holds a control character, has spaces at either end or starts with a
// double quote (so that reading it back gives s).
func quoteValue(s string) string {
	if s == "" || (strings.IndexFunc(s, isControl) < 0 && strings.TrimSpace(s) == s && !strings.HasPrefix(s, `"`)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// unquoteValue reads a value written by quoteValue (or by hand).
func unquoteValue(s string) string {
	if strings.HasPrefix(s, `"`) {
		var out string
		if json.Unmarshal([]byte(s), &out) == nil {
			return out
		}
	}
	return s
}

// labelsText is metadata.labels as the form shows it: "a, b"; as its JSON
// when it is not an array of strings or a label holds a comma.
func labelsText(raw jsontext.Value) string {
	if raw == nil {
		return ""
	}
	var ls []string
	if json.Unmarshal(raw, &ls) == nil && !slices.ContainsFunc(ls, func(l string) bool { return strings.Contains(l, ",") || quoteValue(l) != l }) {
		return strings.Join(ls, ", ")
	}
	val := slices.Clone(raw)
	_ = val.Compact()
	return string(val)
}

// render writes f with its help comments for the task with handle h.
func (f *form) render(h, id, parent string, hidden []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# matrixx edit %s (%s): change what you want, save and quit.\n", h, id)
	b.WriteString(`# One "key: value" line per field; an empty value removes the field; lines starting
# with # are ignored. status: pending, completed or deleted (matrixx claim starts work);
# priority: low, medium, high or empty; labels, blockedBy and blocks: comma-separated
# (blockedBy and blocks name tasks by handle or id). metadata.KEY: a JSON value
# (strings in double quotes); delete the line to remove the key. Everything after the
# line "description:" is the description, as written. Save it unchanged to cancel.
`)
	if parent != "" {
		fmt.Fprintf(&b, "# parent: %s (set when the task was created)\n", parent)
	}
	for _, k := range hidden {
		fmt.Fprintf(&b, "# metadata %q is kept as it is (its name does not fit a line: task-update changes it)\n", k)
	}
	for _, k := range f.keys {
		if v := f.values[k]; v == "" {
			fmt.Fprintf(&b, "%s:\n", k)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	b.WriteString(descKey + "\n")
	if f.desc != "" {
		b.WriteString(f.desc)
		b.WriteString("\n")
	}
	return b.String()
}

// parseForm reads an edited form. Errors (validation_error) name the line.
func parseForm(text string) (*form, error) {
	f := &form{values: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), len(text)+1)
	n := 0
	off := 0
	for sc.Scan() {
		line := sc.Text()
		n++
		off += len(line) + 1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed == descKey || strings.HasPrefix(line, descKey) {
			rest := strings.TrimSpace(strings.TrimPrefix(line, descKey))
			desc := ""
			if off < len(text) {
				desc = text[off:]
			}
			if rest != "" { // "description: text" on one line
				desc = rest + "\n" + desc
			}
			f.desc = strings.TrimSuffix(desc, "\n")
			f.keys = append(f.keys, "description")
			return f, nil
		}
		k, val, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, errcode.New(errcode.ValidationError, "line %d: %q is not \"key: value\" (or a # comment)", n, trimTo(line, 40))
		}
		if !slices.Contains(formKeys, k) && !(strings.HasPrefix(k, metaPrefix) && plainKey(strings.TrimPrefix(k, metaPrefix))) {
			return nil, errcode.New(errcode.ValidationError, "line %d: unknown field %q (the fields: %s, metadata.KEY, description)", n, k, strings.Join(formKeys, ", "))
		}
		if _, dup := f.values[k]; dup {
			return nil, errcode.New(errcode.ValidationError, "line %d: %s is given twice", n, k)
		}
		f.values[k] = strings.TrimSpace(val)
		f.keys = append(f.keys, k)
	}
	if sc.Err() != nil {
		return nil, errcode.Wrap(errcode.ValidationError, sc.Err(), "reading the edited text")
	}
	if len(f.keys) == 0 {
		return f, nil // empty: cancelled
	}
	return nil, errcode.New(errcode.ValidationError, "the line %q is missing: the description follows it (write it with nothing after it for no description)", descKey)
}

// empty reports a form with no field at all (everything deleted).
func (f *form) empty() bool { return len(f.keys) == 0 }

// request turns the differences between the form as shown and as edited
// into an update of t; changed names the fields it changes. resolve turns
// a handle into an id.
func (f *form) request(shown *form, t *task.Task, resolve func(string) (string, error)) (req task.UpdateRequest, changed []string, err error) {
	for _, k := range []string{"subject", "status"} {
		if _, ok := f.values[k]; !ok {
			return req, nil, errcode.New(errcode.ValidationError, "the line %q is missing", k+":")
		}
	}
	diff := func(k string) (string, bool) {
		val, ok := f.values[k]
		if !ok {
			val = "" // a deleted line removes the field
		}
		return val, val != shown.values[k]
	}
	if val, ok := diff("subject"); ok {
		s := unquoteValue(val)
		if task.Blank(s) {
			return req, nil, errcode.New(errcode.ValidationError, "subject: must not be empty")
		}
		req.Subject, changed = &s, append(changed, "subject")
	}
	if val, ok := diff("status"); ok {
		st := task.Status(val)
		switch {
		case !st.Valid():
			return req, nil, errcode.New(errcode.ValidationError, "status: %q is not one of pending, in_progress, completed, deleted", val)
		case st == task.InProgress:
			return req, nil, errcode.New(errcode.ValidationError, "status: in_progress is taken with matrixx claim (a claim under your name), not by editing")
		}
		req.Status, changed = &st, append(changed, "status")
	}
	if val, ok := diff("priority"); ok {
		pr := task.Priority(val)
		if pr == "none" {
			pr = ""
		}
		if pr != "" && !pr.Valid() {
			return req, nil, errcode.New(errcode.ValidationError, "priority: %q is not one of low, medium, high (or empty)", val)
		}
		req.Priority, changed = &pr, append(changed, "priority")
	}
	for _, k := range []string{"owner", "activeForm"} {
		if val, ok := diff(k); ok {
			s := unquoteValue(val)
			if k == "owner" {
				req.Owner = &s
			} else {
				req.ActiveForm = &s
			}
			changed = append(changed, k)
		}
	}
	if f.desc != shown.desc {
		req.Description, changed = &f.desc, append(changed, "description")
	}
	for _, k := range []string{"blockedBy", "blocks"} {
		val, ok := diff(k)
		if !ok {
			continue
		}
		var ids []string
		for _, w := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			id, err := resolve(w)
			if err != nil {
				return req, nil, errcode.New(errcode.As(err).Code, "%s: %s", k, errcode.As(err).Message)
			}
			if id == t.ID {
				return req, nil, errcode.New(errcode.DependencyCycle, "%s: a task cannot wait for itself", k)
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		old := t.BlockedBy
		add, remove := &req.AddBlockedBy, &req.RemoveBlockedBy
		if k == "blocks" {
			old, add, remove = t.Blocks, &req.AddBlocks, &req.RemoveBlocks
		}
		for _, id := range ids {
			if !slices.Contains(old, id) {
				*add = append(*add, id)
			}
		}
		for _, id := range old {
			if !slices.Contains(ids, id) {
				*remove = append(*remove, id)
			}
		}
		if len(*add)+len(*remove) > 0 {
			changed = append(changed, k)
		}
	}
	meta := task.Metadata{}
	if val, ok := diff("labels"); ok {
		v, err := parseLabels(val)
		if err != nil {
			return req, nil, err
		}
		meta["labels"] = v
	}
	for _, k := range f.keys {
		if !strings.HasPrefix(k, metaPrefix) {
			continue
		}
		val, ok := diff(k)
		if !ok {
			continue
		}
		if _, had := shown.values[k]; !had && val == "" {
			continue // a new key with no value: nothing
		}
		// A value nests two levels below a document's root, as in
		// {"metadata":{"KEY":…}}: the cap on nesting is the documents'.
		if input.CheckDepth([]byte(val), input.MaxDepth-2) != nil {
			return req, nil, errcode.New(errcode.ValidationError, "%s: nests arrays and objects more than %d levels deep (the cap on nesting)", k, input.MaxDepth-2)
		}
		v := jsontext.Value(val)
		if !v.IsValid() {
			return req, nil, errcode.New(errcode.ValidationError, "%s: %s is not a JSON value (write a string in double quotes: %q)", k, trimTo(val, 40), trimTo(val, 40))
		}
		meta[strings.TrimPrefix(k, metaPrefix)] = v
	}
	for _, k := range shown.keys {
		if _, kept := f.values[k]; strings.HasPrefix(k, metaPrefix) && !kept {
			meta[strings.TrimPrefix(k, metaPrefix)] = jsontext.Value("null") // the line was deleted
		}
	}
	for k := range meta {
		changed = append(changed, metaPrefix+k)
	}
	if len(meta) > 0 {
		req.Metadata = meta
	}
	slices.Sort(changed[len(changed)-len(meta):])
	return req, changed, nil
}

// parseLabels reads the labels line: comma-separated labels, or a JSON
// array of strings; each label trimmed, non-empty, at most 100 bytes,
// duplicates dropped. No label removes metadata.labels (null).
func parseLabels(val string) (jsontext.Value, error) {
	var ls []string
	if strings.HasPrefix(val, "[") {
		if err := json.Unmarshal([]byte(val), &ls); err != nil {
			return nil, errcode.New(errcode.ValidationError, "labels: %s is not a list of strings (write them comma-separated: a, b)", trimTo(val, 40))
		}
	} else {
		ls = strings.Split(val, ",")
	}
	var out []string
	for _, l := range ls {
		l = strings.TrimSpace(l)
		if l == "" || slices.Contains(out, l) {
			continue
		}
		if len(l) > 100 {
			return nil, errcode.New(errcode.ValidationError, "labels: %q is longer than 100 bytes", trimTo(l, 20))
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return jsontext.Value("null"), nil
	}
	b, err := json.Marshal(out)
	return jsontext.Value(b), err
}
