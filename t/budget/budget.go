// Package budget measures what the toolkit puts into an agent's context,
// through the built binaries, against the bounds the code holds: the
// SessionStart text (enforce.MaxSummaryBytes, whatever the store's size),
// every Stop and SubagentStop reason (enforce.MaxReasonBytes, however many
// tasks are open), every deny reason (guard.MaxReasonBytes, with long
// paths) and the MCP tool list (mcpserver.MaxToolsBytes, and
// mcpserver.MaxCoreBytes for the core tier). Tokens are estimated as
// bytes / 4, rounded up (docs/hooks.md). Its test (budget_test.go) fails
// when a figure passes its bound; make bench prints the figures (the
// budget section).
package budget

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/enforce"
	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
	"github.com/matrixx-dev/matrixx-tasks/pkg/mcpserver"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Figure is one measured text: the largest of its cases.
type Figure struct {
	Name  string
	Bound int // bytes
	Bytes int // the largest case
	Case  string
}

// Tokens is the stated estimate: bytes / 4, rounded up.
func Tokens(bytes int) int { return (bytes + 3) / 4 }

// Options say where the binaries are, where to work, and the store sizes
// SessionStart and Stop are measured at.
type Options struct {
	Bin   string
	Dir   string
	Sizes []int
}

// Session is the session id the generated stores' tasks belong to.
const Session = "ses_budget_0001"

// Measure runs every case and returns one figure per text.
func Measure(o Options) ([]Figure, error) {
	home := filepath.Join(o.Dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	env := []string{"HOME=" + home, "PATH=" + o.Bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"OPENCODE_CONFIG_DIR=" + filepath.Join(home, ".config", "opencode")}
	m := &measurer{o: o, env: env}
	start := Figure{Name: "SessionStart text", Bound: enforce.MaxSummaryBytes}
	stop := Figure{Name: "Stop / SubagentStop reason", Bound: enforce.MaxReasonBytes}
	// An empty store: the onboarding lines.
	empty := filepath.Join(o.Dir, "empty")
	if err := os.MkdirAll(filepath.Join(empty, ".matrixx"), 0o755); err != nil {
		return nil, err
	}
	if err := m.sessionStart(&start, empty, "empty store (onboarding)", Session); err != nil {
		return nil, err
	}
	for _, n := range o.Sizes {
		root := filepath.Join(o.Dir, fmt.Sprintf("store-%d", n))
		if err := generate(root, n); err != nil {
			return nil, err
		}
		for _, s := range []struct{ id, what string }{{Session, "the session's own"}, {"ses_other", "another session's"}} {
			if err := m.sessionStart(&start, root, fmt.Sprintf("%d tasks, %s", n, s.what), s.id); err != nil {
				return nil, err
			}
		}
		if err := m.stop(&stop, root, fmt.Sprintf("Stop, %d open tasks", n), map[string]any{"hook_event_name": "Stop"}); err != nil {
			return nil, err
		}
		if err := m.stop(&stop, root, fmt.Sprintf("SubagentStop, %d open tasks", n), map[string]any{"hook_event_name": "SubagentStop", "agent_id": "worker", "agent_type": "worker"}); err != nil {
			return nil, err
		}
	}
	deny := Figure{Name: "deny reason", Bound: guard.MaxReasonBytes}
	if err := m.denies(&deny); err != nil {
		return nil, err
	}
	all := Figure{Name: "MCP tool list (all)", Bound: mcpserver.MaxToolsBytes}
	core := Figure{Name: "MCP tool list (core tier)", Bound: mcpserver.MaxCoreBytes}
	if err := m.tools(&all, "all"); err != nil {
		return nil, err
	}
	if err := m.tools(&core, "core"); err != nil {
		return nil, err
	}
	return []Figure{start, stop, deny, all, core}, nil
}

type measurer struct {
	o   Options
	env []string
}

// run runs a binary in dir with stdin and returns its stdout.
func (m *measurer) run(dir, stdin string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(m.o.Bin, name), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, m.env, strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %v: %v\n%s%s", name, args, err, out.String(), errb.String())
	}
	return out.Bytes(), nil
}

func (f *Figure) keep(n int, what string) {
	if n > f.Bytes {
		f.Bytes, f.Case = n, what
	}
}

// hook sends one event to matrixx-hook and decodes its answer.
func (m *measurer) hook(root string, ev map[string]any, host ...string) (map[string]any, error) {
	ev["cwd"] = root
	if _, ok := ev["session_id"]; !ok {
		ev["session_id"] = Session
	}
	b, _ := json.Marshal(ev)
	args := []string{}
	if len(host) > 0 {
		args = append(args, "--host", host[0])
	}
	out, err := m.run(root, string(b), "matrixx-hook", args...)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	var a map[string]any
	if err := json.Unmarshal(out, &a); err != nil {
		return nil, fmt.Errorf("matrixx-hook answered %q: %v", out, err)
	}
	return a, nil
}

func (m *measurer) sessionStart(f *Figure, root, what, session string) error {
	a, err := m.hook(root, map[string]any{"hook_event_name": "SessionStart", "source": "startup", "session_id": session})
	if err != nil {
		return err
	}
	o, _ := a["hookSpecificOutput"].(map[string]any)
	text, _ := o["additionalContext"].(string)
	if text == "" {
		return fmt.Errorf("SessionStart (%s) answered no text: %v", what, a)
	}
	f.keep(len(text), what)
	return nil
}

func (m *measurer) stop(f *Figure, root, what string, ev map[string]any) error {
	// A fresh count: the same task state is blocked only a few times.
	_ = os.RemoveAll(filepath.Join(root, ".matrixx", "state", "continuation"))
	a, err := m.hook(root, ev)
	if err != nil {
		return err
	}
	reason, _ := a["reason"].(string)
	if reason == "" {
		return fmt.Errorf("%s was not blocked: %v", what, a)
	}
	f.keep(len(reason), what)
	return nil
}

// denies runs tool calls the guard refuses, in a project whose path is
// long (about 180 bytes), with long file names, and keeps the longest
// reason.
func (m *measurer) denies(f *Figure) error {
	root := filepath.Join(m.o.Dir, "home", "alexandra-konstantinopoulou", "src", "github.com", "example-organisation", "a-rather-long-repository-name-for-the-budget")
	if err := os.MkdirAll(filepath.Join(root, ".matrixx", "plans"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		return err
	}
	out, err := m.run(root, `{"subject":"A task to overwrite"}`, "task-create")
	if err != nil {
		return err
	}
	var ans struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if err := json.Unmarshal(out, &ans); err != nil || len(ans.Tasks) != 1 {
		return fmt.Errorf("task-create: %v %s", err, out)
	}
	file := filepath.Join(root, ".matrixx", "tasks", ans.Tasks[0].ID+".json")
	plan := filepath.Join(root, ".matrixx", "plans", "release-2-0-and-the-migration-of-the-storage-layer.md")
	backup := filepath.Join(m.o.Dir, "home", "alexandra-konstantinopoulou", "backups", "2026-12-01", "a-rather-long-repository-name-for-the-budget")
	if err := os.MkdirAll(filepath.Join(backup, ".matrixx", "tasks"), 0o755); err != nil {
		return err
	}
	bash := func(cmd string) map[string]any {
		return map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}}
	}
	tool := func(name string, input map[string]any) map[string]any {
		return map[string]any{"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": input}
	}
	cases := []struct {
		what string
		ev   map[string]any
		host string
	}{
		{"Bash: echo > a task file (absolute path)", bash("echo hacked > " + file), ""},
		{"Bash: sed -i on a task file", bash("sed -i s/a/b/ .matrixx/tasks/" + filepath.Base(file)), ""},
		{"Bash: rm -rf .matrixx", bash("rm -rf " + filepath.Join(root, ".matrixx")), ""},
		{"Bash: rm -rf a backup's store", bash("rm -rf " + backup), ""},
		{"Bash: python3 handed a task file", bash("python3 tools/fix_the_task_records_in_place.py " + file), ""},
		{"Bash: git clean -fdx", bash("git clean -fdx"), ""},
		{"Bash: matrixx-hook accept", bash("matrixx-hook accept"), ""},
		{"Bash: a command that does not parse, naming the store", bash("echo x > .matrixx/tasks/T-1.json $(("), ""},
		{"Write of a task file", tool("Write", map[string]any{"file_path": file, "content": "{}"}), ""},
		{"Edit of a plan", tool("Edit", map[string]any{"file_path": plan, "old_string": "a", "new_string": "b"}), ""},
		{"Read of a plan", tool("Read", map[string]any{"file_path": plan}), ""},
		{"Write of the config", tool("Write", map[string]any{"file_path": filepath.Join(root, ".matrixx", "matrixx.jsonc"), "content": "{}"}), ""},
		{"TodoWrite (the host's own task tool)", tool("TodoWrite", map[string]any{"todos": []any{}}), ""},
		{"Codex apply_patch deleting a task file", map[string]any{"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "turn_id": "t1",
			"tool_input": map[string]any{"command": "*** Begin Patch\n*** Delete File: " + file + "\n*** End Patch\n"}}, "codex"},
		{"Gemini write_file of a task file", map[string]any{"hook_event_name": "BeforeTool", "tool_name": "write_file", "timestamp": time.Now().UTC().Format(time.RFC3339),
			"tool_input": map[string]any{"file_path": file, "content": "{}"}}, "gemini"},
	}
	for _, c := range cases {
		var a map[string]any
		var err error
		if c.host != "" {
			a, err = m.hook(root, c.ev, c.host)
		} else {
			a, err = m.hook(root, c.ev)
		}
		if err != nil {
			return err
		}
		reason := ""
		if o, ok := a["hookSpecificOutput"].(map[string]any); ok {
			reason, _ = o["permissionDecisionReason"].(string)
		}
		if r, ok := a["reason"].(string); ok && a["decision"] == "deny" {
			reason = r
		}
		if reason == "" {
			return fmt.Errorf("%s was not denied: %v", c.what, a)
		}
		f.keep(len(reason), c.what)
	}
	return nil
}

// tools runs matrixx-mcp --tools tier over stdio (initialize, tools/list)
// and measures the tools array as sent (compact JSON).
func (m *measurer) tools(f *Figure, tier string) error {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"budget","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}
`
	out, err := m.run(m.o.Dir, in, "matrixx-mcp", "--tools", tier)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, msg.Result.Tools); err != nil {
			return err
		}
		var list []struct{ Name string }
		_ = json.Unmarshal(buf.Bytes(), &list)
		f.keep(buf.Len(), fmt.Sprintf("%d tools", len(list)))
		return nil
	}
	return fmt.Errorf("matrixx-mcp --tools %s: no tools/list answer in %q", tier, out)
}

// generate writes a store of n tasks at root, as large as the texts can
// get: every task in Session's thread, subjects of about 300 bytes, a
// mix of in_progress (owned by "worker"), pending, pending blocked by six
// missing tasks (never startable), by a deleted task, and stale ones.
func generate(root string, n int) error {
	dir := filepath.Join(root, ".matrixx", "tasks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	long := strings.Repeat("Rework the storage layer's migration path so that every record keeps its history ", 4)
	id := func(i int) string { return fmt.Sprintf("T-0199%04x-%04x-7000-8000-%012x", i>>16, i&0xffff, i) }
	deleted := id(n + 1)
	old := time.Now().Add(-72 * time.Hour)
	for i := 0; i <= n; i++ {
		t := &task.Task{ID: id(i), Subject: fmt.Sprintf("%d. %s", i, long), Description: long, Status: task.Pending, ThreadID: Session, ProjectRoot: root}
		if i == n {
			t.ID, t.Status = deleted, task.Deleted
		}
		switch i % 4 {
		case 0:
			t.Status, t.Owner = task.InProgress, "worker"
		case 1:
			for j := range 6 {
				t.BlockedBy = append(t.BlockedBy, id(n+10+i*6+j)) // missing
			}
		case 2:
			t.BlockedBy = []string{deleted}
		}
		data, err := task.Encode(t)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, task.FileName(t.ID))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		if i%3 == 0 {
			if err := os.Chtimes(path, old, old); err != nil {
				return err
			}
		}
	}
	// The integrity check would restore files no binary wrote: these are
	// the budget's fixtures, not an attack.
	return os.WriteFile(filepath.Join(root, ".matrixx", "matrixx.jsonc"), []byte(`{"disabled_hooks":["task-integrity-check"]}`+"\n"), 0o644)
}
