// Package codex proves matrixx-hook through the real Codex CLI
// (@openai/codex, installed in .cache/hosts by .ci/install-hosts.sh): one
// `codex exec` session against a scripted Responses API server on
// 127.0.0.1, with the hooks written by `matrixx-hook install --host
// codex`. The scenarios: session start (the task summary reaches the
// model), guard denials through the shell and apply_patch (files
// unchanged, our reason reaching the model), the allowed path, the notepad
// written after task-create, the threadID taken from CODEX_SESSION_ID,
// and the continuation enforcer blocking the stop until its cap.
package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/t/hostkit"
)

var bin string

func TestMain(m *testing.M) {
	hostkit.Main(m, "matrixx-codex-bin-", &bin)
}

// project is one test's project, home and environment, with a task from
// an earlier session and the hooks installed by matrixx-hook install.
type project struct {
	codex, proj, home, codexHome string
	env                          []string
	earlier, taskFile            string
	before                       []byte
}

func setup(t *testing.T) *project {
	p := &project{codex: hostkit.CLI(t, "codex")}
	root := t.TempDir()
	p.proj = filepath.Join(root, "proj")
	p.home = filepath.Join(root, "home")
	p.codexHome = filepath.Join(p.home, ".codex")
	for _, d := range []string{filepath.Join(p.proj, ".matrixx"), p.codexHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := bin + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin"
	p.env = hostkit.Env("HOME="+p.home, "CODEX_HOME="+p.codexHome, "PATH="+path, "OPENCODE_CONFIG_DIR="+filepath.Join(p.home, ".config", "opencode"), "MOCK_KEY=test")

	p.earlier, p.taskFile, p.before = hostkit.EarlierTask(t, bin, p.proj, p.env)
	hostkit.Install(t, bin, p.proj, p.env, "codex", filepath.Join(p.proj, ".codex", "hooks.json"))
	return p
}

// exec runs one codex exec session against a scripted server; it returns
// the model requests and the session id.
func (p *project) exec(t *testing.T, script []hostkit.Reply) ([]string, string) {
	srv := hostkit.Codex(t, script)
	config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"
allow_login_shell = false

[model_providers.mock]
name = "mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "MOCK_KEY"

[features]
plugins = false
apps = false

[analytics]
enabled = false

[projects.%q]
trust_level = "trusted"
`, srv.URL, p.proj)
	if err := os.WriteFile(filepath.Join(p.codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.codex, "exec", "--json", "--skip-git-repo-check",
		"--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "Run the scripted steps.")
	cmd.Dir = p.proj
	cmd.Env = p.env
	cmd.Stdin = nil // /dev/null: codex exec waits on an open stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	reqs := srv.Requests()
	t.Logf("codex exec: %d model requests; stderr:\n%s", len(reqs), hostkit.Tail(stderr.String(), 2000))
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, hostkit.Tail(stdout.String(), 4000))
	}
	return reqs, threadID(t, stdout.String())
}

func TestCodexSession(t *testing.T) {
	t.Parallel()
	p := setup(t)
	proj, env, earlier, taskFile, before := p.proj, p.env, p.earlier, p.taskFile, p.before
	reqs, session := p.exec(t, []hostkit.Reply{
		hostkit.Call("exec_command", map[string]any{"cmd": "echo hacked > .matrixx/tasks/" + earlier + ".json"}),
		{Tool: "apply_patch", Input: "*** Begin Patch\n*** Delete File: .matrixx/tasks/" + earlier + ".json\n*** End Patch\n"},
		hostkit.Call("exec_command", map[string]any{"cmd": "echo allowed > allowed.txt"}),
		{Tool: "apply_patch", Input: "*** Begin Patch\n*** Add File: hello.txt\n+hello from apply_patch\n*** End Patch\n"},
		hostkit.Call("exec_command", map[string]any{"cmd": `printf '%s' '{"subject":"Codex task"}' | task-create`}),
		hostkit.Text("Done."), // Stop: blocked (1)
		hostkit.Text("Done."), // blocked (2)
		hostkit.Text("Done."), // blocked (3)
		hostkit.Text("Done."), // the same task state a fourth time: let through
	})
	_ = env

	t.Run("session start", func(t *testing.T) {
		if len(reqs) == 0 || !strings.Contains(reqs[0], "Earlier work on the parser") {
			t.Errorf("the first model request does not carry the task summary")
		}
	})
	t.Run("guard denies the shell write", func(t *testing.T) {
		wantReason(t, reqs, 1, "call_0", "Task files change only through task-create")
	})
	t.Run("guard denies the apply_patch delete", func(t *testing.T) {
		wantReason(t, reqs, 2, "call_1", "Task files change only through task-create")
	})
	t.Run("task file unchanged", func(t *testing.T) {
		after, err := os.ReadFile(taskFile)
		if err != nil || !bytes.Equal(after, before) {
			t.Errorf("%s changed (err %v):\n%s", taskFile, err, after)
		}
	})
	t.Run("allowed path", func(t *testing.T) {
		for f, want := range map[string]string{"allowed.txt": "allowed\n", "hello.txt": "hello from apply_patch\n"} {
			if b, err := os.ReadFile(filepath.Join(proj, f)); err != nil || string(b) != want {
				t.Errorf("%s: %q, %v; want %q", f, b, err, want)
			}
		}
	})
	var codexTask string
	t.Run("task-create stamps the session", func(t *testing.T) {
		codexTask = hostkit.TaskBySubject(t, filepath.Join(proj, ".matrixx", "tasks"), "Codex task", session)
	})
	t.Run("notepad", func(t *testing.T) {
		found := false
		filepath.WalkDir(filepath.Join(proj, ".matrixx", "notepads"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); codexTask != "" && bytes.Contains(b, []byte(codexTask)) {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("no notepad names %s", codexTask)
		}
	})
	t.Run("continuation blocks three times, then lets the stop through", func(t *testing.T) {
		if len(reqs) != 9 {
			t.Fatalf("%d model requests, want 9 (5 tool steps, 1 stop, 3 blocked stops)", len(reqs))
		}
		for i := 6; i <= 8; i++ {
			if !strings.Contains(reqs[i], "Do not stop yet") || !strings.Contains(reqs[i], "Codex task") {
				t.Errorf("request %d does not carry the continuation directive", i)
			}
		}
	})
}

// TestCodexTurnCap: an agent that makes progress after every blocked stop
// (a new task each time) is still let through after MaxTurnBlocks (8)
// blocks in one turn; Codex CLI has no cap of its own and would loop for
// ever.
func TestCodexTurnCap(t *testing.T) {
	t.Parallel()
	p := setup(t)
	create := func(i int) hostkit.Reply {
		return hostkit.Call("exec_command", map[string]any{"cmd": fmt.Sprintf(`printf '%%s' '{"subject":"Loop %d"}' | task-create`, i)})
	}
	script := []hostkit.Reply{create(0)}
	for i := 1; i <= 8; i++ {
		script = append(script, hostkit.Text("Done."), create(i))
	}
	script = append(script, hostkit.Text("Done."))
	reqs, _ := p.exec(t, script)
	// 1 + 8×2 + 1: the ninth stop is let through. Without the cap the
	// defaults ("Done.", no progress) would draw three more blocks.
	if len(reqs) != len(script) {
		t.Errorf("%d model requests, want %d (8 blocked stops, the ninth let through)", len(reqs), len(script))
	}
}

// TestCodexFirstCallEdit: a hand edit to a task file made by the
// session's very first tool call (a script the guard cannot read, which
// rewrites the file behind a computed path) is put back by the check after
// the call, because the first check compares with what the binaries
// recorded instead of adopting what it finds.
func TestCodexFirstCallEdit(t *testing.T) {
	t.Parallel()
	p := setup(t)
	script := "import glob, os\n" +
		"d = os.path.join('.mat' + 'rixx', 'ta' + 'sks')\n" +
		"for f in glob.glob(os.path.join(d, 'T-*.json')):\n" +
		"    open(f, 'w').write('{\"hacked\": true}\\n')\n"
	if err := os.WriteFile(filepath.Join(p.proj, "tidy.py"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs, _ := p.exec(t, []hostkit.Reply{
		hostkit.Call("exec_command", map[string]any{"cmd": "python3 tidy.py"}),
		hostkit.Text("Done."),
	})
	if len(reqs) < 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	after, err := os.ReadFile(p.taskFile)
	if err != nil || !bytes.Equal(after, p.before) {
		t.Errorf("the first call's edit of %s stayed (err %v):\n%s", p.taskFile, err, after)
	}
	if !strings.Contains(reqs[1], "put back") {
		t.Errorf("the model was not told the edit was put back: %s", hostkit.Tail(reqs[1], 1500))
	}
}

// wantReason checks that request i carries the output of call id with
// the guard's reason.
func wantReason(t *testing.T, reqs []string, i int, id, reason string) {
	t.Helper()
	if i >= len(reqs) {
		t.Fatalf("only %d requests", len(reqs))
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal([]byte(reqs[i]), &body); err != nil {
		t.Fatal(err)
	}
	for _, it := range body.Input {
		if it["call_id"] == id && strings.HasSuffix(fmt.Sprint(it["type"]), "_output") {
			if out := fmt.Sprint(it["output"]); !strings.Contains(out, reason) {
				t.Errorf("the output of %s lacks %q: %s", id, reason, out)
			}
			return
		}
	}
	t.Errorf("request %d has no output for %s", i, id)
}

// threadID is the session id from codex exec --json's thread.started.
func threadID(t *testing.T, out string) string {
	for _, l := range strings.Split(out, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "thread.started" {
			return fmt.Sprint(m["thread_id"])
		}
	}
	t.Fatalf("no thread.started in the output:\n%s", hostkit.Tail(out, 2000))
	return ""
}
