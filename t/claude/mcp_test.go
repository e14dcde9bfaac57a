package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPServer: `matrixx-hook install --mcp` registers matrixx-mcp in the
// project's .mcp.json and enables it; the real host starts it, the model's
// mcp__matrixx__task_create lands a task on disk (past the guard, which
// never denies our own server's tools), and task_list's answer reaches the
// model as the binaries' JSON document. A tool error comes back as the
// binaries' error envelope with is_error.
func TestMCPServer(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.Run(t, "matrixx-hook", "install", "-C", p.Root, "--mcp")
	if _, err := os.Stat(filepath.Join(p.Root, ".mcp.json")); err != nil {
		t.Fatalf("install --mcp wrote no .mcp.json: %v", err)
	}
	p.AllowedTools = ",mcp__matrixx__task_create,mcp__matrixx__task_list,mcp__matrixx__task_get"
	p.Claude(t, Steps(
		Call("mcp__matrixx__task_create", map[string]any{"subject": "Filed over MCP", "priority": "high"}),
		Call("mcp__matrixx__task_list", map[string]any{}),
		Call("mcp__matrixx__task_get", map[string]any{"id": "T-../../etc/passwd"}),
	), "File the MCP task.", "--session-id", sessionA)

	created := resultOf(t, p.Server, 0)
	id := taskID.FindString(created.ResultText())
	if created.IsError || id == "" {
		t.Fatalf("task_create over MCP: is_error=%v %q\nhook log: %s", created.IsError, created.ResultText(), p.HookLog())
	}
	rec := p.taskRecord(t, id)
	if rec["subject"] != "Filed over MCP" || rec["status"] != "pending" {
		t.Errorf("the task on disk: %v", rec)
	}
	listed := resultOf(t, p.Server, 1)
	if listed.IsError {
		t.Fatalf("task_list over MCP: %q", listed.ResultText())
	}
	contains(t, "task_list tool_result", listed.ResultText(), `"tasks":[`, `"id":"`+id+`"`, "Filed over MCP")
	bad := resultOf(t, p.Server, 2)
	if !bad.IsError {
		t.Errorf("task_get of a bad id: not an error: %q", bad.ResultText())
	}
	contains(t, "task_get error", bad.ResultText(), `"error":"invalid_task_id"`)
	if strings.Contains(p.HookLog(), "task-edit-guard: deny") {
		t.Errorf("the guard denied one of our own MCP tools:\n%s", p.HookLog())
	}
}
