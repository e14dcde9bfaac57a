package mcpserver

import (
	"strings"
	"testing"
)

// TestTextsStartWithTaskClaim: the server's instructions and task_update's
// description tell agents to start work with task_claim, not by setting
// status in_progress (no lease, and refused on another owner's claim:
// docs/claims.md).
func TestTextsStartWithTaskClaim(t *testing.T) {
	texts := map[string]string{"instructions": instructions}
	for _, tool := range Tools() {
		if tool.Name == "task_update" {
			texts["task_update"] = tool.Description
		}
	}
	for name, s := range texts {
		if !strings.Contains(s, "task_claim") {
			t.Errorf("%s does not name task_claim: %s", name, s)
		}
		for _, bad := range []string{"set a task in_progress when you start", `Set "status":"in_progress" when you start`} {
			if strings.Contains(s, bad) {
				t.Errorf("%s still starts work with status in_progress: %q", name, bad)
			}
		}
	}
}
