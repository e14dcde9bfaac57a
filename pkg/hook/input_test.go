package hook

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// filtered runs s through a scan with cap max, reading one byte at a
// time when small is set (so pending output and straddling needles are
// exercised).
func filtered(t *testing.T, s string, max int, small bool) (string, *scan) {
	t.Helper()
	var r io.Reader = strings.NewReader(s)
	if small {
		r = iotest.OneByteReader(r)
	}
	sc := newScan(r, max)
	var out io.Reader = sc
	if small {
		out = iotest.OneByteReader(sc)
	}
	b, err := io.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), sc
}

func TestScanCutsLongStrings(t *testing.T) {
	tests := []struct {
		name, in, want string
		max, cut       int
	}{
		{"short strings pass", `{"a":"xyz","b":"12"}`, `{"a":"xyz","b":"12"}`, 4, 0},
		{"long string cut with sentinel", `{"a":"abcdefgh"}`, `{"a":"abcd\u0000"}`, 4, 1},
		{"escape not split", `{"a":"ab\"cdef"}`, `{"a":"ab\"\u0000"}`, 4, 1},
		{"escape kept whole at the cut", `{"a":"abc\"def"}`, `{"a":"abc\"\u0000"}`, 4, 1},
		{"unicode escape not split", `{"a":"a\u00e9bcdef"}`, `{"a":"a\u00e9\u0000"}`, 3, 1},
		{"utf-8 not split", `{"a":"abé✓xyz"}`, `{"a":"abé\u0000"}`, 3, 1},
		{"names are strings too", `{"abcdefgh":1}`, `{"abcd\u0000":1}`, 4, 1},
		{"escaped quote then more", `{"a":"\"\"\"\"\"\"","b":"x"}`, `{"a":"\"\"\u0000","b":"x"}`, 4, 1},
		{"backslash at the end", `{"a":"abc\\","b":"y"}`, `{"a":"abc\\","b":"y"}`, 5, 0},
	}
	for _, tt := range tests {
		for _, small := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				got, sc := filtered(t, tt.in, tt.max, small)
				if got != tt.want || sc.Cut != tt.cut {
					t.Errorf("got %s (cut %d), want %s (cut %d)", got, sc.Cut, tt.want, tt.cut)
				}
				if !jsontext.Value(got).IsValid(jsontext.AllowInvalidUTF8(true)) {
					t.Errorf("output is not valid JSON: %s", got)
				}
			})
		}
	}
}

func TestScanNeedles(t *testing.T) {
	tests := []struct {
		in                    string
		guarded, plans, preTU bool
	}{
		{`{"file_path":"/p/.matrixx/plans/a.md"}`, true, true, false},
		{`{"command":"rm .MATRIXX/Tasks/T-1.json","hook_event_name":"PreToolUse"}`, true, false, true},
		{`{"file_path":"C:\\p\\.matrixx\\plans\\a.md"}`, true, true, false},
		{`{"file_path":"\/p\/.matrixx\/tasks"}`, true, false, false},
		{`{"file_path":"/p/.matrixx/notepads/x.md"}`, false, false, false},
	}
	for _, tt := range tests {
		for _, small := range []bool{false, true} {
			_, sc := filtered(t, tt.in, 1<<20, small)
			if sc.Guarded != tt.guarded || sc.GuardedPlans != tt.plans || sc.PreToolUse != tt.preTU {
				t.Errorf("%s (small %v): guarded %v plans %v pre %v", tt.in, small, sc.Guarded, sc.GuardedPlans, sc.PreToolUse)
			}
		}
	}
}

func TestDeadlineReader(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte(`{"hook_event_name":`)) }()
	dr := newDeadlineReader(pr, 50*time.Millisecond)
	defer dr.stop()
	_, err := Decode(dr)
	if err == nil || !strings.Contains(err.Error(), errDeadline.Error()) {
		t.Fatalf("got %v, want the deadline error", err)
	}
}

func TestDeadlineReaderPassesEverything(t *testing.T) {
	in := strings.Repeat("0123456789", 100000)
	dr := newDeadlineReader(strings.NewReader(in), time.Minute)
	defer dr.stop()
	b, err := io.ReadAll(dr)
	if err != nil || string(b) != in {
		t.Fatalf("read %d bytes, err %v", len(b), err)
	}
}
