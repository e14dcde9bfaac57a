package notepad

import (
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T) time.Time {
	ts, err := time.Parse(time.RFC3339Nano, "2026-09-27T16:20:10.393Z")
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestParseAnswers(t *testing.T) {
	tests := []struct {
		name           string
		in             string
		create, update bool
		created        int
		updated        int
		hasMeta        bool
	}{
		{"create envelope", `{"tasks":[{"id":"T-1","subject":"a"},{"id":"T-2","subject":"b","deduplicated":true}],"errors":[]}` + "\n", true, true, 2, 0, false},
		{"create ignored when not asked", `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[]}`, false, true, 0, 0, false},
		{"update answer", `{"task":{"id":"T-1","subject":"a","description":"","status":"completed","blocks":[],"blockedBy":[],"metadata":{"planName":"p"},"threadID":"s"}}`, true, true, 0, 1, true},
		{"update answer as in the spec's Example A", `{"task":{"id":"T-1","subject":"a","status":"completed"}}`, true, true, 0, 1, false},
		{"update answer with an unknown member is no record", `{"task":{"id":"T-1","subject":"a","status":"completed","newField":1}}`, true, true, 0, 0, false},
		{"update answer with an invalid status", `{"task":{"id":"T-1","subject":"a","status":"done"}}`, true, true, 0, 0, false},
		{"update ignored when not asked", `{"task":{"id":"T-1","status":"completed"}}`, true, false, 0, 0, false},
		{"two documents", `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[]}` + "\n" + `{"task":{"id":"T-1","status":"completed"}}`, true, true, 1, 1, false},
		{"two documents on one line", `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[]}{"task":{"id":"T-1","status":"completed"}}`, true, true, 1, 1, false},
		{"pretty", "{\n  \"task\": {\n    \"id\": \"T-1\",\n    \"status\": \"completed\"\n  }\n}\n", true, true, 0, 1, false},
		{"bad ids make the answer not count", `{"tasks":[{"id":"../x","subject":"a"},{"id":"T-2","subject":"b"}],"errors":[]}{"task":{"id":"T x"}}`, true, true, 0, 0, false},
		{"error envelope", `{"error":"task_not_found","message":"x"}`, true, true, 0, 0, false},
		{"garbage after a document", `{"task":{"id":"T-1","status":"completed"}} not json {"task":{"id":"T-2","status":"completed"}}`, true, true, 0, 1, false},
		{"null task", `{"task":null}`, true, true, 0, 0, false},
		{"not JSON", `Created task T-1`, true, true, 0, 0, false},
		{"cut by the hook (NUL sentinel)", `{"tasks":[{"id":"T-1","subject":"a` + "\x00", true, true, 0, 0, false},

		// task-list's answer is no create answer (finding: it wrote a
		// scaffold for every listed task).
		{"task-list answer", `{"tasks":[{"id":"T-1","subject":"a","status":"pending","blockedBy":[]}],"reminder":"1 task = 1 task."}`, true, true, 0, 0, false},
		{"task-list entries with an errors member", `{"tasks":[{"id":"T-1","subject":"a","status":"pending","blockedBy":[]}],"errors":[]}`, true, true, 0, 0, false},
		{"a third member", `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[],"problems":[]}`, true, true, 0, 0, false},
		{"tasks not an array", `{"tasks":{"id":"T-1","subject":"a"},"errors":[]}`, true, true, 0, 0, false},
		{"errors not objects", `{"tasks":[{"id":"T-1","subject":"a"}],"errors":["x"]}`, true, true, 0, 0, false},
		{"null subject", `{"tasks":[{"id":"T-1","subject":null}],"errors":[]}`, true, true, 0, 0, false},
		{"deduplicated not a boolean", `{"tasks":[{"id":"T-1","subject":"a","deduplicated":"yes"}],"errors":[]}`, true, true, 0, 0, false},
		{"update answer with another member", `{"task":{"id":"T-1","status":"completed"},"reminder":"x"}`, true, true, 0, 0, false},
		{"duplicate member", `{"task":{"id":"T-1","status":"completed"},"task":{"id":"T-2","status":"completed"}}`, true, true, 0, 0, false},

		// Text before the answer (finding: answers were missed).
		{"a line printed before", "Creating task...\n" + `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[]}` + "\n", true, true, 1, 0, false},
		{"stderr merged by 2>&1", "task-create: item 1: validation_error: subject is required\n" + `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[{"index":1,"error":"validation_error","message":"subject is required"}]}` + "\n", true, true, 1, 0, false},
		{"jq -C colours", "\x1b[1;39m{\n  \x1b[0m\x1b[34;1m\"tasks\"\x1b[0m\x1b[1;39m:\x1b[0m\x1b[1;39m[\x1b[1;39m{\x1b[0m\x1b[34;1m\"id\"\x1b[0m\x1b[1;39m:\x1b[0m\x1b[0;32m\"T-1\"\x1b[0m\x1b[1;39m,\x1b[34;1m\"subject\"\x1b[0m\x1b[1;39m:\x1b[0;32m\"a\"\x1b[0m\x1b[1;39m}\x1b[1;39m]\x1b[0m\x1b[1;39m,\n  \x1b[0m\x1b[34;1m\"errors\"\x1b[0m\x1b[1;39m:\x1b[0m\x1b[1;39m[]\x1b[0m\x1b[1;39m\n\x1b[1;39m}\x1b[0m\n", true, true, 1, 0, false},
		{"an unclosed object before", "{ progress: 10%\n" + `{"task":{"id":"T-1","status":"completed"}}`, true, true, 0, 1, false},
		{"an unclosed JSON array before", "{\"a\":[\n" + `{"task":{"id":"T-1","status":"completed"}}` + "\n", true, true, 0, 1, false},
		{"text on the same line before", `done: {"task":{"id":"T-1","status":"completed"}}`, true, true, 0, 0, false},
		{"CRLF lines", "hello\r\n" + `{"task":{"id":"T-1","status":"completed"}}` + "\r\n", true, true, 0, 1, false},
		{"nested objects of a pretty document are not answers", "{\n  \"wrapper\": [\n{\"task\":{\"id\":\"T-1\",\"status\":\"completed\"}}\n  ]\n}\n", true, true, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ParseAnswers([]byte(tt.in), tt.create, tt.update)
			if len(a.Created) != tt.created || len(a.Updated) != tt.updated {
				t.Fatalf("created %d updated %d", len(a.Created), len(a.Updated))
			}
			if tt.updated > 0 && a.Updated[0].HasMetadata != tt.hasMeta {
				t.Errorf("HasMetadata %v", a.Updated[0].HasMetadata)
			}
		})
	}
}

func TestStripANSI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;39m{\x1b[0m", "{"},
		{"a\x1b[38;5;12mb\x1b[m", "ab"},
		{"\x1b]8;;http://x\x07link\x1b]8;;\x1b\\", "link"},
		{"x\x1b(By", "xBy"},
		{"cut\x1b[1;3", "cut"},
		{"end\x1b", "end"},
		{"\x1b[1;39\nnext", "\nnext"},
	}
	for _, tt := range tests {
		if got := string(StripANSI([]byte(tt.in))); got != tt.want {
			t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// BenchmarkParseAnswersPathological is 1 MiB of lines that each open an
// object that never closes: the failed attempts stay within the budget
// (a few passes over the input), never a scan per line.
func BenchmarkParseAnswersPathological(b *testing.B) {
	data := []byte(strings.Repeat("{\"a\":[\n", 150000))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ParseAnswers(data, true, true)
	}
}
