package task

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// recordOptions decode a record strictly (spec §4.2 .strict(), D4): unknown
// top-level keys, duplicate keys, wrong-case keys and invalid UTF-8 make the
// record invalid.
var recordOptions = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// fileOptions encode a record for disk: 2-space indent, sorted metadata keys,
// no HTML escaping (D3).
var fileOptions = json.JoinOptions(
	json.Deterministic(true),
	jsontext.WithIndent("  "),
)

// DecodeRecord parses and validates one T-*.json record. It fails with
// validation_error when the record does not satisfy the strict schema of
// spec §4.2 (id pattern, status enum, priority enum, no unknown keys).
// A missing threadID is accepted (older records, D4); missing blocks and
// blockedBy read as empty arrays.
func DecodeRecord(data []byte) (*Task, error) {
	var t Task
	if err := json.Unmarshal(data, &t, recordOptions); err != nil {
		return nil, input.Explain(err)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Validate checks the record invariants of spec §4.2 and D4.
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
// order of the Task struct, followed by a newline (D3).
func Encode(t *Task) ([]byte, error) {
	if t.Blocks == nil {
		t.Blocks = []string{}
	}
	if t.BlockedBy == nil {
		t.BlockedBy = []string{}
	}
	b, err := json.Marshal(t, fileOptions)
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "encoding %s", t.ID)
	}
	return append(b, '\n'), nil
}

func unmarshalValue(raw jsontext.Value, v any) error {
	return json.Unmarshal(raw, v)
}
