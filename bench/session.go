package main

import (
	"fmt"
	"path/filepath"

	"github.com/go-json-experiment/json"
)

// session measures a SessionStart (matrixx-hook: the session id into
// $CLAUDE_ENV_FILE, a scan of the store, the summary) at 1,000 tasks
// against task-list over the same store, alternated in one run (bar:
// median ≤ 1.2×). The session is one of the store's threadIDs, so the
// summary lists its own tasks and counts the others'.
func (b *bench) session() error {
	const n = 1000
	s, err := b.store(n)
	if err != nil {
		return err
	}
	ev, err := json.Marshal(map[string]any{
		"session_id":      "ses_0000000000000003",
		"transcript_path": filepath.Join(s.root, ".claude", "session.jsonl"),
		"cwd":             s.root,
		"hook_event_name": "SessionStart",
		"source":          "startup",
	})
	if err != nil {
		return err
	}
	start := &command{
		Argv:  []string{b.exe("matrixx-hook")},
		Dir:   s.root,
		Env:   []string{"CLAUDE_PROJECT_DIR=" + s.root, "CLAUDE_ENV_FILE=" + filepath.Join(b.tmp, "session-env.sh")},
		Stdin: ev,
	}
	// One check run: the answer is a summary, not the onboarding lines.
	x, err := b.r.run(start)
	if err != nil {
		return err
	}
	var ans struct {
		Out struct {
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(x.Stdout, &ans); err != nil || len(ans.Out.Context) < 40 || ans.Out.Context[:13] != "matrixx tasks" {
		return fmt.Errorf("SessionStart over the generated store: %v %q %s", err, x.Stdout, x.Stderr)
	}
	list := &command{Argv: []string{b.exe("task-list"), "-C", s.root}}
	ss, sl, err := b.r.alternate(b.runs, 2, start, list)
	if err != nil {
		return err
	}
	q := ratio(ss.median(), sl.median())
	b.table("Session start: matrixx-hook on a SessionStart vs task-list, over the same store",
		[]string{"tasks", "SessionStart median", "task-list median", "ratio", "bar", "", "min (start / list)", "CPU median (start / list)"},
		[][]string{{thousands(n), ms(ss.median()), ms(sl.median()), fmt.Sprintf("%.2f×", q), "≤ 1.2×", verdict(q <= 1.2),
			ms(ss.quantile(0)) + " / " + ms(sl.quantile(0)), ms(ss.cpu()) + " / " + ms(sl.cpu())}})
	return nil
}
