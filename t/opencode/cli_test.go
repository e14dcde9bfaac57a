package opencode

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

// TestOpenCodeCLI runs the real OpenCode CLI (opencode-ai, from
// .cache/hosts) with the plugin in the project's .opencode/plugin/,
// against a scripted chat-completions server on 127.0.0.1: the guard
// refusing a shell write and a write tool call on the task store (file
// unchanged, our reason in the tool result the model gets), the allowed
// path, the task_create tool and a shell task-create stamping the
// session, the notepad written and stamped, the session-start summary,
// and the continuation: the stop blocked, the directive reaching the model
// in the same opencode run, the agent finishing, the run ending.
func TestOpenCodeCLI(t *testing.T) {
	opencode := hostkit.CLI(t, "opencode")
	plugin := filepath.Join(hostkit.RepoRoot(), ".cache", "hosts", "node_modules", "@opencode-ai", "plugin")
	if _, err := os.Stat(plugin); err != nil {
		t.Fatalf("@opencode-ai/plugin is not in .cache/hosts: run .ci/install-hosts.sh")
	}
	bin := t.TempDir()
	if err := hostkit.Build(bin); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	proj, home := filepath.Join(root, "proj"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(proj, ".matrixx"), filepath.Join(proj, ".opencode", "plugin"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join(hostkit.RepoRoot(), "integrations", "opencode", "matrixx.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".opencode", "plugin", "matrixx.js"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	// OpenCode installs @opencode-ai/plugin into each config directory
	// (.opencode/, ~/.config/opencode) with npm when it starts, unless
	// node_modules is there and package-lock.json lists the package: give
	// it the copy .ci/install-hosts.sh installed (an npm install, even
	// offline from the npm cache, takes minutes on a loaded machine). It
	// takes its directory from $PWD.
	for _, dir := range []string{filepath.Join(proj, ".opencode"), filepath.Join(home, ".config", "opencode")} {
		preinstall(t, dir, plugin)
	}
	cache := os.Getenv("npm_config_cache")
	if cache == "" {
		if h, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(h, ".npm")
		}
	}
	env := hostkit.Env("HOME="+home, "PWD="+proj, "npm_config_offline=true", "npm_config_cache="+cache, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MATRIXX_BIN_DIR="+bin,
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1")

	create := exec.Command(filepath.Join(bin, "task-create"))
	create.Dir, create.Env, create.Stdin = proj, env, strings.NewReader(`{"subject":"Earlier work on the parser"}`)
	out, err := create.Output()
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if err := json.Unmarshal(out, &ans); err != nil || len(ans.Tasks) != 1 {
		t.Fatalf("task-create: %v %s", err, out)
	}
	earlier := ans.Tasks[0].ID
	taskFile := filepath.Join(proj, ".matrixx", "tasks", earlier+".json")
	before, _ := os.ReadFile(taskFile)

	srv := hostkit.OpenAI(t, []hostkit.Reply{
		hostkit.Call("bash", map[string]any{"command": "echo hacked > .matrixx/tasks/" + earlier + ".json", "description": "scripted"}),
		hostkit.Call("write", map[string]any{"filePath": taskFile, "content": "{}\n"}),
		hostkit.Call("bash", map[string]any{"command": "echo allowed > allowed.txt", "description": "scripted"}),
		hostkit.Call("task_create", map[string]any{"subject": "OpenCode task"}),
		hostkit.Call("bash", map[string]any{"command": `printf '%s' '{"subject":"OpenCode shell task"}' | task-create`, "description": "scripted"}),
		hostkit.Text("Done."), // the stop is blocked: the reason goes in as a user message, the turn goes on
		hostkit.Call("bash", map[string]any{"command": `task-list | python3 -c 'import json,sys; [print(t["id"]) for t in json.load(sys.stdin)["tasks"]]' | grep -v ` + earlier + ` | while read id; do task-update "$id" --status completed; done`, "description": "scripted"}),
		hostkit.Text("All done."), // nothing left: the stop goes through and opencode run ends
	})
	config := fmt.Sprintf(`{"provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Scripted","options":{"baseURL":"%s/v1","apiKey":"test"},"models":{"m1":{"name":"m1","tool_call":true}}}},"model":"mock/m1"}`, srv.URL)
	if err := os.WriteFile(filepath.Join(proj, "opencode.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, opencode, "run", "--model", "mock/m1", "Run the scripted steps.")
	cmd.Dir, cmd.Env = proj, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	reqs := srv.Requests()
	t.Logf("opencode run: %v, %d model requests\nstdout:\n%s\nstderr:\n%s", err, len(reqs), hostkit.Tail(stdout.String(), 3000), hostkit.Tail(stderr.String(), 3000))
	if logs, _ := filepath.Glob(filepath.Join(home, ".local", "share", "opencode", "log", "*.log")); len(logs) > 0 && (err != nil || t.Failed()) {
		b, _ := os.ReadFile(logs[len(logs)-1])
		t.Logf("opencode log:\n%s", hostkit.Tail(string(b), 6000))
	}
	if len(reqs) < 6 {
		t.Fatalf("%d model requests, want at least 6", len(reqs))
	}
	t.Run("guard denies the shell write", func(t *testing.T) { wantTool(t, reqs[1], "Task files change only through task-create") })
	t.Run("guard denies the write tool", func(t *testing.T) { wantTool(t, reqs[2], "Task files change only through task-create") })
	t.Run("task file unchanged", func(t *testing.T) {
		if after, _ := os.ReadFile(taskFile); !bytes.Equal(after, before) {
			t.Errorf("%s changed", taskFile)
		}
	})
	t.Run("allowed path", func(t *testing.T) {
		if b, err := os.ReadFile(filepath.Join(proj, "allowed.txt")); err != nil || string(b) != "allowed\n" {
			t.Errorf("allowed.txt: %q %v", b, err)
		}
	})
	t.Run("task_create tool and notepad", func(t *testing.T) {
		id := hostkit.TaskBySubject(t, filepath.Join(proj, ".matrixx", "tasks"), "OpenCode task", sessionOf(t, proj, env, bin))
		found := false
		filepath.WalkDir(filepath.Join(proj, ".matrixx", "notepads"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(id)) {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("no notepad names %s", id)
		}
	})
	t.Run("session start", func(t *testing.T) {
		if !strings.Contains(reqs[0], "Earlier work on the parser") {
			t.Errorf("the first model request lacks the task summary")
		}
	})
	t.Run("shell task-create stamps the session", func(t *testing.T) {
		hostkit.TaskBySubject(t, filepath.Join(proj, ".matrixx", "tasks"), "OpenCode shell task", sessionOf(t, proj, env, bin))
	})
	// The stop after "Done." is blocked: the reason reaches the model in
	// the same opencode run, the agent completes its tasks, and the next
	// stop goes through (the run ends by itself).
	t.Run("continuation", func(t *testing.T) {
		if len(reqs) != 8 {
			t.Fatalf("%d model requests, want 8 (6 tool steps and answers, the continued turn, the last answer)", len(reqs))
		}
		if !strings.Contains(reqs[6], "Do not stop yet") || !strings.Contains(reqs[6], "OpenCode shell task") {
			t.Errorf("request 6 does not carry the continuation directive: %s", hostkit.Tail(reqs[6], 1500))
		}
		if strings.Contains(reqs[5], "Do not stop yet") {
			t.Errorf("the directive came before the stop")
		}
		for _, subject := range []string{"OpenCode task", "OpenCode shell task"} {
			if st := statusOf(t, proj, subject); st != "completed" {
				t.Errorf("%s: %s, want completed", subject, st)
			}
		}
	})
	t.Run("notepad stamped on completion", func(t *testing.T) {
		found := false
		filepath.WalkDir(filepath.Join(proj, ".matrixx", "notepads"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("OpenCode task")) && bytes.Contains(b, []byte("## Completion")) {
					found = true
				}
			}
			return nil
		})
		if !found {
			t.Errorf("no stamped notepad for OpenCode task")
		}
	})
}

// preinstall makes dir's node_modules hold @opencode-ai/plugin (a link
// to plugin) as OpenCode's own install would, so it installs nothing.
func preinstall(t *testing.T, dir, plugin string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "node_modules", "@opencode-ai"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(plugin, filepath.Join(dir, "node_modules", "@opencode-ai", "plugin")); err != nil {
		t.Fatal(err)
	}
	deps := `{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}`
	for name, content := range map[string]string{"package.json": deps, "package-lock.json": `{"lockfileVersion":3,"packages":{"":` + deps + `}}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// statusOf is the status of the task with the subject.
func statusOf(t *testing.T, proj, subject string) string {
	files, _ := filepath.Glob(filepath.Join(proj, ".matrixx", "tasks", "T-*.json"))
	for _, f := range files {
		var tk struct{ Subject, Status string }
		b, _ := os.ReadFile(f)
		if json.Unmarshal(b, &tk) == nil && tk.Subject == subject {
			return tk.Status
		}
	}
	return "(no such task)"
}

// sessionOf is the threadID OpenCode's session stamped: the one task of
// the store with a threadID other than no-session.
func sessionOf(t *testing.T, proj string, env []string, bin string) string {
	files, _ := filepath.Glob(filepath.Join(proj, ".matrixx", "tasks", "T-*.json"))
	for _, f := range files {
		var tk struct {
			ThreadID string `json:"threadID"`
		}
		b, _ := os.ReadFile(f)
		if json.Unmarshal(b, &tk) == nil && strings.HasPrefix(tk.ThreadID, "ses_") {
			return tk.ThreadID
		}
	}
	return "(an OpenCode session id)"
}

// wantTool checks that the request's last tool message carries s.
func wantTool(t *testing.T, req, s string) {
	t.Helper()
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal([]byte(req), &body); err != nil {
		t.Fatal(err)
	}
	for i := len(body.Messages) - 1; i >= 0; i-- {
		if body.Messages[i]["role"] == "tool" {
			if c := fmt.Sprint(body.Messages[i]["content"]); !strings.Contains(c, s) {
				t.Errorf("the tool result lacks %q: %s", s, c)
			}
			return
		}
	}
	t.Errorf("no tool message in the request")
}
