package hook

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// testEnv is an environment with only the given variables, rooted at dir.
func testEnv(dir string, vars ...string) project.Env {
	m := map[string]string{"CLAUDE_PROJECT_DIR": dir, "OPENCODE_CONFIG_DIR": filepath.Join(dir, "no-user-config")}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return project.Env{
		Getenv: func(k string) string { return m[k] },
		Getwd:  func() (string, error) { return dir, nil },
		Home:   func() (string, error) { return dir, nil },
	}
}

// run runs one event through a Runner and returns stdout and stderr.
func run(t testing.TB, mode Mode, check func(guard.Request) guard.Decision, in io.Reader, vars ...string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	r := &Runner{Env: testEnv(dir, vars...), Stdout: &out, Stderr: &errb, Check: check}
	if status := r.Run(mode, in); status != 0 {
		t.Fatalf("exit status %d", status)
	}
	return out.String(), errb.String()
}

func TestGuardWiring(t *testing.T) {
	var seen guard.Request
	denyAll := func(req guard.Request) guard.Decision {
		seen = req
		return guard.Decision{Deny: true, Reason: "no: use plan update", Rule: "test"}
	}
	out, _ := run(t, Dispatch, denyAll, bytes.NewReader(fixture(t, "pre-write.json")))
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no: use plan update"}}` + "\n"
	if out != want {
		t.Errorf("answer %q, want %q", out, want)
	}
	if seen.Tool != "Write" || seen.Cwd != "/home/dev/proj" || seen.Command != "" ||
		fmt.Sprint(seen.Paths) != "map[file_path:[/home/dev/proj/.matrixx/plans/auth-refresh.md]]" || len(seen.Extra) != 0 {
		t.Errorf("request %+v", seen)
	}

	allow := func(req guard.Request) guard.Decision { seen = req; return guard.Decision{} }
	out, _ = run(t, Dispatch, allow, bytes.NewReader(fixture(t, "pre-bash.json")))
	if out != "" || !strings.HasPrefix(seen.Command, "sed -i") {
		t.Errorf("answer %q, request %+v", out, seen)
	}

	// a tool without command or path is not even asked
	called := false
	out, _ = run(t, Dispatch, func(guard.Request) guard.Decision { called = true; return guard.Decision{Deny: true} },
		strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{"query":"x"}}`))
	if out != "" || called {
		t.Errorf("answer %q, guard called %v", out, called)
	}
}

// TestGuardPanics: a panic in the guard fails closed only when the event
// targets a guarded path.
func TestGuardPanics(t *testing.T) {
	boom := func(guard.Request) guard.Decision { panic("boom") }
	out, _ := run(t, Dispatch, boom, bytes.NewReader(fixture(t, "pre-multiedit.json")))
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "internal error: boom") {
		t.Errorf("guarded target: answer %q", out)
	}
	out, stderr := run(t, Dispatch, boom, bytes.NewReader(fixture(t, "pre-edit.json")), "MATRIXX_DEBUG", "1")
	if out != "" || !strings.Contains(stderr, "failed open") {
		t.Errorf("harmless target: answer %q, log %q", out, stderr)
	}
	// Read of .matrixx/tasks is no guarded target; Read of .matrixx/plans is
	out, _ = run(t, Dispatch, boom, strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/p/.matrixx/tasks/T-1.json"}}`))
	if out != "" {
		t.Errorf("read of tasks: answer %q", out)
	}
	out, _ = run(t, Dispatch, boom, bytes.NewReader(fixture(t, "pre-read.json")))
	if !strings.Contains(out, "deny") {
		t.Errorf("read of plans: answer %q", out)
	}
}

// TestOversizedCommand: a command cut at MaxString is still checked, and
// refused even when the guard allows its visible part: what follows the
// cut runs unseen, whatever it mentions (.matrixx/ta”sks).
func TestOversizedCommand(t *testing.T) {
	long := strings.Repeat("echo hi; ", MaxString/9+10)
	ev := fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/p","tool_input":{"command":"%s rm .matrixx/tasks/T-1.json"}}`, long)
	var seen guard.Request
	out, _ := run(t, Dispatch, func(r guard.Request) guard.Decision { seen = r; return guard.Decision{} }, strings.NewReader(ev))
	if !strings.Contains(out, "too large to analyse") {
		t.Errorf("answer %q", out)
	}
	if len(seen.Command) != MaxString || strings.Contains(seen.Command, "\x00") {
		t.Errorf("command given to the guard: %d bytes", len(seen.Command))
	}
	ev = fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/p","tool_input":{"command":"%s cd .matrixx/ta''sks && rm -f T-1.json"}}`, long)
	out, _ = run(t, Dispatch, func(guard.Request) guard.Decision { return guard.Decision{} }, strings.NewReader(ev))
	if !strings.Contains(out, "too large to analyse") {
		t.Errorf("obfuscated store path after the cut: answer %q", out)
	}
	ev = fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"/p","tool_input":{"command":"%s"}}`, strings.Repeat("echo hi; ", 1000))
	out, _ = run(t, Dispatch, func(guard.Request) guard.Decision { return guard.Decision{} }, strings.NewReader(ev))
	if out != "" {
		t.Errorf("a command under the cut: answer %q", out)
	}
}

// bigEvent streams a PreToolUse Write event whose content is n bytes, with
// file_path after the content.
func bigEvent(n int, path string) io.Reader {
	head := `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"`
	tail := `","file_path":"` + path + `"}}`
	body := io.LimitReader(repeat(`abc\"def\\ghi é ✓ \n `), int64(n))
	return io.MultiReader(strings.NewReader(head), body, strings.NewReader(tail))
}

// repeat is an endless reader of s (s has no partial escape at its end).
func repeat(s string) io.Reader {
	return &repeater{s: s}
}

type repeater struct {
	s string
	i int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.i:])
		n += c
		r.i = (r.i + c) % len(r.s)
	}
	return n, nil
}

// TestBigWriteBoundedMemory decides a 20 MiB and a 100 MiB Write event and
// checks that the allocations do not grow with the event: the content is
// streamed past, never held.
func TestBigWriteBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 120 MiB")
	}
	measure := func(n int) (uint64, string) {
		var seen guard.Request
		check := func(r guard.Request) guard.Decision {
			seen = r
			return guard.Decision{Deny: strings.Contains(r.Paths["file_path"][0], ".matrixx/plans"), Reason: "plans"}
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		out, _ := run(t, Dispatch, check, bigEvent(n, "/p/.matrixx/plans/a.md"))
		runtime.ReadMemStats(&after)
		if fmt.Sprint(seen.Paths) != "map[file_path:[/p/.matrixx/plans/a.md]]" {
			t.Errorf("paths %v", seen.Paths)
		}
		return after.TotalAlloc - before.TotalAlloc, out
	}
	small, out := measure(20 << 20)
	if !strings.Contains(out, `"deny"`) {
		t.Fatalf("20 MiB: answer %q", out)
	}
	large, _ := measure(100 << 20)
	t.Logf("allocated: %d KiB for 20 MiB, %d KiB for 100 MiB", small>>10, large>>10)
	const bound = 6 * MaxString
	if small > bound || large > bound {
		t.Errorf("allocated %d and %d bytes, want both under %d", small, large, bound)
	}
}

func TestStopNeverBlocksOnError(t *testing.T) {
	dir := t.TempDir()
	// the task directory is a file: the scan fails, the stop is allowed
	// (the integrity check, which would move the file aside, is off here)
	if err := os.MkdirAll(filepath.Join(dir, ".matrixx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".matrixx", "tasks"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	r := &Runner{Env: testEnv(dir, "MATRIXX_DEBUG", "1", "MATRIXX_INTEGRITY", "off"), Stdout: &out, Stderr: &errb}
	r.Run(Dispatch, bytes.NewReader(fixture(t, "stop.json")))
	if out.Len() != 0 || !strings.Contains(errb.String(), "allow") {
		t.Errorf("answer %q, log %q", out.String(), errb.String())
	}
}

func TestRouteSubcommands(t *testing.T) {
	deny := func(guard.Request) guard.Decision { return guard.Decision{Deny: true, Reason: "x"} }
	for _, tt := range []struct {
		mode    Mode
		fixture string
		answer  bool
	}{
		{Guard, "pre-write.json", true},
		{Guard, "stop.json", false},
		{Continue, "pre-write.json", false},
		{Start, "pre-write.json", false},
		{Dispatch, "post-failure-bash.json", false},
	} {
		out, _ := run(t, tt.mode, deny, bytes.NewReader(fixture(t, tt.fixture)))
		if (out != "") != tt.answer {
			t.Errorf("mode %d, %s: answer %q", tt.mode, tt.fixture, out)
		}
	}
}

// BenchmarkDispatchPreToolUseBash is the in-process cost of one PreToolUse
// Bash event through the dispatcher (decode, project and config lookup,
// guard), without process start-up.
func BenchmarkDispatchPreToolUseBash(b *testing.B) {
	ev := fixture(b, "pre-bash.json")
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".matrixx"), 0o755); err != nil {
		b.Fatal(err)
	}
	ev = bytes.ReplaceAll(ev, []byte("/home/dev/proj"), []byte(dir))
	env := testEnv(dir)
	b.ReportAllocs()
	for b.Loop() {
		var out bytes.Buffer
		r := &Runner{Env: env, Stdout: &out, Stderr: io.Discard}
		r.Run(Dispatch, bytes.NewReader(ev))
	}
}
