package task

import (
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// task-claim's stdin and the MCP tool task_claim both parse with
// ParseClaim: an id given empty is refused, an absent id is the next ready
// task.
func TestParseClaimEmptyID(t *testing.T) {
	if _, _, err := ParseClaim([]byte(`{"id":"","owner":"me"}`)); errcode.Of(err) != errcode.InvalidTaskID {
		t.Fatalf(`"id":"" gave %v, want invalid_task_id`, err)
	}
	d, _, err := ParseClaim([]byte(`{"owner":"me"}`))
	if err != nil || d.ID != "" || d.Owner != "me" {
		t.Fatalf("no id: %+v, %v", d, err)
	}
	d, _, err = ParseClaim([]byte(`{"id":"T-1","owner":"me","lease":"90s","paths":["a/**"]}`))
	if err != nil || d.ID != "T-1" || d.Lease != "90s" || len(d.Paths) != 1 {
		t.Fatalf("full document: %+v, %v", d, err)
	}
}
