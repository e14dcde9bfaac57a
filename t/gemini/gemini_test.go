// Package gemini proves matrixx-hook through the real Gemini CLI
// (@google/gemini-cli, installed in .cache/hosts by .ci/install-hosts.sh):
// one `gemini -p` session against a scripted Gemini API server on
// 127.0.0.1, with the hooks written by `matrixx-hook install --host
// gemini`. The scenarios: session start (the task summary reaches the
// model), guard denials through run_shell_command and write_file with a
// relative file_path (files unchanged, our reason reaching the model), the
// allowed path, the session stamped on task-create (Gemini's shell has no
// session variable), the notepad, and the continuation enforcer on
// AfterAgent blocking until its cap.
package gemini

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
	hostkit.Main(m, "matrixx-gemini-bin-", &bin)
}

// project is one test's project, home and environment, with a task from
// an earlier session and the hooks installed by matrixx-hook install.
type project struct {
	gemini, proj, home string
	env                []string
	earlier, taskFile  string
	before             []byte
}

func setup(t *testing.T) *project {
	p := &project{gemini: hostkit.CLI(t, "gemini")}
	root := t.TempDir()
	p.proj = filepath.Join(root, "proj")
	p.home = filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(p.proj, ".matrixx"), filepath.Join(p.home, ".gemini")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	p.env = hostkit.Env("HOME="+p.home, "PATH="+path, "OPENCODE_CONFIG_DIR="+filepath.Join(p.home, ".config", "opencode"))
	p.earlier, p.taskFile, p.before = hostkit.EarlierTask(t, bin, p.proj, p.env)
	user := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}`
	if err := os.WriteFile(filepath.Join(p.home, ".gemini", "settings.json"), []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	hostkit.Install(t, bin, p.proj, p.env, "gemini", filepath.Join(p.proj, ".gemini", "settings.json"))
	return p
}

// exec runs one gemini -p session against a scripted server; it returns
// the model requests and the session id.
func (p *project) exec(t *testing.T, script []hostkit.Reply) ([]string, string) {
	srv := hostkit.Gemini(t, script)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.gemini, "-p", "Run the scripted steps.", "-m", "gemini-2.5-flash", "--yolo", "-o", "stream-json")
	cmd.Dir = p.proj
	cmd.Env = append(p.env, "GEMINI_API_KEY=test", "GOOGLE_GEMINI_BASE_URL="+srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	reqs := srv.Requests()
	t.Logf("gemini: %d model requests; stderr:\n%s", len(reqs), hostkit.Tail(stderr.String(), 3000))
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, hostkit.Tail(stdout.String(), 4000))
	}
	return reqs, sessionID(t, stdout.String())
}

func TestGeminiSession(t *testing.T) {
	t.Parallel()
	p := setup(t)
	proj, earlier, taskFile, before := p.proj, p.earlier, p.taskFile, p.before
	reqs, session := p.exec(t, []hostkit.Reply{
		hostkit.Call("run_shell_command", map[string]any{"command": "echo hacked > .matrixx/tasks/" + earlier + ".json", "description": "scripted"}),
		hostkit.Call("write_file", map[string]any{"file_path": ".matrixx/tasks/" + earlier + ".json", "content": "{}\n"}),
		hostkit.Call("run_shell_command", map[string]any{"command": "echo allowed > allowed.txt", "description": "scripted"}),
		hostkit.Call("write_file", map[string]any{"file_path": "hello.txt", "content": "hello from write_file\n"}),
		hostkit.Call("run_shell_command", map[string]any{"command": `printf '%s' '{"subject":"Gemini task"}' | task-create`, "description": "scripted"}),
		hostkit.Text("Done."), // AfterAgent: blocked (1), sent back as a user turn
		hostkit.Text("Done."), // blocked (2)
		hostkit.Text("Done."), // blocked (3)
		hostkit.Text("Done."), // the same task state a fourth time: let through
	})

	t.Run("session start", func(t *testing.T) {
		if len(reqs) == 0 || !strings.Contains(reqs[0], "Earlier work on the parser") {
			t.Errorf("the first model request does not carry the task summary")
		}
	})
	t.Run("guard denies the shell write", func(t *testing.T) {
		wantReason(t, reqs, 1, "run_shell_command", "Task files change only through task-create")
	})
	t.Run("guard denies write_file with a relative path", func(t *testing.T) {
		wantReason(t, reqs, 2, "write_file", "Task files change only through task-create")
	})
	t.Run("task file unchanged", func(t *testing.T) {
		after, err := os.ReadFile(taskFile)
		if err != nil || !bytes.Equal(after, before) {
			t.Errorf("%s changed (err %v):\n%s", taskFile, err, after)
		}
	})
	t.Run("allowed path", func(t *testing.T) {
		for f, want := range map[string]string{"allowed.txt": "allowed\n", "hello.txt": "hello from write_file\n"} {
			if b, err := os.ReadFile(filepath.Join(proj, f)); err != nil || string(b) != want {
				t.Errorf("%s: %q, %v; want %q", f, b, err, want)
			}
		}
	})
	var task string
	t.Run("task-create stamps the session", func(t *testing.T) {
		task = hostkit.TaskBySubject(t, filepath.Join(proj, ".matrixx", "tasks"), "Gemini task", session)
	})
	t.Run("notepad", func(t *testing.T) {
		found := false
		filepath.WalkDir(filepath.Join(proj, ".matrixx", "notepads"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); task != "" && bytes.Contains(b, []byte(task)) {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("no notepad names %s", task)
		}
	})
	t.Run("continuation blocks three times, then lets the stop through", func(t *testing.T) {
		if len(reqs) != 9 {
			t.Fatalf("%d model requests, want 9 (5 tool steps, 1 stop, 3 blocked stops)", len(reqs))
		}
		for i := 6; i <= 8; i++ {
			if !strings.Contains(last(reqs[i]), "Do not stop yet") || !strings.Contains(last(reqs[i]), "Gemini task") {
				t.Errorf("request %d does not end with the continuation directive", i)
			}
		}
	})
}

// TestGeminiTurnCap: an agent that makes progress after every blocked
// AfterAgent (a new task each time) is still let through after
// MaxTurnBlocks (8) blocks of one prompt; Gemini CLI resets
// stop_hook_active after a tool call and would loop for ever.
func TestGeminiTurnCap(t *testing.T) {
	t.Parallel()
	p := setup(t)
	create := func(i int) hostkit.Reply {
		return hostkit.Call("run_shell_command", map[string]any{"command": fmt.Sprintf(`printf '%%s' '{"subject":"Loop %d"}' | task-create`, i), "description": "scripted"})
	}
	script := []hostkit.Reply{create(0)}
	for i := 1; i <= 8; i++ {
		script = append(script, hostkit.Text("Done."), create(i))
	}
	script = append(script, hostkit.Text("Done."))
	reqs, _ := p.exec(t, script)
	if len(reqs) != len(script) {
		t.Errorf("%d model requests, want %d (8 blocked stops, the ninth let through)", len(reqs), len(script))
	}
}

// last is the text of the last content of a generateContent request.
func last(req string) string {
	var body struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if json.Unmarshal([]byte(req), &body) != nil || len(body.Contents) == 0 {
		return ""
	}
	return string(body.Contents[len(body.Contents)-1])
}

// wantReason checks that request i ends with the functionResponse of the
// tool carrying the guard's reason.
func wantReason(t *testing.T, reqs []string, i int, tool, reason string) {
	t.Helper()
	if i >= len(reqs) {
		t.Fatalf("only %d requests", len(reqs))
	}
	l := last(reqs[i])
	if !strings.Contains(l, `"functionResponse"`) || !strings.Contains(l, `"`+tool+`"`) || !strings.Contains(l, reason) {
		t.Errorf("request %d does not end with %s's response carrying %q: %s", i, tool, reason, hostkit.Tail(l, 1500))
	}
}

// sessionID is the session id from the stream-json init event.
func sessionID(t *testing.T, out string) string {
	for _, l := range strings.Split(out, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "init" {
			return fmt.Sprint(m["session_id"])
		}
	}
	t.Fatalf("no init event in the output:\n%s", hostkit.Tail(out, 2000))
	return ""
}

// TestGeminiPathLease: a path lease holds against a real Gemini CLI
// session (docs/leases.md). Another agent (agent-a, from the shell)
// claims a task with --paths 'src/api/**'; the Gemini session's
// write_file, replace and shell sed -i of src/api/x.go are refused with
// the lease's reason reaching the model and the file unchanged, its
// write elsewhere lands; once agent-a completes the task, a later
// session's write_file of the same file lands.
func TestGeminiPathLease(t *testing.T) {
	t.Parallel()
	p := setup(t)
	// The continuation enforcer is not what is tested here.
	if err := os.WriteFile(filepath.Join(p.proj, ".matrixx", "matrixx.jsonc"), []byte(`{"disabled_hooks":["task-continuation-enforcer"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	created := hostkit.Run(t, bin, p.proj, `{"subject":"Rewrite the API"}`, p.env, "task-create")
	var ans struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(created), &ans); err != nil || len(ans.Tasks) != 1 {
		t.Fatalf("task-create: %v %s", err, created)
	}
	id := ans.Tasks[0].ID
	claimed := hostkit.Run(t, bin, p.proj, "", p.env, "task-claim", id, "--owner", "agent-a", "--paths", "src/api/**")
	if !strings.Contains(claimed, `"paths":["src/api/**"]`) {
		t.Fatalf("task-claim --paths: %s", claimed)
	}
	x := filepath.Join(p.proj, "src", "api", "x.go")
	if err := os.MkdirAll(filepath.Dir(x), 0o755); err != nil {
		t.Fatal(err)
	}
	const original = "package api\n// original\n"
	if err := os.WriteFile(x, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}

	reqs, _ := p.exec(t, []hostkit.Reply{
		hostkit.Call("write_file", map[string]any{"file_path": "src/api/x.go", "content": "package api\n// by gemini\n"}),
		hostkit.Call("replace", map[string]any{"file_path": x, "instruction": "Rename the package.", "old_string": "package api", "new_string": "package api2"}),
		hostkit.Call("run_shell_command", map[string]any{"command": "sed -i 's/api/b/' src/api/x.go", "description": "scripted"}),
		hostkit.Call("write_file", map[string]any{"file_path": "src/other.go", "content": "package src\n"}),
		hostkit.Text("Done."),
	})
	for i, tool := range []string{"write_file", "replace", "run_shell_command"} {
		wantReason(t, reqs, i+1, tool, "leased to agent-a for task "+id)
	}
	if got, _ := os.ReadFile(x); string(got) != original {
		t.Errorf("the leased file changed under the Gemini session: %q", got)
	}
	if got, err := os.ReadFile(filepath.Join(p.proj, "src", "other.go")); err != nil || string(got) != "package src\n" {
		t.Errorf("the write elsewhere did not land: %q, %v", got, err)
	}

	hostkit.Run(t, bin, p.proj, "", p.env, "task-update", id, "--status", "completed")
	p.exec(t, []hostkit.Reply{
		hostkit.Call("write_file", map[string]any{"file_path": "src/api/x.go", "content": "package api\n// by gemini\n"}),
		hostkit.Text("Done."),
	})
	if got, _ := os.ReadFile(x); string(got) != "package api\n// by gemini\n" {
		t.Errorf("the write after the lease ended did not land: %q", got)
	}
}
