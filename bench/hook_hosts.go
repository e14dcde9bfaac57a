package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
)

// hostEvent builds one host's event (the shapes of
// pkg/hook/testdata/real-events) for the project at root.
func hostEvent(host, root, name, tool string, toolInput map[string]any) []byte {
	ev := map[string]any{
		"session_id": "bench-session", "cwd": root, "hook_event_name": name,
		"tool_name": tool, "tool_input": toolInput,
	}
	switch host {
	case "codex":
		ev["turn_id"] = "bench-turn"
		ev["model"] = "gpt-5.5"
		ev["permission_mode"] = "bypassPermissions"
		ev["transcript_path"] = filepath.Join(root, ".codex", "bench.jsonl")
		ev["tool_use_id"] = "call_bench"
	case "gemini":
		ev["timestamp"] = "2026-12-01T20:18:09.423Z"
		ev["transcript_path"] = filepath.Join(root, "chats", "bench.jsonl")
	default:
		ev["permission_mode"] = "default"
		ev["transcript_path"] = filepath.Join(root, ".claude", "bench.jsonl")
		ev["tool_use_id"] = "toolu_bench"
	}
	data, err := json.Marshal(ev)
	if err != nil {
		panic(err) // static shapes: cannot fail
	}
	return data
}

// hosts measures matrixx-hook per host (Claude Code, Codex CLI with
// --host codex, Gemini CLI with --host gemini) on the same guard
// decisions, against readstdin (bar: median ≤ 2×, as for Claude Code).
func (b *bench) hosts() error {
	root := filepath.Join(b.tmp, "hosts-project")
	ids, err := makeStore(root, storeShape{Tasks: 200, Recent: 5}, 1)
	if err != nil {
		return err
	}
	task := ".matrixx/tasks/" + ids[len(ids)-1] + ".json"
	sed := "sed -i 's/pending/completed/' " + task
	patch := "*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** Delete File: " + task + "\n*** End Patch\n"
	events := []struct {
		name, host string
		data       []byte
	}{
		{"Claude Code PreToolUse Bash (sed -i on a task file: deny)", "", hostEvent("claude", root, "PreToolUse", "Bash", map[string]any{"command": sed})},
		{"Codex PreToolUse Bash (sed -i on a task file: deny)", "codex", hostEvent("codex", root, "PreToolUse", "Bash", map[string]any{"command": sed})},
		{"Codex PreToolUse apply_patch (deletes a task file: deny)", "codex", hostEvent("codex", root, "PreToolUse", "apply_patch", map[string]any{"command": patch})},
		{"Gemini BeforeTool run_shell_command (sed -i on a task file: deny)", "gemini", hostEvent("gemini", root, "BeforeTool", "run_shell_command", map[string]any{"command": sed, "description": "x"})},
		{"Gemini BeforeTool write_file (a source file: allow)", "gemini", hostEvent("gemini", root, "BeforeTool", "write_file", map[string]any{"file_path": "src/main.go", "content": "package main\n"})},
		{"Gemini BeforeTool run_shell_command (task-create: session stamped)", "gemini", hostEvent("gemini", root, "BeforeTool", "run_shell_command", map[string]any{"command": "task-create < t.json", "description": "x"})},
	}
	var rows [][]string
	for _, ev := range events {
		argv := []string{b.exe("matrixx-hook")}
		if ev.host != "" {
			argv = append(argv, "--host", ev.host)
		}
		base := &command{Argv: []string{b.exe("readstdin")}, Dir: root, Stdin: ev.data}
		hook := &command{Argv: argv, Dir: root, Env: []string{"MATRIXX_PROJECT_DIR=" + root}, Stdin: ev.data, Exits: []int{0}}
		sh, sb, err := b.r.alternate(b.runs, 3, hook, base)
		if err != nil {
			return err
		}
		q := ratio(sh.median(), sb.median())
		rows = append(rows, []string{ev.name, ms(sh.median()), ms(sb.median()), fmt.Sprintf("%.2f×", q), "≤ 2×", verdict(q <= 2),
			ms(sh.quantile(0)) + " / " + ms(sb.quantile(0)), ms(sh.cpu()) + " / " + ms(sb.cpu())})
	}
	if _, err := os.Stat(b.exe("matrixx-hook")); err != nil {
		return err
	}
	b.table("Hook latency per host: matrixx-hook (--host as install writes it) vs readstdin",
		[]string{"event", "matrixx-hook median", "readstdin median", "ratio", "bar", "", "min (hook / readstdin)", "CPU median (hook / readstdin)"}, rows)
	return nil
}
