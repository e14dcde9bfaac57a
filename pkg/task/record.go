package task

import (
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// recordOptions decode a record strictly (the original's specification .strict()): unknown
// top-level keys, duplicate keys and wrong-case keys make the record
// invalid. Raw invalid UTF-8 is refused before decoding (DecodeRecord);
// an escaped lone UTF-16 surrogate ("\ud83d"), which the original's
// JSON.stringify writes and JSON.parse reads, decodes as U+FFFD.
var recordOptions = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(true),
)

// fileOptions encode a record for disk: 2-space indent, sorted metadata keys,
// no HTML escaping.
var fileOptions = json.JoinOptions(
	json.Deterministic(true),
	jsontext.WithIndent("  "),
)

// missing marks a required string the record did not hold: decoding
// merges into the struct, so a field still holding it after decoding was
// absent. No valid record holds it (NUL is refused in text fields).
const missing = "\x00\x01missing"

// Metadata keys that carry our top-level fields in a record written for the
// published oh-my-opencode plugin, whose strict schema has no projectRoot
// and no priority (docs/compat.md). They are read back into the fields.
const (
	MetaProjectRoot = "matrixx.projectRoot"
	MetaPriority    = "matrixx.priority"
)

// DecodeRecord parses and validates one T-*.json record. It fails with
// validation_error when the record does not satisfy the strict schema of
// the original's specification (id, subject, description and status present; id pattern,
// status enum, priority enum, no unknown keys, valid UTF-8). A missing
// threadID is accepted (older records); missing blocks and blockedBy
// read as empty arrays. The plugin-schema form (MetaProjectRoot,
// MetaPriority in metadata, docs/compat.md) reads as the same task as the
// ordinary form.
func DecodeRecord(data []byte) (*Task, error) {
	return decodeRecord(data, true)
}

// DecodeAnswer decodes the "task" object of a task-update answer as
// another tool printed it (the notepad writer's input): DecodeRecord's
// rules, except that subject and description may be absent (the spec's
// own examples of an answer leave them out); id and status are still
// checked.
func DecodeAnswer(data []byte) (*Task, error) {
	return decodeRecord(data, false)
}

func decodeRecord(data []byte, whole bool) (*Task, error) {
	if !utf8.Valid(data) {
		return nil, errcode.New(errcode.ValidationError, "the record is not valid UTF-8")
	}
	t := Task{ID: missing, Subject: missing, Description: missing, Status: missing}
	if !whole {
		t.Subject, t.Description = "", ""
	}
	if err := json.Unmarshal(data, &t, recordOptions); err != nil {
		return nil, input.Explain(err)
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"id", &t.ID}, {"subject", &t.Subject}, {"description", &t.Description}, {"status", (*string)(&t.Status)}} {
		if *f.v == missing {
			return nil, errcode.Field(errcode.ValidationError, f.name, "missing (a record must have id, subject, description and status)")
		}
	}
	t.fromPluginForm()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// fromPluginForm moves MetaProjectRoot and MetaPriority from metadata into
// their fields when the fields are empty and the values are of the right
// kind (a string; a valid priority).
func (t *Task) fromPluginForm() {
	if len(t.Metadata) == 0 {
		return
	}
	if raw, ok := t.Metadata[MetaProjectRoot]; ok && t.ProjectRoot == "" && raw.Kind() == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			t.ProjectRoot = s
			delete(t.Metadata, MetaProjectRoot)
		}
	}
	if raw, ok := t.Metadata[MetaPriority]; ok && t.Priority == "" && raw.Kind() == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil && Priority(s).Valid() {
			t.Priority = Priority(s)
			delete(t.Metadata, MetaPriority)
		}
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
}

// Validate checks the record invariants of the original's schema (plus the top-level priority).
func (t *Task) Validate() error {
	if err := CheckID(errcode.ValidationError, "id", t.ID); err != nil {
		return err
	}
	if !t.Status.Valid() {
		return errcode.Field(errcode.ValidationError, "status", "%q is not one of pending, in_progress, completed, deleted", t.Status)
	}
	if t.Priority != "" && !t.Priority.Valid() {
		return errcode.Field(errcode.ValidationError, "priority", "%q is not one of low, medium, high", t.Priority)
	}
	if t.Blocks == nil {
		t.Blocks = []string{}
	}
	if t.BlockedBy == nil {
		t.BlockedBy = []string{}
	}
	return nil
}

// Encode returns the on-disk form of t: 2-space-indented JSON with the key
// order of the Task struct, followed by a newline.
func Encode(t *Task) ([]byte, error) {
	return EncodeAs(t, false)
}

// EncodeAs is Encode; with plugin set it writes the form that validates
// under the published oh-my-opencode plugin's strict schema
// (tasks.plugin_schema, docs/compat.md): no top-level projectRoot or
// priority, which go into metadata as MetaProjectRoot and MetaPriority
// (DecodeRecord reads them back). t itself is not changed.
func EncodeAs(t *Task, plugin bool) ([]byte, error) {
	if t.Blocks == nil {
		t.Blocks = []string{}
	}
	if t.BlockedBy == nil {
		t.BlockedBy = []string{}
	}
	out := t
	if plugin && (t.ProjectRoot != "" || t.Priority != "") {
		c := *t
		c.Metadata = make(Metadata, len(t.Metadata)+2)
		for k, v := range t.Metadata {
			c.Metadata[k] = v
		}
		if t.ProjectRoot != "" {
			v, err := json.Marshal(t.ProjectRoot)
			if err != nil {
				return nil, errcode.Wrap(errcode.InternalError, err, "encoding %s", t.ID)
			}
			c.Metadata[MetaProjectRoot] = v
		}
		if t.Priority != "" {
			v, _ := json.Marshal(string(t.Priority))
			c.Metadata[MetaPriority] = v
		}
		c.ProjectRoot, c.Priority = "", ""
		out = &c
	}
	b, err := json.Marshal(out, fileOptions)
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "encoding %s", t.ID)
	}
	return append(b, '\n'), nil
}

func unmarshalValue(raw jsontext.Value, v any) error {
	return json.Unmarshal(raw, v)
}
