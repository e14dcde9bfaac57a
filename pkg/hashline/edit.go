package hashline

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// Op is an edit operation.
type Op string

// The three operations.
const (
	// Replace replaces the lines pos..end (end defaults to pos) with Lines;
	// no lines deletes them.
	Replace Op = "replace"
	// Append inserts Lines after pos, or at the end of the text without pos.
	Append Op = "append"
	// Prepend inserts Lines before pos, or at the start of the text without
	// pos.
	Prepend Op = "prepend"
)

// Edit is one edit of an update document:
//
//	{"op":"replace|append|prepend","pos":"N#ID","end":"N#ID","lines":[…]|"…"|null}
//
// pos, end and lines may be absent or null. lines as an array holds one
// line per element; as a string it is text, split into lines on "\n" (a
// final "\n" ends the last line, "" is no lines); null or [] is no lines.
// A "\r" before a line break is dropped.
type Edit struct {
	Op  Op
	Pos string
	End string
	// Lines are the new lines, already split.
	Lines []string
	// HasLines is true when the document had a "lines" member (null
	// included): replace requires one, to tell "delete" from "forgot".
	HasLines bool
}

// rawEdit is the JSON form of an Edit.
type rawEdit struct {
	Op    jsontext.Value `json:"op,omitzero"`
	Pos   jsontext.Value `json:"pos,omitzero"`
	End   jsontext.Value `json:"end,omitzero"`
	Lines jsontext.Value `json:"lines,omitzero"`
}

// strict are the decode options of package input.
var strict = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// ParseEdits decodes an update document {"edits":[…]} (see Edit). The
// document is decoded strictly (package input): malformed JSON, unknown or
// duplicate keys, keys in the wrong case, wrong types, null where a value is
// needed and an absent or empty "edits" are validation_error naming the
// field. The edits' meaning is checked by Apply.
func ParseEdits(data []byte) ([]Edit, error) {
	var doc struct {
		Edits jsontext.Value `json:"edits,omitzero"`
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if k := dec.PeekKind(); k != '{' && k != 0 {
		return nil, errcode.New(errcode.ValidationError, `expected an object {"edits":[…]}, got %s`, kindName(k))
	}
	if err := json.Unmarshal(data, &doc, strict); err != nil {
		e := errcode.As(input.Explain(err))
		if e.Field != "" && !strings.HasPrefix(e.Field, "edits") {
			e.Message += ` (an update is {"edits":[…]} and nothing else)`
		}
		return nil, e
	}
	switch doc.Edits.Kind() {
	case 0:
		return nil, errcode.Field(errcode.ValidationError, "edits", `required: {"edits":[{"op":"replace","pos":"N#ID","lines":["…"]}]}`)
	case '[':
	default:
		return nil, errcode.Field(errcode.ValidationError, "edits", "expected an array of edits, got %s", kindName(doc.Edits.Kind()))
	}
	var raw []rawEdit
	if err := json.Unmarshal(doc.Edits, &raw, strict); err != nil {
		return nil, prefixField(input.Explain(err), "edits")
	}
	if len(raw) == 0 {
		return nil, errcode.Field(errcode.ValidationError, "edits", "must hold at least one edit")
	}
	edits := make([]Edit, len(raw))
	for i, r := range raw {
		field := fmt.Sprintf("edits[%d]", i)
		e := &edits[i]
		op, err := optString(r.Op, field+".op")
		if err != nil {
			return nil, err
		}
		e.Op = Op(op)
		if e.Pos, err = optString(r.Pos, field+".pos"); err != nil {
			return nil, err
		}
		if e.End, err = optString(r.End, field+".end"); err != nil {
			return nil, err
		}
		if e.Lines, e.HasLines, err = linesOf(r.Lines, field+".lines"); err != nil {
			return nil, err
		}
	}
	return edits, nil
}

// optString reads an optional string member: absent and null are "".
func optString(v jsontext.Value, field string) (string, error) {
	switch v.Kind() {
	case 0, 'n':
		return "", nil
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", errcode.Field(errcode.ValidationError, field, "%v", err)
		}
		return s, nil
	}
	return "", errcode.Field(errcode.ValidationError, field, "expected string, got %s", kindName(v.Kind()))
}

// linesOf reads the lines member (see Edit).
func linesOf(v jsontext.Value, field string) ([]string, bool, error) {
	switch v.Kind() {
	case 0:
		return nil, false, nil
	case 'n':
		return nil, true, nil
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, true, errcode.Field(errcode.ValidationError, field, "%v", err)
		}
		return SplitLines(s), true, nil
	case '[':
		var arr []jsontext.Value
		if err := json.Unmarshal(v, &arr); err != nil {
			return nil, true, errcode.Field(errcode.ValidationError, field, "%v", err)
		}
		out := make([]string, 0, len(arr))
		for i, el := range arr {
			if el.Kind() != '"' {
				return nil, true, errcode.Field(errcode.ValidationError, fmt.Sprintf("%s[%d]", field, i), "expected string, got %s", kindName(el.Kind()))
			}
			var s string
			if err := json.Unmarshal(el, &s); err != nil {
				return nil, true, errcode.Field(errcode.ValidationError, fmt.Sprintf("%s[%d]", field, i), "%v", err)
			}
			for _, l := range strings.Split(s, "\n") {
				out = append(out, strings.TrimSuffix(l, "\r"))
			}
		}
		return out, true, nil
	}
	return nil, true, errcode.Field(errcode.ValidationError, field, "expected an array of strings, a string or null, got %s", kindName(v.Kind()))
}

// SplitLines splits text into lines: on "\n", dropping one "\r" before
// each break; a final "\n" ends the last line; "" is no lines.
func SplitLines(s string) []string {
	if s == "" {
		return []string{}
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// prefixField re-roots a validation error found inside a member: its field
// "[2].op" becomes "edits[2].op".
func prefixField(err error, member string) error {
	e := errcode.As(err)
	if e.Field == "" || e.Field == "(document)" {
		return errcode.New(e.Code, "%s: %s", member, e.Message)
	}
	field := member + e.Field
	if !strings.HasPrefix(e.Field, "[") {
		field = member + "." + e.Field
	}
	msg := strings.TrimPrefix(e.Message, e.Field+": ")
	return errcode.Field(e.Code, field, "%s", msg)
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case 0:
		return "nothing"
	}
	return k.String()
}
