package main

import (
	"fmt"
	"path/filepath"

	"github.com/go-json-experiment/json"
)

// postEvent builds a Claude Code PostToolUse event of a Bash call that
// changed nothing (no PreToolUse marker: the strictest window, every
// unexplained change would count).
func postEvent(root string) []byte {
	ev := map[string]any{
		"session_id":      "bench-session",
		"transcript_path": filepath.Join(root, ".claude", "bench-session.jsonl"),
		"cwd":             root,
		"permission_mode": "default",
		"hook_event_name": "PostToolUse",
		"tool_name":       "Bash",
		"tool_use_id":     "toolu_bench_post",
		"tool_input":      map[string]any{"command": "go test ./...", "description": "Run tests"},
		"tool_response":   map[string]any{"stdout": "ok", "stderr": "", "interrupted": false},
	}
	data, err := json.Marshal(ev)
	if err != nil {
		panic(err) // static shapes: cannot fail
	}
	return data
}

// integrity measures the second line's post-call check with nothing
// changed (docs/integrity.md): matrixx-hook on a PostToolUse event with
// the check on, against the same hook with it off (MATRIXX_INTEGRITY=off:
// the hook's own start-up, reading the event and the notepad writer's
// no-op) and readstdin. Bars: at 1,000 tasks the check (on − off) costs no
// more than the hook's start-up (off); at 10,000 less than one task-list.
func (b *bench) integrity() error {
	var rows [][]string
	for _, n := range []int{1000, 10000} {
		s, err := b.store(n)
		if err != nil {
			return err
		}
		// The ledger of a store generated behind the toolkit's back: the
		// person accepts it once (the first check would adopt it too).
		if _, err := b.r.run(&command{Argv: []string{b.exe("matrixx-hook"), "accept", "-C", s.root}}); err != nil {
			return err
		}
		ev := postEvent(s.root)
		env := []string{"CLAUDE_PROJECT_DIR=" + s.root}
		on := &command{Argv: []string{b.exe("matrixx-hook")}, Dir: s.root, Env: env, Stdin: ev}
		off := &command{Argv: []string{b.exe("matrixx-hook")}, Dir: s.root, Env: append(env, "MATRIXX_INTEGRITY=off"), Stdin: ev}
		base := &command{Argv: []string{b.exe("readstdin")}, Dir: s.root, Stdin: ev}
		// One check run: nothing may be reported on an unchanged store.
		x, err := b.r.run(on)
		if err != nil {
			return err
		}
		if len(x.Stdout) > 0 {
			return fmt.Errorf("the check reported changes on an unchanged store: %s", x.Stdout)
		}
		runs, err := b.r.rotate(b.runs, 3, on, off, base)
		if err != nil {
			return err
		}
		son, soff, sbase := runs[0], runs[1], runs[2]
		cost := son.median() - soff.median()
		bar, met, against := "≤ start-up (off)", verdict(cost <= soff.median()), ms(soff.median())
		if n == 10000 {
			l, err := b.measureList(n)
			if err != nil {
				return err
			}
			bar, met, against = "< one task-list", verdict(cost < l.list.median()), ms(l.list.median())+" (task-list)"
		}
		rows = append(rows, []string{thousands(n), ms(son.median()), ms(soff.median()), ms(sbase.median()), ms(cost), against, bar, met,
			ms(son.cpu()) + " / " + ms(soff.cpu())})
	}
	b.table("Integrity check after a tool call, nothing changed: matrixx-hook PostToolUse with the check on vs off (MATRIXX_INTEGRITY=off) and readstdin",
		[]string{"tasks", "on median", "off median", "readstdin median", "check (on − off)", "baseline", "bar", "", "CPU median (on / off)"}, rows)
	return nil
}
