package input

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int64
		want     string
		empty    bool
		code     errcode.Code
	}{
		{name: "empty", in: "", want: "{}", empty: true},
		{name: "whitespace", in: " \n\t", want: "{}", empty: true},
		{name: "bom only", in: "\xEF\xBB\xBF", want: "{}", empty: true},
		{name: "bom stripped", in: "\xEF\xBB\xBF{\"a\":1}", want: `{"a":1}`},
		{name: "explicit empty object is not empty input", in: "{}", want: "{}"},
		{name: "at cap", in: strings.Repeat(" ", 9) + "1", limit: 10, want: strings.Repeat(" ", 9) + "1"},
		{name: "over cap", in: strings.Repeat(" ", 11), limit: 10, code: errcode.InputTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, empty, err := Read(strings.NewReader(tt.in), tt.limit)
			if errcode.Of(err) != tt.code {
				t.Fatalf("err = %v, want code %q", err, tt.code)
			}
			if err != nil {
				return
			}
			if string(got) != tt.want || empty != tt.empty {
				t.Fatalf("got %q empty=%v, want %q empty=%v", got, empty, tt.want, tt.empty)
			}
		})
	}
}

type doc struct {
	Subject  string                    `json:"subject"`
	IDs      []string                  `json:"ids,omitempty"`
	Owner    *string                   `json:"owner,omitempty"`
	Metadata map[string]jsontext.Value `json:"metadata,omitempty"`
	Items    []struct {
		Subject string `json:"subject"`
	} `json:"items,omitempty"`
}

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		name, in string
		msg      string // substring of the message; "" means success
	}{
		{"ok", `{"subject":"a","ids":["x"],"metadata":{"k":null,"n":{"deep":null}}}`, ""},
		{"unknown key", `{"subject":"a","colour":1}`, "colour: unknown key"},
		{"wrong case", `{"Subject":"a"}`, "Subject: unknown key"},
		{"duplicate", `{"subject":"a","subject":"b"}`, "subject: duplicate key"},
		{"wrong type", `{"subject":1}`, "subject: expected string, got number"},
		{"array of strings", `{"ids":"x"}`, "ids: expected array of strings, got string"},
		{"element type", `{"ids":[true]}`, "ids[0]: expected string, got boolean"},
		{"nested item", `{"items":[{"subject":"a"},{"subject":2}]}`, "items[1].subject: expected string"},
		{"null scalar", `{"owner":null}`, "owner: must not be null"},
		{"null element", `{"ids":[null]}`, "ids[0]: must not be null"},
		{"null metadata", `{"metadata":null}`, "metadata: must not be null"},
		{"trailing garbage", `{"subject":"a"} x`, "after top-level value"},
		{"second document", "{}\n{}", "after top-level value"},
		{"truncated", `{"subject":"a"`, "truncated"},
		{"invalid utf8", "{\"subject\":\"\xff\"}", "UTF-8"},
		{"not an object", `[]`, "expected object, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := Decode([]byte(tt.in), &d)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if errcode.Of(err) != errcode.ValidationError {
				t.Fatalf("err = %v, want validation_error", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("message %q does not contain %q", err.Error(), tt.msg)
			}
		})
	}
}
