package hook

import (
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/enforce"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestTextsStartWithTaskClaim: every agent-facing text that says how to
// start work names task-claim <id> --owner <you>, and none tells agents
// to start with task-update --status in_progress (which takes no lease
// and is refused on another agent's claim: docs/claims.md).
func TestTextsStartWithTaskClaim(t *testing.T) {
	var ready string
	for _, c := range Commands {
		if c.Name == "task-ready" {
			ready = c.Content
		}
	}
	texts := map[string]string{
		"onboarding": Onboarding,
		"snippet":    Snippet,
		"skill":      Skill,
		"task-ready": ready,
		"summary": summary("ses-1", true, 24*time.Hour, time.Now(), []store.Entry{{Task: &task.Task{
			ID: "T-1", Subject: "s", Status: task.Pending, ThreadID: "ses-1"}}}),
		"TodoWrite":    hostTaskTools["TodoWrite"],
		"TaskUpdate":   hostTaskTools["TaskUpdate"],
		"continuation": enforce.Directive(enforce.Input{}, enforce.Queue{}),
	}
	for name, s := range texts {
		if !strings.Contains(s, "task-claim <id> --owner <you>") {
			t.Errorf("%s does not say task-claim <id> --owner <you>:\n%s", name, s)
		}
		flat := strings.Join(strings.Fields(s), " ")
		for _, bad := range []string{"--status in_progress|", "(task-update <id> --status in_progress)", "or task-update --status in_progress", "task-update it to in_progress", "Mark a task in_progress"} {
			if strings.Contains(flat, bad) {
				t.Errorf("%s still starts work with task-update: %q", name, bad)
			}
		}
	}
}
