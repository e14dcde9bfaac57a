package task

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func TestValidID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"T-2a200c59-1a36-4dad-a9c3-3064d180f694", true},
		{"T-001", true},
		{"T-a", true},
		{"T-", false},
		{"T-abc-", false},
		{"T-a--b", false},
		{"t-abc", false},
		{"T-../x", false},
		{"T-a/b", false},
		{"T-a\\b", false},
		{"T-a\x00b", false},
		{"T-аbc", false}, // Cyrillic а
		{"T-abc.json", false},
		{"/etc/passwd", false},
		{"T-" + strings.Repeat("a", MaxIDLen-2), true},
		{"T-" + strings.Repeat("a", MaxIDLen-1), false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.ok {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.ok)
		}
	}
}

func TestNewIDIsValidAndSorted(t *testing.T) {
	prev := ""
	for range 100 {
		id, err := NewID()
		if err != nil {
			t.Fatal(err)
		}
		if !ValidID(id) {
			t.Fatalf("NewID gave invalid %q", id)
		}
		if id <= prev {
			t.Fatalf("ids not increasing: %q after %q", id, prev)
		}
		prev = id
	}
}

func TestRecordRoundTrip(t *testing.T) {
	in := `{"id":"T-1","subject":"s","description":"d","status":"in_progress","activeForm":"a","blocks":["T-2"],"blockedBy":[],"owner":"o","priority":"low","metadata":{"z":1,"a":{"n":[1,2.50]}},"repoURL":"r","parentID":"T-0","threadID":"ses","projectRoot":"/p"}`
	tk, err := DecodeRecord([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Encode(tk)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "id": "T-1",
  "subject": "s",
  "description": "d",
  "status": "in_progress",
  "activeForm": "a",
  "blocks": [
    "T-2"
  ],
  "blockedBy": [],
  "owner": "o",
  "priority": "low",
  "metadata": {
    "a": {
      "n": [
        1,
        2.50
      ]
    },
    "z": 1
  },
  "repoURL": "r",
  "parentID": "T-0",
  "threadID": "ses",
  "projectRoot": "/p"
}
`
	if string(out) != want {
		t.Fatalf("encoded:\n%s\nwant:\n%s", out, want)
	}
}

func TestDecodeRecordRejects(t *testing.T) {
	tests := []struct{ name, in, msg string }{
		{"unknown key", `{"id":"T-1","subject":"s","description":"","status":"pending","x":1}`, "x: unknown key"},
		{"bad status", `{"id":"T-1","subject":"s","description":"","status":"done"}`, "status"},
		{"bad id", `{"id":"T-../1","subject":"s","description":"","status":"pending"}`, "id"},
		{"bad priority", `{"id":"T-1","subject":"s","description":"","status":"pending","priority":"urgent"}`, "priority"},
		{"duplicate key", `{"id":"T-1","id":"T-1","subject":"s","description":"","status":"pending"}`, "duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeRecord([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want mention of %q", err, tt.msg)
			}
		})
	}
	// Older records without threadID, blocks and blockedBy are valid.
	tk, err := DecodeRecord([]byte(`{"id":"T-1","subject":"s","description":"","status":"pending"}`))
	if err != nil || tk.Blocks == nil || tk.BlockedBy == nil {
		t.Fatalf("old record: %v %+v", err, tk)
	}
}

func TestParseCreate(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		items     []string // subjects created
		errIdx    []int
		wholeCode errcode.Code
	}{
		{"single", `{"subject":"a"}`, []string{"a"}, nil, ""},
		{"batch", `{"items":[{"subject":"a"},{"subject":""},{"subject":"c","status":"pending"},{"subject":"d"}]}`, []string{"a", "d"}, []int{1, 2}, ""},
		{"single bad", `{"subject":"a","x":1}`, nil, []int{0}, ""},
		{"empty batch is a no-op", `{"items":[]}`, nil, nil, ""},
		{"extra key", `{"items":[{"subject":"a"}],"x":1}`, nil, nil, errcode.ValidationError},
		{"items not array", `{"items":{}}`, nil, nil, errcode.ValidationError},
		{"not object", `"a"`, nil, nil, errcode.ValidationError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseCreate([]byte(tt.in))
			if errcode.Of(err) != tt.wholeCode {
				t.Fatalf("err = %v, want %q", err, tt.wholeCode)
			}
			if err != nil {
				return
			}
			var subjects []string
			for _, it := range req.Items {
				subjects = append(subjects, it.Subject)
			}
			if strings.Join(subjects, ",") != strings.Join(tt.items, ",") {
				t.Errorf("items %v, want %v", subjects, tt.items)
			}
			var idx []int
			for _, e := range req.Errors {
				idx = append(idx, e.Index)
			}
			if len(idx) != len(tt.errIdx) {
				t.Fatalf("error indexes %v, want %v", idx, tt.errIdx)
			}
			for i := range idx {
				if idx[i] != tt.errIdx[i] {
					t.Fatalf("error indexes %v, want %v", idx, tt.errIdx)
				}
			}
		})
	}
}

func TestUpdateApply(t *testing.T) {
	tk, err := DecodeRecord([]byte(`{"id":"T-1","subject":"s","description":"","status":"pending","blocks":["T-2"],"blockedBy":["T-3"],"owner":"o","metadata":{"keep":1,"drop":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	req, err := ParseUpdate([]byte(`{"id":"T-1","status":"completed","owner":"","addBlocks":["T-2","T-4","T-4"],"addBlockedBy":["T-5","T-3"],"metadata":{"drop":null,"new":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Apply(tk)
	if tk.Status != Completed || tk.Owner != "" {
		t.Errorf("scalars: %+v", tk)
	}
	if strings.Join(tk.Blocks, ",") != "T-2,T-4" || strings.Join(tk.BlockedBy, ",") != "T-3,T-5" {
		t.Errorf("deps: blocks %v blockedBy %v", tk.Blocks, tk.BlockedBy)
	}
	if _, ok := tk.Metadata["drop"]; ok || string(tk.Metadata["keep"]) != "1" || string(tk.Metadata["new"]) != `"v"` {
		t.Errorf("metadata: %v", tk.Metadata)
	}
	// Deleting the last key removes metadata entirely.
	del, _ := ParseUpdate([]byte(`{"id":"T-1","metadata":{"keep":null,"new":null}}`))
	del.Apply(tk)
	if tk.Metadata != nil {
		t.Errorf("metadata should be gone: %v", tk.Metadata)
	}
}

func TestUpdateRefusesCreateOnlyFields(t *testing.T) {
	for _, f := range []string{`"repoURL":"x"`, `"parentID":"T-1"`, `"blocks":[]`, `"blockedBy":[]`, `"threadID":"s"`, `"projectRoot":"/"`} {
		_, err := ParseUpdate([]byte(`{"id":"T-1",` + f + `}`))
		if errcode.Of(err) != errcode.ValidationError || !strings.Contains(err.Error(), "not updatable") {
			t.Errorf("%s: err = %v", f, err)
		}
	}
	if _, err := ParseUpdate([]byte(`{"id":"T-../x"}`)); errcode.Of(err) != errcode.InvalidTaskID {
		t.Errorf("bad id: %v", err)
	}
}

func TestCleanupOlderThan(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		mins int
	}{
		{"7d", true, 7 * 24 * 60}, {"24h", true, 24 * 60}, {"30m", true, 30}, {"0m", true, 0}, {"0d", true, 0},
		{"36500d", true, 36500 * 24 * 60}, {"36501d", false, 0}, {"999999999d", false, 0},
		{"7", false, 0}, {"7w", false, 0}, {"-1d", false, 0}, {"1.5h", false, 0}, {"d", false, 0},
	}
	for _, tt := range tests {
		r := CleanupRequest{OlderThan: tt.in}
		err := r.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%q: err = %v", tt.in, err)
			continue
		}
		if tt.ok && int(r.Age.Minutes()) != tt.mins {
			t.Errorf("%q: age %v", tt.in, r.Age)
		}
	}
	// Zero with stale would make every active task stale: refused.
	r := CleanupRequest{OlderThan: "0d", Stale: true}
	if err := r.Validate(); errcode.Of(err) != errcode.ValidationError {
		t.Errorf("0d with stale: %v", err)
	}
}

// TestConflictingFilters: filters that contradict each other are refused
// rather than one of them silently winning.
func TestConflictingFilters(t *testing.T) {
	for doc, ok := range map[string]bool{
		`{"ready":true,"status":"pending"}`:   true,
		`{"ready":true,"all":false}`:          true,
		`{"all":true,"parentID":"T-1"}`:       true,
		`{"ready":true,"status":"completed"}`: false,
		`{"ready":true,"all":true}`:           false,
		`{"status":"completed","all":true}`:   false,
		`{"status":"pending","all":true}`:     false,
	} {
		if _, err := ParseList([]byte(doc)); (err == nil) != ok || (err != nil && errcode.Of(err) != errcode.ValidationError) {
			t.Errorf("list %s: err = %v", doc, err)
		}
	}
	for doc, ok := range map[string]bool{
		`{"all":true}`:                   true,
		`{"all":false,"olderThan":"7d"}`: true,
		`{"olderThan":"7d"}`:             true,
		`{"all":false}`:                  false,
		`{"all":true,"olderThan":"7d"}`:  false,
	} {
		if _, err := ParseCleanup([]byte(doc)); (err == nil) != ok || (err != nil && errcode.Of(err) != errcode.ValidationError) {
			t.Errorf("cleanup %s: err = %v", doc, err)
		}
	}
}

// TestPluginFormRoundTrip: EncodeAs(plugin) leaves projectRoot and
// priority out of the top level (the published plugin's strict schema has
// neither), keeps them in metadata, and DecodeRecord reads the same task.
func TestPluginFormRoundTrip(t *testing.T) {
	in := &Task{ID: "T-1", Subject: "s", Status: Pending, Priority: "high", ProjectRoot: "/p", ThreadID: "x",
		Metadata: Metadata{"planName": jsontext.Value(`"p"`)}}
	b, err := EncodeAs(in, true)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]jsontext.Value
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if _, ok := top["projectRoot"]; ok {
		t.Errorf("projectRoot at the top level:\n%s", b)
	}
	if _, ok := top["priority"]; ok {
		t.Errorf("priority at the top level:\n%s", b)
	}
	if len(in.Metadata) != 1 || in.ProjectRoot != "/p" {
		t.Errorf("EncodeAs changed its argument: %+v", in)
	}
	out, err := DecodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if out.Priority != "high" || out.ProjectRoot != "/p" || len(out.Metadata) != 1 || string(out.Metadata["planName"]) != `"p"` {
		t.Errorf("read back %+v", out)
	}
	// a priority in metadata that is not a valid one stays metadata
	out, err = DecodeRecord([]byte(`{"id":"T-1","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[],"metadata":{"matrixx.priority":"urgent"}}`))
	if err != nil || out.Priority != "" || len(out.Metadata) != 1 {
		t.Errorf("invalid metadata priority: %+v %v", out, err)
	}
}
