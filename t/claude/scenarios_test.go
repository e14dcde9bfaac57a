package claude

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// The scenarios: each runs the real Claude Code against the scripted
// model in a fresh project where `matrixx-hook install` ran, and checks
// what reached the disk and what the host sent back to the model.

var taskID = regexp.MustCompile(`T-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// results collects every tool_result the host sent, by tool_use id (the
// history is resent with each request; the last copy wins).
func results(s *ModelServer) map[string]Block {
	out := map[string]Block{}
	for _, r := range s.Requests() {
		for _, m := range r.Messages {
			for _, b := range m.Blocks() {
				if b.Type == "tool_result" {
					out[b.ToolUseID] = b
				}
			}
		}
	}
	return out
}

// toolUses lists the tool_use ids of the replies, in order, as the host
// echoed them back in the last request (assistant messages).
func toolUses(s *ModelServer) []Block {
	reqs := s.Requests()
	var out []Block
	seen := map[string]bool{}
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Role != "assistant" {
				continue
			}
			for _, b := range m.Blocks() {
				if b.Type == "tool_use" && !seen[b.ID] {
					seen[b.ID] = true
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// resultOf is the tool_result for the n-th tool_use (0-based) of the
// session.
func resultOf(t *testing.T, s *ModelServer, n int) Block {
	t.Helper()
	uses := toolUses(s)
	if n >= len(uses) {
		t.Fatalf("only %d tool uses reached the host's history, want #%d", len(uses), n)
	}
	r, ok := results(s)[uses[n].ID]
	if !ok {
		t.Fatalf("no tool_result for %s (%s)", uses[n].ID, uses[n].Name)
	}
	return r
}

// unique keeps the first of each string, in order.
func unique(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// taskRecord reads a task file of the project.
func (p *Project) taskRecord(t *testing.T, id string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(p.Root, ".matrixx", "tasks", id+".json"))), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// createTask files a task with the binaries (outside the host).
func (p *Project) createTask(t *testing.T, args ...string) string {
	t.Helper()
	out := p.Run(t, "task-create", args...)
	id := taskID.FindString(out)
	if id == "" {
		t.Fatalf("task-create %v: no id in %s", args, out)
	}
	return id
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

// allText is everything the host sent the model in the session.
func allText(s *ModelServer) string {
	var b strings.Builder
	for _, r := range s.Requests() {
		b.WriteString(r.Text())
		b.WriteString("\n")
	}
	return b.String()
}

const sessionA = "5b7e3c1a-0d4f-4e8a-9c2b-1f6a7d8e9b01"

// TestGuardDenials: Write, Edit, Read of a plan, a Bash redirection and
// sed -i against the stores are denied through the real host; the files
// stay byte for byte, and each tool_result the model gets is an error
// carrying our reason.
func TestGuardDenials(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	id := p.createTask(t, "--subject", "Guarded task")
	p.RunIn(t, "# Demo\n\n1. [ ] First step\n", "plan", "create", "demo")
	taskFile := filepath.Join(p.Root, ".matrixx", "tasks", id+".json")
	planFile := filepath.Join(p.Root, ".matrixx", "plans", "demo.md")
	taskBefore, planBefore := readFile(t, taskFile), readFile(t, planFile)

	s := p.Claude(t, Steps(
		Call("Read", map[string]any{"file_path": taskFile}),
		Call("Write", map[string]any{"file_path": taskFile, "content": "{}"}),
		Call("Edit", map[string]any{"file_path": taskFile, "old_string": `"pending"`, "new_string": `"completed"`}),
		Call("Read", map[string]any{"file_path": planFile}),
		Bash(`echo '{}' > .matrixx/tasks/`+id+`.json`),
		Bash(`sed -i 's/pending/completed/' .matrixx/tasks/`+id+`.json`),
	), "Mark the task done by editing its file.")

	if r := resultOf(t, p.Server, 0); r.IsError || !strings.Contains(r.ResultText(), "Guarded task") {
		t.Errorf("Read of a task file: want allowed, got is_error=%v %q", r.IsError, r.ResultText())
	}
	for i, c := range []struct{ what, reason string }{
		{"Write of a task file", "task-update"},
		{"Edit of a task file", "task-update"},
		{"Read of a plan", "plan read demo"},
		{"Bash redirection into a task file", "task-update"},
		{"Bash sed -i of a task file", "task-update"},
	} {
		r := resultOf(t, p.Server, i+1)
		if !r.IsError {
			t.Errorf("%s: tool_result is not an error: %q", c.what, r.ResultText())
		}
		contains(t, c.what+" tool_result", r.ResultText(), c.reason, ".matrixx/")
	}
	if got := readFile(t, taskFile); got != taskBefore {
		t.Errorf("the task file changed:\n%s", got)
	}
	if got := readFile(t, planFile); got != planBefore {
		t.Errorf("the plan changed:\n%s", got)
	}
	if n := strings.Count(p.HookLog(), "task-edit-guard: deny"); n != 5 {
		t.Errorf("hook log: %d denials, want 5:\n%s", n, p.HookLog())
	}
	if s.IsError {
		t.Errorf("the session ended in error: %s", s.Result)
	}
}

// TestAllowedPath: task-create and task-list through Bash run, the tasks
// land on disk stamped with the session as threadID (CLAUDE_ENV_FILE),
// and the model gets their answers.
func TestAllowedPath(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	s := p.Claude(t, Steps(
		Bash(`echo '{"items":[{"subject":"Write the parser"},{"subject":"Test the parser"}]}' | task-create`),
		Then(func(req *Request) Reply {
			ids := unique(taskID.FindAllString(req.Text(), -1))
			if len(ids) < 2 {
				return Say("no ids")
			}
			return Bash("task-update " + ids[1] + " --add-blocked-by " + ids[0] + " && task-list")
		}),
	), "Plan the parser work.", "--session-id", sessionA)

	created := resultOf(t, p.Server, 0)
	ids := unique(taskID.FindAllString(created.ResultText(), -1))
	if created.IsError || len(ids) != 2 {
		t.Fatalf("task-create: is_error=%v, want two ids: %q", created.IsError, created.ResultText())
	}
	for _, id := range ids {
		rec := p.taskRecord(t, id)
		if rec["threadID"] != sessionA || rec["status"] != "pending" {
			t.Errorf("%s on disk: threadID %v status %v, want %s pending", id, rec["threadID"], rec["status"], sessionA)
		}
	}
	listed := resultOf(t, p.Server, 1)
	if listed.IsError {
		t.Fatalf("task-list: %q", listed.ResultText())
	}
	contains(t, "task-list tool_result", listed.ResultText(), "Write the parser", "Test the parser", `"blockedBy":["`+ids[0]+`"]`)
	if s.ID != sessionA {
		t.Errorf("session id %q, want %q", s.ID, sessionA)
	}
}

// TestNotepads: creating a task through Bash writes its notepad, and the
// model is told where it is (PostToolUse additionalContext); completing
// it stamps the notepad.
func TestNotepads(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.Claude(t, Steps(
		Bash(`task-create --subject "Document the cache"`),
		Then(func(req *Request) Reply {
			return Bash("task-update " + taskID.FindString(req.Text()) + " --status completed")
		}),
	), "Note the cache work.", "--session-id", sessionA)

	id := taskID.FindString(resultOf(t, p.Server, 0).ResultText())
	note := filepath.Join(p.Root, ".matrixx", "notepads", "adhoc", "0-document-the-cache.md")
	text := readFile(t, note)
	contains(t, "notepad", text, "# Task: Document the cache", id, "## Completion", "completed_at")
	// The path reached the model, after the create's result.
	reqs := p.Server.Requests()
	told := false
	for _, r := range reqs[1:] {
		if strings.Contains(r.Text(), "matrixx notepad for "+id+" (Document the cache): .matrixx/notepads/adhoc/0-document-the-cache.md") {
			told = true
		}
	}
	if !told {
		t.Errorf("the model was never told where the notepad is:\n%s", allText(p.Server))
	}
}

// TestStopContinuation: a Stop while the session has a pending task is
// blocked with our directive, which reaches the model; once the model
// completes the task the stop goes through. Without progress the cap
// lets the fourth stop through.
func TestStopContinuation(t *testing.T) {
	t.Parallel()
	t.Run("progress", func(t *testing.T) {
		p := newProject(t)
		s := p.Claude(t, Steps(
			Bash(`task-create --subject "Ship the feature"`),
			Say("All done, stopping."),
			Then(func(req *Request) Reply {
				return Bash("task-update " + taskID.FindString(req.Text()) + " --status completed")
			}),
			Say("Now really done."),
		), "Ship it.", "--session-id", sessionA)
		id := taskID.FindString(resultOf(t, p.Server, 0).ResultText())
		reqs := p.Server.Requests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests, want 4 (create, stop blocked, complete, stop allowed)", len(reqs))
		}
		contains(t, "the request after the blocked stop", reqs[2].LastUserText(), id, "Ship the feature")
		if rec := p.taskRecord(t, id); rec["status"] != "completed" {
			t.Errorf("status %v", rec["status"])
		}
		if n := strings.Count(p.HookLog(), "Stop task-continuation-enforcer: block"); n != 1 {
			t.Errorf("%d blocks, want 1:\n%s", n, p.HookLog())
		}
		if s.IsError {
			t.Errorf("session ended in error: %s", s.Result)
		}
	})
	t.Run("cap", func(t *testing.T) {
		p := newProject(t)
		s := p.Claude(t, Steps(
			Bash(`task-create --subject "Never finished"`),
		), "Start it.", "--session-id", sessionA)
		reqs := p.Server.Requests()
		// create; then "Done." blocked three times; the fourth stop goes.
		if len(reqs) != 5 {
			t.Fatalf("%d requests, want 5 (the create, the first stop, three blocked stops' continuations):\n%s", len(reqs), p.HookLog())
		}
		for _, r := range reqs[2:] {
			contains(t, "a continuation request", r.LastUserText(), "Never finished")
		}
		log := p.HookLog()
		if n := strings.Count(log, "Stop task-continuation-enforcer: block"); n != 3 {
			t.Errorf("%d blocks, want 3:\n%s", n, log)
		}
		contains(t, "hook log", log, "allow: no task progress since the last 3 blocks")
		if s.IsError {
			t.Errorf("session ended in error: %s", s.Result)
		}
	})
}

// TestSessionStart: an empty store gets the onboarding lines; a store
// with tasks gets the summary; --resume gets the session's own tasks
// back.
func TestSessionStart(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	writeConfig(t, p, `{"disabled_hooks":["task-continuation-enforcer"]}`)
	p.Claude(t, Steps(
		Bash(`task-create --subject "Resume me"`),
	), "Start.", "--session-id", sessionA)
	first := p.Server.Requests()[0].Text()
	contains(t, "the first request of a fresh project", first, Onboarding()...)

	p.createTask(t, "--session", "other-session", "--subject", "From another session")
	p.Claude(t, Steps(Say("Resumed.")), "Go on.", "--resume", sessionA)
	reqs := p.Server.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request after --resume")
	}
	r := reqs[0]
	contains(t, "the first request after --resume", r.Text(),
		"matrixx tasks of this session: 1 incomplete (0 in_progress, 1 pending)", "Resume me",
		"Other sessions have 1 active task(s)")
	if !strings.Contains(r.Text(), "Start.") {
		t.Errorf("--resume did not carry the earlier conversation")
	}
	contains(t, "hook log", p.HookLog(), "added a task summary (source resume)")
}

// Onboarding returns the lines the onboarding context must carry.
func Onboarding() []string {
	return []string{"matrixx tasks: this project tracks work with the task binaries", "task-create", "task-list --ready", "task-claim", "matrixx-tasks skill"}
}

func writeConfig(t *testing.T, p *Project, jsonc string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.Root, ".matrixx", "matrixx.jsonc"), []byte(jsonc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSubagentStop: a subagent holding an in_progress task of its own
// (owner = its agent type) is sent back once by SubagentStop; it completes
// the task and stops; the parent then stops too.
func TestSubagentStop(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	id := p.createTask(t, "--session", sessionA, "--subject", "Sub work", "--owner", "general-purpose")
	p.Run(t, "task-update", id, "--session", sessionA, "--status", "in_progress")
	s := p.Claude(t, Steps(
		// In the foreground: agents run in the background by default.
		Call("Task", map[string]any{"description": "Do the sub work", "prompt": "Do the sub work.", "subagent_type": "general-purpose", "run_in_background": false}),
		Say("Sub stopping early."),
		Bash("task-update "+id+" --status completed"),
		Say("Sub done."),
		Say("Parent done."),
	), "Delegate the sub work.", "--session-id", sessionA)
	log := p.HookLog()
	if n := strings.Count(log, "SubagentStop task-continuation-enforcer: block"); n != 1 {
		t.Errorf("%d SubagentStop blocks, want 1:\n%s", n, log)
	}
	if rec := p.taskRecord(t, id); rec["status"] != "completed" {
		t.Errorf("status %v, want completed", rec["status"])
	}
	reqs := p.Server.Requests()
	found := false
	for _, r := range reqs {
		if strings.Contains(r.LastUserText(), id) && strings.Contains(r.LastUserText(), "Sub work") {
			found = true
		}
	}
	if !found {
		t.Errorf("the subagent never got the directive naming %s", id)
	}
	if s.IsError || !strings.Contains(s.Result, "Parent done.") {
		t.Errorf("result %q (error %v)", s.Result, s.IsError)
	}
}

// TestCompact: /compact on a session with a pending task fires
// SessionStart (compact), whose summary the host takes, and a
// SubagentStop without agent_type, which must not block.
func TestCompact(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.Claude(t, Steps(
		Bash(`task-create --subject "Survive compaction"`),
		Say("Stopping."), Say("Stopping."), Say("Stopping."), Say("Stopping."),
	), "Start.", "--session-id", sessionA)
	s := p.Claude(t, Steps(Say("Compacted.")), "/compact", "--resume", sessionA)
	log := p.HookLog()
	contains(t, "hook log", log, "added a task summary (source compact)")
	var compactOut string
	for _, l := range s.OfType("system") {
		if str(l["subtype"]) == "hook_response" && str(l["hook_name"]) == "SessionStart:compact" {
			compactOut = str(l["stdout"]) + str(l["output"])
		}
	}
	contains(t, "the SessionStart:compact hook's output", compactOut, "Survive compaction", "matrixx tasks of this session")
	// The compaction's own agents stop through SubagentStop (no
	// agent_type): never blocked, though the session has a pending task.
	compaction := log[strings.Index(log, "(source resume)"):]
	if !strings.Contains(compaction, "SubagentStop task-continuation-enforcer: allow") {
		t.Errorf("no SubagentStop during /compact:\n%s", log)
	}
	if strings.Contains(compaction, "SubagentStop task-continuation-enforcer: block") {
		t.Errorf("a compaction SubagentStop was blocked:\n%s", log)
	}
}

// TestSlashCommands: /task-list, installed by install, runs as a Claude
// Code command: its text with the arguments reaches the model; the skill
// is offered to the model. After uninstall both are gone.
func TestSlashCommands(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	s := p.Claude(t, Steps(Bash("task-list --ready")), "/task-ready now")
	first := p.Server.Requests()[0]
	contains(t, "the /task-ready prompt", first.LastUserText(), "Run `task-list --ready`", "now")
	contains(t, "the first request", first.Text(), "matrixx-tasks", "Plan and track work as matrixx tasks")
	var init string
	for _, l := range s.OfType("system") {
		if str(l["subtype"]) == "init" {
			init = string(l["slash_commands"])
		}
	}
	contains(t, "init slash_commands", init, `"task-list"`, `"task-ready"`, `"cleanup-tasks"`)

	p.Run(t, "matrixx-hook", "uninstall", "-C", p.Root)
	s = p.Claude(t, Steps(), "hello")
	for _, l := range s.OfType("system") {
		if str(l["subtype"]) == "init" {
			if c := string(l["slash_commands"]); strings.Contains(c, `"task-list"`) || strings.Contains(c, `"matrixx-tasks"`) {
				t.Errorf("after uninstall: %s", c)
			}
		}
	}
	if n := len(p.Server.Requests()); n > 0 && strings.Contains(p.Server.Requests()[0].Text(), "Plan and track work as matrixx tasks") {
		t.Errorf("the skill is still offered after uninstall")
	}
}

// TestStdinHang: a heredoc makes the host hand the Bash command a stdin
// that never sends a byte and never closes (a socket); task-list after it
// in the same command must not wait on it.
func TestStdinHang(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.Timeout = 15 * time.Second
	s := p.Claude(t, Steps(
		Call("Bash", map[string]any{
			"command":     "task-create <<'EOF'\n{\"subject\":\"From a heredoc\"}\nEOF\ntask-list",
			"description": "create and list", "timeout": 8000,
		}),
		Say("Stopping."), Say("Stopping."), Say("Stopping."), Say("Stopping."),
	), "Create from a heredoc.", "--session-id", sessionA)
	r := resultOf(t, p.Server, 0)
	if strings.Contains(r.ResultText(), "did not complete within") || s.TimedOut {
		t.Fatalf("task-list waited on the socket stdin the host gives a command with a heredoc, until the host's Bash timeout:\n%s", r.ResultText())
	}
	if r.IsError {
		t.Fatalf("the command failed: %q", r.ResultText())
	}
	contains(t, "the heredoc command's tool_result", r.ResultText(), `"subject":"From a heredoc"`, `"tasks":[{"id":"T-`)
	if strings.Count(r.ResultText(), "From a heredoc") < 2 {
		t.Errorf("task-list's answer is missing: %q", r.ResultText())
	}
}

// doctor runs `claude doctor` in the project (offline) and returns its
// output.
func (p *Project) doctor(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.CLI, "doctor")
	cmd.Dir = p.Root
	cmd.Env = append(p.baseEnv(), "ANTHROPIC_BASE_URL="+p.Server.URL, "ANTHROPIC_API_KEY=sk-ant-test-scripted",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude doctor: %v\n%s", err, out)
	}
	return string(out)
}

// TestDoctor: the settings install writes, also over a file that had
// comments and a hook of the user's, are valid for `claude doctor`; a
// broken file is reported (so the check can fail).
func TestDoctor(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	local := filepath.Join(p.Root, ".claude", "settings.local.json")
	if err := os.WriteFile(local, []byte(`{
  // mine
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5}]}]},
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Run(t, "matrixx-hook", "install", "-C", p.Root)
	if out := p.doctor(t); strings.Contains(out, "Invalid settings") {
		t.Errorf("claude doctor finds the installed settings invalid:\n%s", out)
	}
	if got := readFile(t, local); !strings.Contains(got, `"command": "true"`) || !strings.Contains(got, "matrixx-hook") {
		t.Errorf("install lost an entry:\n%s", got)
	}
	shared := filepath.Join(p.Root, ".claude", "settings.json")
	if err := os.WriteFile(shared, []byte(`{"hooks": {},}`), 0o644); err != nil {
		t.Fatal(err)
	}
	contains(t, "claude doctor on a file with a trailing comma", p.doctor(t), "Invalid settings", shared)
}
