package task

import (
	"fmt"
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// LabelsKey is the metadata member that holds a task's labels: a JSON
// array of strings (metadata.labels). The record's schema stays strict;
// labels are ordinary metadata that task-list can filter on.
const LabelsKey = "labels"

// Labels returns t's labels: metadata.labels when it is an array of
// strings, else nil (a record written by another tool with anything else
// there has no labels as far as filters go).
func (t *Task) Labels() []string {
	raw, ok := t.Metadata[LabelsKey]
	if !ok || raw.Kind() != '[' {
		return nil
	}
	var out []string
	if err := unmarshalValue(raw, &out); err != nil {
		return nil
	}
	return out
}

// checkMetadata checks the metadata members the tool gives a meaning to:
// claim is written by the tool only, labels is an array of strings (null
// removes it on update). Errors: validation_error naming the member.
func checkMetadata(md Metadata) error {
	if err := checkClaimKey(md); err != nil {
		return err
	}
	raw, ok := md[LabelsKey]
	if !ok || raw.Kind() == 'n' {
		return nil
	}
	if raw.Kind() != '[' {
		return errcode.Field(errcode.ValidationError, "metadata.labels", "must be an array of strings, like [\"backend\",\"urgent\"]")
	}
	var items []any
	if err := unmarshalValue(raw, &items); err != nil {
		return errcode.Field(errcode.ValidationError, "metadata.labels", "must be an array of strings: %v", err)
	}
	for i, v := range items {
		s, ok := v.(string)
		if !ok {
			return errcode.Field(errcode.ValidationError, fmt.Sprintf("metadata.labels[%d]", i), "a label must be a string, not %s", jsonKind(v))
		}
		if err := CheckLabel(fmt.Sprintf("metadata.labels[%d]", i), s); err != nil {
			return err
		}
	}
	return nil
}

// CheckLabel refuses a label that is blank, holds NUL or is over 100
// bytes (validation_error on field).
func CheckLabel(field, s string) error {
	if Blank(s) {
		return errcode.Field(errcode.ValidationError, field, "a label must not be blank")
	}
	if len(s) > 100 {
		return errcode.Field(errcode.ValidationError, field, "a label is at most 100 bytes")
	}
	return checkText(field, s)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a string"
}

// HasLabels reports whether t carries every label of want (exact,
// case-sensitive match).
func (t *Task) HasLabels(want []string) bool {
	if len(want) == 0 {
		return true
	}
	have := t.Labels()
	for _, l := range want {
		if !slices.Contains(have, l) {
			return false
		}
	}
	return true
}

// HasWords reports whether t's subject or description holds every word
// of words (case-insensitive substrings; a word may match either field).
func (t *Task) HasWords(words []string) bool {
	if len(words) == 0 {
		return true
	}
	text := strings.ToLower(t.Subject + "\n" + t.Description)
	for _, w := range words {
		if !strings.Contains(text, strings.ToLower(w)) {
			return false
		}
	}
	return true
}
