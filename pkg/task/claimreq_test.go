package task

import (
	"strings"
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

// ParseCreate (task-create's document, the MCP tool task_create) refuses
// a document nested deeper than input.MaxDepth before decoding it.
func TestParseCreateDepth(t *testing.T) {
	doc := func(n int) []byte {
		return []byte(`{"subject":"d","metadata":{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`)
	}
	if _, err := ParseCreate(doc(63)); errcode.Of(err) != errcode.ValidationError || !strings.Contains(err.Error(), "more than 64 levels deep") {
		t.Fatalf("65 levels: %v", err)
	}
	req, err := ParseCreate(doc(62))
	if err != nil || len(req.Items) != 1 {
		t.Fatalf("64 levels: %+v, %v", req, err)
	}
}
