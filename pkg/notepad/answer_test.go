package notepad

import (
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
		{"update answer", `{"task":{"id":"T-1","subject":"a","status":"completed","metadata":{"planName":"p"},"newField":1}}`, true, true, 0, 1, true},
		{"two documents", `{"tasks":[{"id":"T-1","subject":"a"}],"errors":[]}` + "\n" + `{"task":{"id":"T-1","status":"completed"}}`, true, true, 1, 1, false},
		{"pretty", "{\n  \"task\": {\n    \"id\": \"T-1\",\n    \"status\": \"completed\"\n  }\n}\n", true, true, 0, 1, false},
		{"bad ids dropped", `{"tasks":[{"id":"../x","subject":"a"},{"id":5}],"errors":[]}{"task":{"id":"T x"}}`, true, true, 0, 0, false},
		{"error envelope", `{"error":"task_not_found","message":"x"}`, true, true, 0, 0, false},
		{"garbage after a document", `{"task":{"id":"T-1","status":"completed"}} not json {"task":{"id":"T-2"}}`, true, true, 0, 1, false},
		{"null task", `{"task":null}`, true, true, 0, 0, false},
		{"not JSON", `Created task T-1`, true, true, 0, 0, false},
		{"cut by the hook (NUL sentinel)", `{"tasks":[{"id":"T-1","subject":"a` + "\x00", true, true, 0, 0, false},
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
