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
// path, the task_create tool stamping the session with a notepad, the
// session-start summary, and the continuation enforcer blocking on
// session.idle.
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
	// OpenCode installs @opencode-ai/plugin into .opencode/ with npm when
	// it starts: offline, from the npm cache that .ci/install-hosts.sh
	// filled. It takes its directory from $PWD.
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
		hostkit.Text("Done."), // session.idle: the enforcer blocks
	})
	config := fmt.Sprintf(`{"provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Scripted","options":{"baseURL":"%s/v1","apiKey":"test"},"models":{"m1":{"name":"m1","tool_call":true}}}},"model":"mock/m1"}`, srv.URL)
	if err := os.WriteFile(filepath.Join(proj, "opencode.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
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
	if len(reqs) < 5 {
		t.Fatalf("%d model requests, want at least 5", len(reqs))
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
	// opencode run ends the process when the session goes idle, so the
	// continuation prompt the plugin sends then is not answered here; what
	// is proven is that the real session.idle reached the enforcer with
	// OpenCode's session id and blocked the stop (its count is recorded).
	t.Run("continuation on session.idle", func(t *testing.T) {
		session := sessionOf(t, proj, env, bin)
		b, err := os.ReadFile(filepath.Join(proj, ".matrixx", "state", "continuation", session+".json"))
		var st struct {
			Blocks int `json:"blocks"`
		}
		if err != nil || json.Unmarshal(b, &st) != nil || st.Blocks < 1 {
			t.Errorf("no block recorded for the session %s: %v %s", session, err, b)
		}
	})
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
