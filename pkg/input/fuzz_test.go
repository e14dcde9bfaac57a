package input_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// FuzzRead: Read never panics; it refuses exactly the input past the
// limit (input_too_large); otherwise it returns the input minus one
// leading BOM, or "{}" with empty=true when that is only whitespace.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"", " \n\t", "{}", "\xef\xbb\xbf{\"a\":1}", "\xef\xbb\xbf", "\xef\xbb\xbf\xef\xbb\xbf{}", "\xef\xbb", "[1]"} {
		f.Add([]byte(s), uint16(64))
	}
	f.Add(bytes.Repeat([]byte("x"), 100), uint16(99))
	f.Add(bytes.Repeat([]byte("x"), 100), uint16(100))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		lim := int64(limit) + 1
		doc, empty, err := input.Read(bytes.NewReader(data), lim)
		if int64(len(data)) > lim {
			if errcode.Of(err) != errcode.InputTooLarge {
				t.Fatalf("%d bytes with limit %d: want input_too_large, got %v", len(data), lim, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%d bytes with limit %d: %v", len(data), lim, err)
		}
		rest := bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
		if len(bytes.TrimSpace(rest)) == 0 {
			if !empty || string(doc) != "{}" {
				t.Fatalf("blank input %q: got %q empty=%v", data, doc, empty)
			}
			return
		}
		if empty || !bytes.Equal(doc, rest) {
			t.Fatalf("input %q: got %q empty=%v", data, doc, empty)
		}
	})
}

// sample has the field shapes the binaries' requests use.
type sample struct {
	Name     string                    `json:"name"`
	Ptr      *string                   `json:"ptr,omitzero"`
	List     []string                  `json:"list,omitzero"`
	N        int                       `json:"n,omitzero"`
	Flag     bool                      `json:"flag,omitzero"`
	Nested   *nested                   `json:"nested,omitzero"`
	Metadata map[string]jsontext.Value `json:"metadata,omitzero"`
}

type nested struct {
	X string `json:"x"`
}

// FuzzDecode: Decode never panics; every refusal is a validation_error
// with a message; an accepted document is valid JSON without duplicate
// names, holds no null outside "metadata", and round-trips (re-encoded,
// it is accepted and decodes to the same value).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"name":"a"}`,
		`{"name":"a","ptr":"","list":["x","y"],"n":3,"flag":true,"nested":{"x":"y"},"metadata":{"k":null,"j":{"a":[null]}}}`,
		`{"name":null}`, `{"list":[null]}`, `{"nested":null}`, `{"metadata":null}`, `{"metadata":{"k":null}}`,
		`{"Name":"a"}`, `{"name":"a","name":"b"}`, `{"name":"a","extra":1}`, `{"name":1}`, `{"n":1.5}`,
		`{"name":"\xff"}`, `{"name":"\ud800"}`, `{"name":"a"} x`, `{"name":"a"`, `[]`, `"s"`, ``, `{"metadata":{"k":1,"k":2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v sample
		err := input.Decode(data, &v)
		if err != nil {
			var e *errcode.Error
			if !errors.As(err, &e) || e.Code != errcode.ValidationError || e.Message == "" {
				t.Fatalf("refusal is not a validation_error with a message: %#v", err)
			}
			return
		}
		if !jsontext.Value(data).IsValid() {
			t.Fatalf("accepted invalid JSON (or duplicate names) %q", data)
		}
		if path := nullOutsideMetadata(data); path != "" {
			t.Fatalf("accepted a null at %s in %q", path, data)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("re-encoding %#v: %v", v, err)
		}
		var again sample
		if err := input.Decode(b, &again); err != nil {
			t.Fatalf("re-encoded %s is refused: %v", b, err)
		}
		normalize(&v)
		normalize(&again)
		if !reflect.DeepEqual(v, again) {
			t.Fatalf("round trip changed the value:\n got %#v\nwant %#v", again, v)
		}
	})
}

// normalize compacts metadata values and maps empty collections to nil
// (omitzero keeps empty ones, decoding null gives nil).
func normalize(v *sample) {
	if len(v.List) == 0 {
		v.List = nil
	}
	for k, raw := range v.Metadata {
		c := raw.Clone()
		_ = c.Compact(jsontext.PreserveRawStrings(false))
		v.Metadata[k] = c
	}
}

// nullOutsideMetadata returns the JSON pointer of a null that is not
// inside a member named "metadata", or "".
func nullOutsideMetadata(data []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		kind := dec.PeekKind()
		if kind == 0 {
			return ""
		}
		ptr := string(dec.StackPointer())
		if kind == 'n' && !strings.HasPrefix(ptr, "/metadata/") {
			return ptr
		}
		if _, err := dec.ReadToken(); err != nil {
			return ""
		}
	}
}
