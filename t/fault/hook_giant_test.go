//go:build linux

package fault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/enforce"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestHookGiantTask: one task of this session with 60,000 blockers (none of
// them in the store) beside an in_progress one. The Stop hook blocks with a
// reason of at most enforce.MaxReasonBytes naming a few blockers and a
// count, SessionStart's summary is as small, and each ends in well under
// the seconds they took when every blocker was named (a hang guard, not a
// timing: `make bench` has the figures).
func TestHookGiantTask(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	if err := os.MkdirAll(p.dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	const session = "giant-session"
	blockers := make([]string, 60000)
	for i := range blockers {
		blockers[i] = fmt.Sprintf("T-%08x-0000-7000-8000-%012x", i, i)
	}
	write := func(t0 *task.Task) {
		data, err := task.Encode(t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.dir(), task.FileName(t0.ID)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(&task.Task{ID: "T-00000000-0000-7000-8000-aaaaaaaaaaaa", Subject: "Giant", Status: task.Pending,
		BlockedBy: blockers, ThreadID: session, ProjectRoot: p.root})
	write(&task.Task{ID: "T-00000000-0000-7000-8000-bbbbbbbbbbbb", Subject: "Working", Status: task.InProgress,
		ThreadID: session, ProjectRoot: p.root})
	env := []string{"CLAUDE_PROJECT_DIR=" + p.root}
	for _, c := range []struct {
		event string
		field func(map[string]any) string
	}{
		{"Stop", func(m map[string]any) string { s, _ := m["reason"].(string); return s }},
		{"SessionStart", func(m map[string]any) string {
			h, _ := m["hookSpecificOutput"].(map[string]any)
			s, _ := h["additionalContext"].(string)
			return s
		}},
	} {
		ev := fmt.Sprintf(`{"hook_event_name":%q,"session_id":%q,"cwd":%q,"source":"startup","stop_hook_active":false}`, c.event, session, p.root)
		start := time.Now()
		r := p.call("matrixx-hook", ev, env)
		took := time.Since(start)
		if r.code != 0 {
			t.Fatalf("%s: %s", c.event, r)
		}
		var ans map[string]any
		if err := json.Unmarshal(r.stdout, &ans); err != nil {
			t.Fatalf("%s answer: %v %s", c.event, err, r.stdout)
		}
		text := c.field(ans)
		if text == "" {
			t.Fatalf("%s: no text in %s", c.event, r.stdout)
		}
		if len(r.stdout) > enforce.MaxReasonBytes+4096 || len(text) > enforce.MaxReasonBytes {
			t.Errorf("%s said %d bytes (answer %d), over the %d-byte cap", c.event, len(text), len(r.stdout), enforce.MaxReasonBytes)
		}
		if c.event == "Stop" && !strings.Contains(text, "and 59995 more") {
			t.Errorf("Stop reason does not count the blockers it leaves out: %.2000s", text)
		}
		if took > 5*time.Second {
			t.Errorf("%s took %v", c.event, took)
		}
		t.Logf("%s: %d bytes in %v", c.event, len(text), took.Round(time.Millisecond))
	}
}
