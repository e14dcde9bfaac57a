package claude

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// installHint is the line a skipped scenario prints.
const installHint = "the real Claude Code CLI is not installed: run `make hosts-claude` (npm install of @anthropic-ai/claude-code at the version in t/claude/claude-code.version into .cache/hosts/claude; needs npm), or set MATRIXX_CLAUDE to a claude binary"

var (
	versionOnce sync.Once
	versionErr  string
)

// checkVersion fails when the installed CLI is not the pinned release
// (t/claude/claude-code.version).
func checkVersion(t testing.TB, bin string) {
	t.Helper()
	versionOnce.Do(func() {
		want, err := os.ReadFile(filepath.Join(repoRoot(t), "t", "claude", "claude-code.version"))
		if err != nil {
			versionErr = err.Error()
			return
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			versionErr = fmt.Sprintf("%s --version: %v", bin, err)
			return
		}
		if !strings.HasPrefix(string(out), strings.TrimSpace(string(want))+" ") {
			versionErr = fmt.Sprintf("%s is %q, the scenarios pin %s: run `make hosts-claude`", bin, strings.TrimSpace(string(out)), strings.TrimSpace(string(want)))
		}
	})
	if versionErr != "" {
		t.Fatal(versionErr)
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// TestMain removes the binaries built for the scenarios.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// repoRoot is the repository's root (two levels above this package).
func repoRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// claudeBinary finds the CLI: $MATRIXX_CLAUDE, else the one `make hosts`
// installed. Missing: a failure under CI=true, else a skip saying how to
// install it.
func claudeBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MATRIXX_CLAUDE"); p != "" {
		return p
	}
	p := filepath.Join(repoRoot(t), ".cache", "hosts", "claude", "node_modules", ".bin", "claude")
	if _, err := os.Stat(p); err == nil {
		checkVersion(t, p)
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %s", installHint)
	}
	t.Skip(installHint)
	return ""
}

// ourBinaries builds the toolkit's binaries once, into a directory that
// goes first on the host's PATH.
func ourBinaries(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "matrixx-claude-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", dir+"/", "./cmd/...")
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		t.Fatalf("building the binaries: %v", buildErr)
	}
	return binDir
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + ": " + string(e.out) }

// Project is one temporary project with the hooks installed and a home of
// its own, run by one ModelServer.
type Project struct {
	t      *testing.T
	Root   string
	Home   string
	Bin    string
	CLI    string
	Server *ModelServer
	// Env is added to the host's environment.
	Env []string
	// Timeout bounds one claude run (60 s when zero); the whole process
	// group is killed then.
	Timeout time.Duration
	// AllowedTools is added to the --allowedTools list (MCP tools, say).
	AllowedTools string
}

// newProject makes a git-less project (a .matrixx/ marks its root), runs
// `matrixx-hook install` there and starts the model server.
func newProject(t *testing.T) *Project {
	t.Helper()
	claude := claudeBinary(t)
	bin := ourBinaries(t)
	base := t.TempDir()
	p := &Project{t: t, Root: filepath.Join(base, "project"), Home: filepath.Join(base, "home"), Bin: bin, CLI: claude}
	for _, d := range []string{p.Root, p.Home, filepath.Join(p.Root, ".matrixx")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The home is empty (no ~/.claude.json): -p mode needs no first-run
	// set-up. install writes .claude/settings.local.json, the skill and
	// the commands.
	p.Run(t, "matrixx-hook", "install", "-C", p.Root)
	srv, err := NewModelServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	p.Server = srv
	return p
}

// Run runs one of our binaries in the project (stdin empty) and returns
// its stdout; a non-zero exit fails the test.
func (p *Project) Run(t *testing.T, name string, args ...string) string {
	t.Helper()
	return p.RunIn(t, "", name, args...)
}

// RunIn is Run with stdin.
func (p *Project) RunIn(t *testing.T, stdin, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.Bin, name), args...)
	cmd.Dir = p.Root
	cmd.Env = p.baseEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout: %s\nstderr: %s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

func (p *Project) baseEnv() []string {
	env := []string{
		"PATH=" + p.Bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + p.Home,
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
	}
	return append(env, p.Env...)
}

// Session is what one `claude -p` run printed: its stream-json lines.
type Session struct {
	ID     string
	Lines  []map[string]jsontext.Value
	Stdout string
	Stderr string
	Result string
	// IsError is the result line's is_error.
	IsError bool
	// TimedOut is set when the run was killed at its timeout.
	TimedOut bool
}

// Claude runs `claude -p prompt --output-format stream-json --verbose` in
// the project against the model server, with the script, offline (the
// only address is the server's), with every tool allowed so the hooks are
// the only thing that denies. Extra arguments go before the prompt.
func (p *Project) Claude(t *testing.T, script Script, prompt string, extra ...string) *Session {
	t.Helper()
	p.Server.SetScript(script)
	args := []string{"-p", "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions",
		"--allowedTools", "Bash,Read,Write,Edit,MultiEdit,Glob,Grep,Task" + p.AllowedTools,
		"--model", "claude-sonnet-4-5",
	}
	args = append(args, extra...)
	args = append(args, prompt)
	timeout := p.Timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.CLI, args...)
	// Its own process group, killed as a whole: commands the host moved
	// to the background must not outlive the scenario.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	cmd.Dir = p.Root
	cmd.Env = append(p.baseEnv(),
		"ANTHROPIC_BASE_URL="+p.Server.URL,
		"ANTHROPIC_API_KEY=sk-ant-test-scripted",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		// As root, --dangerously-skip-permissions also needs this.
		"IS_SANDBOX=1",
		"MATRIXX_HOOK_LOG="+filepath.Join(p.Home, "hook.log"),
	)
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	s := &Session{Stdout: out.String(), Stderr: errb.String(), TimedOut: ctx.Err() != nil}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]jsontext.Value
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		s.Lines = append(s.Lines, m)
		if id := str(m["session_id"]); id != "" && s.ID == "" {
			s.ID = id
		}
		if str(m["type"]) == "result" {
			s.Result = str(m["result"])
			s.IsError = string(m["is_error"]) == "true"
		}
	}
	if s.TimedOut {
		t.Errorf("claude did not finish in %v (killed)\nstdout: %s\nstderr: %s\nhook log: %s", timeout, s.Stdout, s.Stderr, p.HookLog())
	}
	if err != nil {
		t.Logf("claude exited: %v\nstderr: %s", err, s.Stderr)
	}
	return s
}

// HookLog is the hook's log file (MATRIXX_HOOK_LOG) so far.
func (p *Project) HookLog() string {
	b, _ := os.ReadFile(filepath.Join(p.Home, "hook.log"))
	return string(b)
}

func str(v jsontext.Value) string {
	var s string
	if len(v) > 0 && v[0] == '"' {
		_ = json.Unmarshal(v, &s)
	}
	return s
}

// OfType returns the session's stream-json lines of one type ("system":
// init, hook_started, hook_response with each hook's output, …).
func (s *Session) OfType(kind string) []map[string]jsontext.Value {
	var out []map[string]jsontext.Value
	for _, l := range s.Lines {
		if str(l["type"]) == kind {
			out = append(out, l)
		}
	}
	return out
}
