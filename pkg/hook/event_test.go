package hook

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "claude-code", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeFixtures decodes every Claude Code fixture and checks the
// fields the hooks use.
func TestDecodeFixtures(t *testing.T) {
	tests := []struct {
		file string
		want Event
	}{
		{"pre-bash.json", Event{Name: PreToolUse, Tool: "Bash", Input: ToolInput{Present: true,
			Command: "sed -i 's/pending/completed/' .matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json"}}},
		{"pre-edit.json", Event{Name: PreToolUse, Tool: "Edit", Input: ToolInput{Present: true,
			Paths: map[string][]string{"file_path": {"/home/dev/proj/src/app.go"}}}}},
		{"pre-write.json", Event{Name: PreToolUse, Tool: "Write", Input: ToolInput{Present: true,
			Paths: map[string][]string{"file_path": {"/home/dev/proj/.matrixx/plans/auth-refresh.md"}}}}},
		{"pre-multiedit.json", Event{Name: PreToolUse, Tool: "MultiEdit", Input: ToolInput{Present: true,
			Paths: map[string][]string{"file_path": {"/home/dev/proj/.matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json"}}}}},
		{"pre-notebookedit.json", Event{Name: PreToolUse, Tool: "NotebookEdit", Input: ToolInput{Present: true,
			Paths: map[string][]string{"notebook_path": {"/home/dev/proj/analysis.ipynb"}}}}},
		{"pre-read.json", Event{Name: PreToolUse, Tool: "Read", Input: ToolInput{Present: true,
			Paths: map[string][]string{"file_path": {"/home/dev/proj/.matrixx/plans/auth-refresh.md"}}}}},
		{"pre-mcp-write.json", Event{Name: PreToolUse, Tool: "mcp__filesystem__write_file", Input: ToolInput{Present: true,
			Paths: map[string][]string{"path": {"/home/dev/proj/.matrixx/tasks/T-1.json"}}}}},
		{"post-bash-task-create.json", Event{Name: PostToolUse, Tool: "Bash",
			Input:    ToolInput{Present: true, Command: `printf '{"subject":"Rotate the refresh-token signing key","metadata":{"planName":"auth-refresh"}}' | task-create`},
			Response: ToolResponse{Stdout: `{"tasks":[{"id":"T-3f1c9a20-8d4e-4b77-9c11-5a0e2b6d4f10","subject":"Rotate the refresh-token signing key"}],"errors":[]}` + "\n"}}},
		{"post-mcp-task-update.json", Event{Name: PostToolUse, Tool: "mcp__matrixx__task_update", Input: ToolInput{Present: true},
			Response: ToolResponse{Text: []string{`{"task":{"id":"T-3f1c9a20-8d4e-4b77-9c11-5a0e2b6d4f10","subject":"Rotate the refresh-token signing key","description":"","status":"completed","blocks":[],"blockedBy":[],"threadID":"abc123-session"}}`}}}},
		{"post-failure-bash.json", Event{Name: PostToolUseFailure, Tool: "Bash", Input: ToolInput{Present: true, Command: "task-update < in.json"}}},
		{"stop.json", Event{Name: Stop, LastMessage: "All done."}},
		{"stop-active.json", Event{Name: Stop, StopHookActive: true, LastMessage: "Continuing."}},
		{"stop-background.json", Event{Name: Stop, Background: 1, LastMessage: "Waiting on the test run."}},
		{"subagent-stop.json", Event{Name: SubagentStop, AgentID: "agent_7f", AgentType: "general-purpose", LastMessage: "Finished the refactor."}},
		{"session-start.json", Event{Name: SessionStart, Source: "startup"}},
		{"session-start-compact.json", Event{Name: SessionStart, Source: "compact"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ev, err := Decode(strings.NewReader(string(fixture(t, tt.file))))
			if err != nil {
				t.Fatal(err)
			}
			if ev.SessionID != "abc123-session" || ev.Cwd != "/home/dev/proj" {
				t.Errorf("session %q cwd %q", ev.SessionID, ev.Cwd)
			}
			got := *ev
			got.SessionID, got.Cwd, got.TranscriptPath, got.ToolUseID = "", "", "", ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDecodeOddShapes(t *testing.T) {
	tests := []struct {
		name, in string
		check    func(t *testing.T, ev *Event, err error)
	}{
		{"wrong types are problems, not errors", `{"session_id":1,"cwd":true,"hook_event_name":"Stop","stop_hook_active":"y","background_tasks":{}}`,
			func(t *testing.T, ev *Event, err error) {
				if err != nil || ev.Name != Stop || len(ev.Problems) != 4 {
					t.Errorf("err %v, event %+v", err, ev)
				}
			}},
		{"nulls are absent", `{"session_id":null,"tool_input":null,"tool_response":null}`,
			func(t *testing.T, ev *Event, err error) {
				if err != nil || len(ev.Problems) != 0 || ev.Input.Present {
					t.Errorf("err %v, event %+v", err, ev)
				}
			}},
		{"nested path fields and arrays", `{"tool_input":{"edits":[{"path":"/a"},{"path":["/b","/c"]}],"file":{"filePath":"/d"},"x":{"y":{"path":"/e"}}}}`,
			func(t *testing.T, ev *Event, err error) {
				want := map[string][]string{"path": {"/a", "/b", "/c", "/e"}, "filePath": {"/d"}}
				if err != nil || !reflect.DeepEqual(ev.Input.Paths, want) {
					t.Errorf("err %v, paths %v", err, ev.Input.Paths)
				}
			}},
		{"a byte-order mark is dropped", "\xef\xbb\xbf" + `{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
			func(t *testing.T, ev *Event, err error) {
				if err != nil || ev.Tool != "Bash" || ev.Input.Command != "ls" {
					t.Errorf("err %v, event %+v", err, ev)
				}
			}},
		{"loose values that read as paths into .matrixx", `{"tool_input":{"to":".matrixx/tasks/T-1.json","ref":"/p/.matrixx/plans/a b.md","message":"see .matrixx/tasks","note":"x","content":".matrixx/tasks/T-2.json","n":1,"title":"fix /p/.matrixx/plans"}}`,
			func(t *testing.T, ev *Event, err error) {
				want := map[string][]string{"to": {".matrixx/tasks/T-1.json"}, "ref": {"/p/.matrixx/plans/a b.md"}}
				if err != nil || !reflect.DeepEqual(ev.Input.Paths, want) {
					t.Errorf("err %v, paths %v", err, ev.Input.Paths)
				}
			}},
		{"patch texts name their files", `{"tool_input":{"patchText":"*** Begin Patch\n*** Update File: .matrixx/tasks/T-1.json\n@@\n-a\n+b\n*** Add File: src/x.go\n*** End Patch","diff":"--- a/.matrixx/plans/p.md\n+++ b/.matrixx/plans/p.md\n"}}`,
			func(t *testing.T, ev *Event, err error) {
				want := map[string][]string{"patchText": {".matrixx/tasks/T-1.json"}, "diff": {"a/.matrixx/plans/p.md", ".matrixx/plans/p.md", "b/.matrixx/plans/p.md", ".matrixx/plans/p.md"}}
				if err != nil || !reflect.DeepEqual(ev.Input.Paths, want) {
					t.Errorf("err %v, paths %v", err, ev.Input.Paths)
				}
			}},
		{"only the top-level command", `{"tool_input":{"nested":{"command":"rm -rf /"},"command":"ls"}}`,
			func(t *testing.T, ev *Event, err error) {
				if err != nil || ev.Input.Command != "ls" {
					t.Errorf("err %v, command %q", err, ev.Input.Command)
				}
			}},
		{"background entries", `{"background_tasks":[{"status":"running"},{"status":"Completed"},{"id":"x"},"bare",{"status":"killed"}]}`,
			func(t *testing.T, ev *Event, err error) {
				if err != nil || ev.Background != 2 || len(ev.Problems) != 1 {
					t.Errorf("err %v, background %d, problems %q", err, ev.Background, ev.Problems)
				}
			}},
		// H10: only objects whose status is absent or an unfinished string
		// count; malformed entries never let an agent stop.
		{"background null entry", `{"background_tasks":[null]}`, func(t *testing.T, ev *Event, err error) {
			if err != nil || ev.Background != 0 || len(ev.Problems) != 1 {
				t.Errorf("err %v, background %d, problems %q", err, ev.Background, ev.Problems)
			}
		}},
		{"background bare id", `{"background_tasks":["bg_1",7,true,[]]}`, func(t *testing.T, ev *Event, err error) {
			if err != nil || ev.Background != 0 || len(ev.Problems) != 4 {
				t.Errorf("err %v, background %d, problems %q", err, ev.Background, ev.Problems)
			}
		}},
		{"background status not a string", `{"background_tasks":[{"status":5},{"status":null},{"status":{"s":"running"}},{"id":"b","status":" Running "}]}`, func(t *testing.T, ev *Event, err error) {
			if err != nil || ev.Background != 1 || len(ev.Problems) != 3 {
				t.Errorf("err %v, background %d, problems %q", err, ev.Background, ev.Problems)
			}
		}},
		{"response as string, blocks and content", `{"tool_response":{"content":[{"type":"text","text":"a"},{"type":"image","text":"no"},"b"]}}`,
			func(t *testing.T, ev *Event, err error) {
				if err != nil || !reflect.DeepEqual(ev.Response.Text, []string{"a", "b"}) {
					t.Errorf("err %v, text %q", err, ev.Response.Text)
				}
			}},
		{"truncated keeps what was read", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"`,
			func(t *testing.T, ev *Event, err error) {
				if err == nil || ev.Name != PreToolUse || ev.Tool != "Bash" || ev.Input.Command != "ls" {
					t.Errorf("err %v, event %+v", err, ev)
				}
			}},
		{"not an object", `[1]`, func(t *testing.T, ev *Event, err error) {
			if err == nil {
				t.Error("no error")
			}
		}},
		{"empty", ``, func(t *testing.T, ev *Event, err error) {
			if err == nil {
				t.Error("no error")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Decode(strings.NewReader(tt.in))
			tt.check(t, ev, err)
		})
	}
}
