package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
)

// realEvents reads a file of real host events (one JSON object a line,
// testdata/real-events, as captured from the hosts).
func realEvents(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "real-events", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
			out = append(out, append([]byte(nil), l...))
		}
	}
	return out
}

// decodeAs decodes one event and normalises it as detect says.
func decodeAs(t *testing.T, b []byte) *Event {
	t.Helper()
	ev, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	normalise(ev, detect(ev))
	return ev
}

func TestRealEventsCodex(t *testing.T) {
	var pre, post, stop int
	for _, b := range realEvents(t, "codex-0.171.0.jsonl") {
		ev := decodeAs(t, b)
		if ev.SessionID != "01a23341-766f-7ef0-800b-0d8b8f1b4add" || ev.Cwd != "/home/user/project" {
			t.Errorf("session %q cwd %q", ev.SessionID, ev.Cwd)
		}
		if ev.Name != SessionStart && ev.Host != HostCodex {
			t.Errorf("%s: host %v, want codex", ev.Name, ev.Host)
		}
		switch {
		case ev.Name == PreToolUse && ev.Tool == "apply_patch":
			pre++
			if ev.Input.Command != "" || len(ev.Input.Paths["file_path"]) != 1 {
				t.Errorf("apply_patch: command %q paths %v", ev.Input.Command, ev.Input.Paths)
			}
		case ev.Name == PreToolUse:
			pre++
			if ev.Tool != "Bash" || !strings.HasPrefix(ev.Input.Command, "echo ") {
				t.Errorf("Bash: %+v", ev)
			}
		case ev.Name == PostToolUse:
			post++
			if len(ev.Response.Text) != 1 {
				t.Errorf("PostToolUse response %+v", ev.Response)
			}
		case ev.Name == Stop:
			stop++
			if ev.TurnID == "" || turnKey(ev) != "codex:"+ev.TurnID {
				t.Errorf("Stop turn %q key %q", ev.TurnID, turnKey(ev))
			}
		}
	}
	if pre != 5 || post != 3 || stop != 2 {
		t.Errorf("pre %d post %d stop %d", pre, post, stop)
	}
}

func TestRealEventsGemini(t *testing.T) {
	names := map[string]int{}
	var prompts []string
	for _, b := range realEvents(t, "gemini-cli-0.61.0.jsonl") {
		ev := decodeAs(t, b)
		if ev.Host != HostGemini {
			t.Errorf("%s: host %v, want gemini", ev.HostName, ev.Host)
		}
		names[ev.Name]++
		switch ev.Name {
		case PreToolUse:
			switch ev.HostTool + ev.Tool {
			case "run_shell_commandBash":
				if !strings.HasPrefix(ev.Input.Command, "echo ") {
					t.Errorf("shell: %q", ev.Input.Command)
				}
			case "write_file", "replace":
				if p := ev.Input.Paths["file_path"]; len(p) != 1 || filepath.IsAbs(p[0]) {
					t.Errorf("%s paths %v", ev.Tool, ev.Input.Paths)
				}
			default:
				t.Errorf("tool %q %q", ev.HostTool, ev.Tool)
			}
		case PostToolUse:
			if ev.Tool == "Bash" && ev.Response.Stdout != "ran" {
				t.Errorf("AfterTool stdout %q", ev.Response.Stdout)
			}
		case Stop:
			prompts = append(prompts, ev.Prompt)
		}
	}
	want := map[string]int{SessionStart: 1, PreToolUse: 5, PostToolUse: 3, Stop: 2}
	for k, n := range want {
		if names[k] != n {
			t.Errorf("%s: %d events, want %d (all: %v)", k, names[k], n, names)
		}
	}
	// The two AfterAgent of one prompt (a block re-prompted the agent)
	// count against one turn.
	if len(prompts) != 2 || prompts[0] != prompts[1] || prompts[0] == "" {
		t.Errorf("AfterAgent prompts %q", prompts)
	}
}

func TestRealEventsClaudeStayClaude(t *testing.T) {
	for _, b := range realEvents(t, "claude-code-2.1.332.jsonl") {
		ev := decodeAs(t, b)
		if ev.Host != HostClaude {
			t.Errorf("%s: host %v, want claude", ev.Name, ev.Host)
		}
	}
}

// TestHostAnswers: each host gets exactly its own answer shape (Codex
// voids an answer with an unknown field; Gemini ignores
// permissionDecision).
func TestHostAnswers(t *testing.T) {
	deny := func(guard.Request) guard.Decision { return guard.Decision{Deny: true, Reason: "R"} }
	tests := []struct{ name, event, want string }{
		{"codex apply_patch", `{"session_id":"s","turn_id":"t","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"}}`,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}`},
		{"gemini write_file", `{"session_id":"s","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"x","tool_name":"write_file","tool_input":{"file_path":"a","content":"x"}}`,
			`{"decision":"deny","reason":"R"}`},
		{"gemini shell, unreadable", `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm .matrixx/tasks/T-1.json"`,
			``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := run(t, Dispatch, deny, strings.NewReader(tt.event))
			if tt.want == "" {
				var m map[string]any
				if json.Unmarshal([]byte(out), &m) != nil || m["decision"] != "deny" || len(m) != 2 {
					t.Errorf("answer %q, want a Gemini deny", out)
				}
				return
			}
			if strings.TrimSpace(out) != tt.want {
				t.Errorf("answer %q, want %q", out, tt.want)
			}
		})
	}
}

// TestHostFlag: --host overrides what the event looks like.
func TestHostFlag(t *testing.T) {
	deny := func(guard.Request) guard.Decision { return guard.Decision{Deny: true, Reason: "R"} }
	dir := t.TempDir()
	var out bytes.Buffer
	r := &Runner{Env: testEnv(dir), Stdout: &out, Stderr: &bytes.Buffer{}, Check: deny, Host: HostGemini}
	r.Run(Dispatch, strings.NewReader(`{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"a"}}`))
	if strings.TrimSpace(out.String()) != `{"decision":"deny","reason":"R"}` {
		t.Errorf("answer %q", out.String())
	}
}

func TestGeminiStamp(t *testing.T) {
	allow := func(guard.Request) guard.Decision { return guard.Decision{} }
	ev := `{"session_id":"ses 1","cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"task-create < t.json","dir_path":"sub"}}`
	out, _ := run(t, Dispatch, allow, strings.NewReader(ev))
	want := `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"export MATRIXX_SESSION_ID='ses 1'; task-create < t.json"}}}`
	if strings.TrimSpace(out) != want {
		t.Errorf("answer %q\nwant   %q", out, want)
	}
	for _, cmd := range []string{"ls", "MATRIXX_SESSION_ID=x task-create < t.json", "task-create --session x < t.json", "echo task-create"} {
		ev := `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":` + quote(cmd) + `}}`
		if out, _ := run(t, Dispatch, allow, strings.NewReader(ev)); out != "" {
			t.Errorf("%q: answer %q, want none", cmd, out)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestPatchPaths(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: src/a.go\n*** Move to: .matrixx/tasks/T-1.json\n@@\n-a\n+b\n  *** Delete File:  old.txt  \n*** End Patch\n"
	got, cut := patchPaths(patch)
	want := []string{"new.txt", "src/a.go", ".matrixx/tasks/T-1.json", "old.txt"}
	if !reflect.DeepEqual(got, want) || cut {
		t.Errorf("paths %q cut %v", got, cut)
	}
	if _, cut := patchPaths("*** Begin Patch\n*** Add File: a\n+" + "\x00"); !cut {
		t.Error("a cut patch is not reported cut")
	}
	// A Bash command running apply_patch through the shell has its files judged too.
	ev := &Event{Name: PreToolUse, Tool: "Bash", Input: ToolInput{Command: "apply_patch <<'EOF'\n" + patch + "EOF\n"}}
	normalise(ev, HostCodex)
	if !reflect.DeepEqual(ev.Input.Paths["file_path"], want) || ev.Input.Command == "" {
		t.Errorf("Bash apply_patch: %+v", ev.Input)
	}
}

func TestParseHost(t *testing.T) {
	for in, want := range map[string]Host{"": HostAuto, "codex": HostCodex, "Gemini": HostGemini, "claude": HostClaude} {
		if h, err := ParseHost(in); err != nil || h != want {
			t.Errorf("%q: %v %v", in, h, err)
		}
	}
	if _, err := ParseHost("cursor"); err == nil {
		t.Error("an unknown host is accepted")
	}
}

func TestIsOursHostFlag(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/bin/matrixx-hook --host codex": true, "matrixx-hook --host=gemini": true, "matrixx-hook": true,
		"matrixx-hook --host cursor": false, "matrixx-hook --host": false, "matrixx-hook guard": false,
		"matrixx-hook --host codex extra": false,
	} {
		if IsOurs(cmd) != want {
			t.Errorf("IsOurs(%q) = %v", cmd, !want)
		}
	}
}

// TestNotepadSubcommandGemini: `matrixx-hook notepad` reads a Gemini
// AfterTool as a PostToolUse too.
func TestNotepadSubcommandGemini(t *testing.T) {
	ev := `{"session_id":"s","cwd":"/p","hook_event_name":"AfterTool","timestamp":"x","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"a","returnDisplay":"a"}}`
	_, log := run(t, Notepad, nil, strings.NewReader(ev), "MATRIXX_DEBUG", "1")
	if strings.Contains(log, "not a PostToolUse event") || !strings.Contains(log, "not a task-create/task-update call") {
		t.Errorf("log:\n%s", log)
	}
}
