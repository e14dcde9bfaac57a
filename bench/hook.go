package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
)

// hookEvent builds a Claude Code PreToolUse event (the shape of
// fixtures/claude-code/pre-*.json) for the project at root.
func hookEvent(root, tool string, toolInput map[string]any) []byte {
	ev := map[string]any{
		"session_id":      "bench-session",
		"transcript_path": filepath.Join(root, ".claude", "bench-session.jsonl"),
		"cwd":             root,
		"permission_mode": "default",
		"hook_event_name": "PreToolUse",
		"tool_name":       tool,
		"tool_use_id":     "toolu_bench",
		"tool_input":      toolInput,
	}
	data, err := json.Marshal(ev)
	if err != nil {
		panic(err) // static shapes: cannot fail
	}
	return data
}

// hook measures matrixx-hook on PreToolUse events against readstdin, a Go
// program that only reads stdin (bar: median ≤ 2×).
func (b *bench) hook() error {
	root := filepath.Join(b.tmp, "hook-project")
	ids, err := makeStore(root, storeShape{Tasks: 200, Recent: 5}, 1)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, ".matrixx", "plans"), 0o755); err != nil {
		return err
	}
	source := strings.Repeat("func f() int {\n\treturn 42 // some code\n}\n\n", 100) // ~4 KB
	events := []struct {
		name string
		data []byte
	}{
		{"PreToolUse Bash (sed -i on a task file: deny)", hookEvent(root, "Bash", map[string]any{
			"command":     "sed -i 's/pending/completed/' .matrixx/tasks/" + ids[len(ids)-1] + ".json",
			"description": "Mark task done", "timeout": 120000,
		})},
		{"PreToolUse Bash (go test piped to tee: allow)", hookEvent(root, "Bash", map[string]any{
			"command":     "cd " + root + " && go test ./... 2>&1 | tee /tmp/test.log | tail -n 20",
			"description": "Run tests",
		})},
		{"PreToolUse Write (4 KB source file: allow)", hookEvent(root, "Write", map[string]any{
			"file_path": filepath.Join(root, "src", "main.go"), "content": source,
		})},
		{"PreToolUse Write (a task file: deny)", hookEvent(root, "Write", map[string]any{
			"file_path": filepath.Join(root, ".matrixx", "tasks", ids[0]+".json"), "content": "{}",
		})},
	}
	var rows [][]string
	for _, ev := range events {
		base := &command{Argv: []string{b.exe("readstdin")}, Dir: root, Stdin: ev.data}
		hook := &command{
			Argv:  []string{b.exe("matrixx-hook")},
			Dir:   root,
			Env:   []string{"CLAUDE_PROJECT_DIR=" + root},
			Stdin: ev.data,
			Exits: []int{0, 2}, // 2 is a deliberate block
		}
		sh, sb, err := b.r.alternate(b.runs, 3, hook, base)
		if err != nil {
			return err
		}
		q := ratio(sh.median(), sb.median())
		rows = append(rows, []string{ev.name, ms(sh.median()), ms(sb.median()), fmt.Sprintf("%.2f×", q), "≤ 2×", verdict(q <= 2),
			ms(sh.quantile(0)) + " / " + ms(sb.quantile(0)), ms(sh.cpu()) + " / " + ms(sb.cpu())})
	}
	size := func(name string) string {
		fi, err := os.Stat(b.exe(name))
		if err != nil {
			return "?"
		}
		return fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
	}
	b.table(fmt.Sprintf("Hook latency: matrixx-hook (%s) vs readstdin, a Go program that only reads stdin (%s)", size("matrixx-hook"), size("readstdin")),
		[]string{"event", "matrixx-hook median", "readstdin median", "ratio", "bar", "", "min (hook / readstdin)", "CPU median (hook / readstdin)"}, rows)
	return nil
}
