package hook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
)

func TestOtherTaskTool(t *testing.T) {
	for tool, want := range map[string]bool{
		// our own server's tools record their writes; reading tools of
		// another server open nothing
		"mcp__matrixx__task_create": false, "mcp__plugin_matrixx_matrixx__task_update": false,
		"mcp__x__task_list": false, "mcp__x__task_get": false,
		"mcp__plugin_x__task-update": true, "mcp__other__task_create": true, "mcp__fs__write_file": false,
		"Bash": false, "mcp__task_create": true, "Write": false,
	} {
		if got := otherTaskTool(tool); got != want {
			t.Errorf("%s: %v", tool, got)
		}
	}
}

func TestAgentLineIsOneCappedLine(t *testing.T) {
	o := &checkOutcome{}
	for i := range 40 {
		o.Agent = append(o.Agent, integrity.Change{Area: "tasks", File: fmt.Sprintf("T-%d.json", i), What: "changed", Action: "restored", Quarantine: "q"})
	}
	o.Agent = append(o.Agent, integrity.Change{Area: "config", File: "/p/.matrixx/matrixx.jsonc", What: "created", Action: "quarantined"})
	line := o.agentLine()
	if strings.Contains(line, "\n") || len(line) > 1000 {
		t.Fatalf("not one short line: %q", line)
	}
	for _, want := range []string{"T-0.json changed → restored", "and 36 more", "task-create, task-update or task-cleanup", "leave the config files to the person", "quarantine"} {
		if !strings.Contains(line, want) {
			t.Errorf("missing %q in %q", want, line)
		}
	}
	if (&checkOutcome{}).postAnswer(PostToolUse) != nil {
		t.Error("an answer with nothing to say")
	}
}
