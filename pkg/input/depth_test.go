package input

import (
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func TestCheckDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat(`{"a":[`, n/2) + strings.Repeat(`]}`, n/2) }
	for _, tt := range []struct {
		name, in string
		ok       bool
	}{
		{"flat", `{"a":1}`, true},
		{"64 levels", nest(64), true},
		{"66 levels", nest(66), false},
		{"65 arrays", strings.Repeat("[", 65) + strings.Repeat("]", 65), false},
		{"brackets in a string", `{"a":"` + strings.Repeat("[{", 100) + `"}`, true},
		{"escaped quote keeps the string open", `{"a":"\"` + strings.Repeat("[", 100) + `"}`, true},
		{"escaped backslash ends before the quote", `{"a":"\\",` + `"b":` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `}`, false},
		{"unclosed, deep", strings.Repeat("[", 100000), false},
	} {
		err := CheckDepth([]byte(tt.in), MaxDepth)
		if tt.ok != (err == nil) || (err != nil && (errcode.Of(err) != errcode.ValidationError || !strings.Contains(err.Error(), "more than 64 levels"))) {
			t.Errorf("%s: %v", tt.name, err)
		}
		// Decode applies it before decoding.
		var v struct {
			A any `json:"a"`
		}
		if derr := Decode([]byte(tt.in), &v); !tt.ok && errcode.Of(derr) != errcode.ValidationError {
			t.Errorf("%s: Decode: %v", tt.name, derr)
		}
	}
}
