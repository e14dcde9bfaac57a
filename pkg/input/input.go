// Package input reads and strictly decodes the one JSON document a binary
// takes on stdin.
//
// Strict means: exactly one document (trailing data is an error), no
// duplicate keys, keys matched case-sensitively, unknown keys refused, valid
// UTF-8 only, no null where a value is expected (null is allowed only inside
// "metadata", where it means "delete this key"). A leading UTF-8
// byte-order mark is accepted and dropped. Every error is an
// *errcode.Error with code validation_error (or input_too_large) whose
// message names the offending field.
package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// MaxBytes is the cap on one stdin document: 4 MiB. Larger input is refused
// with input_too_large before anything is decoded.
const MaxBytes = 4 << 20

var bom = []byte{0xEF, 0xBB, 0xBF}

// Read reads the whole document from r, at most limit bytes (MaxBytes when
// limit <= 0), and drops a leading UTF-8 BOM. Input that is empty or only
// whitespace reads as "{}" with empty=true.
//
// Errors: input_too_large past the cap, internal_error when r fails.
func Read(r io.Reader, limit int64) (data []byte, empty bool, err error) {
	if limit <= 0 {
		limit = MaxBytes
	}
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, errcode.Wrap(errcode.InternalError, err, "reading stdin")
	}
	if int64(len(data)) > limit {
		return nil, false, errcode.New(errcode.InputTooLarge, "input is larger than the %d-byte cap", limit)
	}
	data = bytes.TrimPrefix(data, bom)
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}"), true, nil
	}
	return data, false, nil
}

// Options used for every strict decode.
var strict = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.MatchCaseInsensitiveNames(false),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
)

// Decode decodes data into v (a pointer to a struct) under the strict rules
// of the package comment, after CheckDepth with MaxDepth. Errors are
// validation_error naming the field.
func Decode(data []byte, v any) error {
	return DecodeDepth(data, v, MaxDepth)
}

// DecodeDepth is Decode for a document that may nest maxDepth levels (a
// task-sync import line wraps a record in one more object).
func DecodeDepth(data []byte, v any, maxDepth int) error {
	if err := CheckDepth(data, maxDepth); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v, strict); err != nil {
		return Explain(err)
	}
	return CheckNulls(data)
}

// CheckNulls refuses a JSON null anywhere in data except inside a member
// named "metadata" (whose own value must still not be null).
func CheckNulls(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	return walkNulls(dec, "")
}

func walkNulls(dec *jsontext.Decoder, path string) error {
	switch dec.PeekKind() {
	case 'n':
		return errcode.Field(errcode.ValidationError, fieldName(path), "must not be null")
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return Explain(err)
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return Explain(err)
			}
			name := tok.String()
			child := path + "/" + name
			if name == "metadata" && dec.PeekKind() != 'n' {
				if err := dec.SkipValue(); err != nil {
					return Explain(err)
				}
				continue
			}
			if err := walkNulls(dec, child); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return Explain(err)
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			if err := walkNulls(dec, fmt.Sprintf("%s/%d", path, i)); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	default:
		return dec.SkipValue()
	}
}

// fieldName turns a JSON pointer into the dotted/indexed name used in
// messages: "/items/0/subject" becomes "items[0].subject". Very deep
// pointers are shortened in the middle.
func fieldName(ptr string) string {
	if ptr == "" {
		return "(document)"
	}
	if len(ptr) > 200 {
		ptr = ptr[:80] + "/…/" + ptr[len(ptr)-80:]
	}
	var b strings.Builder
	for tok := range jsontext.Pointer(ptr).Tokens() {
		if isIndex(tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Explain converts a decode error of go-json-experiment into a
// validation_error whose message names the field and says what was wrong.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	var ce *errcode.Error
	if errors.As(err, &ce) {
		return ce
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		field := fieldName(string(syn.JSONPointer))
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return errcode.Field(errcode.ValidationError, field, "duplicate key")
		case errors.Is(syn.Err, io.ErrUnexpectedEOF):
			return errcode.New(errcode.ValidationError, "malformed JSON: input ends early (truncated document) at byte %d", syn.ByteOffset)
		case len(syn.JSONPointer) == 0:
			return errcode.New(errcode.ValidationError, "malformed JSON at byte %d: %v", syn.ByteOffset, syn.Err)
		default:
			return errcode.New(errcode.ValidationError, "malformed JSON at byte %d (in %s): %v", syn.ByteOffset, field, syn.Err)
		}
	}
	var sem *json.SemanticError
	if errors.As(err, &sem) {
		field := fieldName(string(sem.JSONPointer))
		switch {
		case errors.Is(sem.Err, json.ErrUnknownName):
			return errcode.Field(errcode.ValidationError, field, "unknown key (keys are case-sensitive)")
		case sem.JSONKind != 0 && sem.GoType != nil:
			return errcode.Field(errcode.ValidationError, field, "expected %s, got %s", kindOf(sem.GoType), jsonKind(sem.JSONKind))
		case sem.Err != nil:
			return errcode.Field(errcode.ValidationError, field, "%v", sem.Err)
		}
		return errcode.Field(errcode.ValidationError, field, "invalid value")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errcode.New(errcode.ValidationError, "malformed JSON: input ends early (truncated document)")
	}
	return errcode.Wrap(errcode.ValidationError, err, "invalid JSON")
}

// KindName names a JSON kind with its article for messages: "an object",
// "an array", "a string", "a number", "a boolean", "null".
func KindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "not JSON"
}

func jsonKind(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return k.String()
}

func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "array of strings"
		}
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}
