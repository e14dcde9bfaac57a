//go:build linux

// Package sync proves task-sync with real git and real processes:
// "machines" are clones of one bare repository on this machine (file://
// remotes, no network), each with its own HOME and session, running the
// real binaries. The test binary doubles as every binary: linked under a
// binary's name (bin/task-sync → the test binary) it runs that binary, so
// git can call the merge driver by name too. Sizes grow with SYNC_SCALE
// (`make stress` runs the full sizes).
package sync

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
)

var mains = map[string]func([]string, io.Reader, io.Writer, io.Writer) int{
	"task-claim":   cli.TaskClaim,
	"task-cleanup": cli.TaskCleanup,
	"task-create":  cli.TaskCreate,
	"task-get":     cli.TaskGet,
	"task-list":    cli.TaskList,
	"task-update":  cli.TaskUpdate,
	"task-sync":    cli.TaskSync,
	"plan":         cli.Plan,
}

var binDir string

func TestMain(m *testing.M) {
	if main, ok := mains[filepath.Base(os.Args[0])]; ok {
		os.Exit(main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "tasksync-bin-")
	if err != nil {
		panic(err)
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	for name := range mains {
		if err := os.Symlink(exe, filepath.Join(dir, name)); err != nil {
			panic(err)
		}
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// scale is SYNC_SCALE, 0 when unset (the small sizes of go test).
func scale() int {
	n, _ := strconv.Atoi(os.Getenv("SYNC_SCALE"))
	return n
}

// machine is one clone with its own HOME and session.
type machine struct {
	t    testing.TB
	name string
	dir  string
	env  []string
}

// newMachines makes a bare repository with one commit on main and n
// clones of it.
func newMachines(t testing.TB, n int) (string, []*machine) {
	t.Helper()
	top := t.TempDir()
	bare := filepath.Join(top, "remote.git")
	git(t, top, "init", "-q", "--bare", "-b", "main", bare)
	seed := filepath.Join(top, "seed")
	git(t, top, "clone", "-q", "file://"+bare, seed)
	os.WriteFile(filepath.Join(seed, ".gitignore"), []byte(".matrixx/\n"), 0o644)
	git(t, seed, "add", ".gitignore")
	git(t, seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init")
	git(t, seed, "push", "-q", "origin", "main")
	var ms []*machine
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("m%d", i)
		dir := filepath.Join(top, name)
		git(t, top, "clone", "-q", "file://"+bare, dir)
		home := filepath.Join(top, name+"-home")
		os.MkdirAll(home, 0o755)
		ms = append(ms, &machine{t: t, name: name, dir: dir, env: machineEnv(home, name)})
	}
	return bare, ms
}

func machineEnv(home, session string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MATRIXX_") || strings.HasPrefix(k, "CLAUDE_") || strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "PATH" || k == "ULTRAWORK_TASK_LIST_ID" || k == "OPENCODE_CONFIG_DIR" || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "PATH="+binDir+":"+os.Getenv("PATH"), "MATRIXX_SESSION_ID="+session,
		"OPENCODE_CONFIG_DIR="+filepath.Join(home, ".config", "opencode"), "GIT_CONFIG_NOSYSTEM=1")
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// run runs a binary on the machine; it returns stdout and the exit status.
func (m *machine) run(stdin string, name string, args ...string) (string, int) {
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Dir = m.dir
	cmd.Env = m.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		m.t.Fatalf("%s %v: %v", name, args, err)
	}
	if code > 1 {
		m.t.Errorf("%s: %s %v exited %d: %s %s", m.name, name, args, code, out.String(), errb.String())
	}
	return out.String(), code
}

// must runs a binary that has to succeed and decodes its answer into v.
// create makes one task with task-create -s subject and returns its id.
func (m *machine) create(subject string) string {
	m.t.Helper()
	var created struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	m.must(&created, "", "task-create", "-s", subject)
	if len(created.Tasks) != 1 {
		m.t.Fatalf("%s: task-create answered %+v", m.name, created)
	}
	return created.Tasks[0].ID
}

func (m *machine) must(v any, stdin, name string, args ...string) {
	m.t.Helper()
	out, code := m.run(stdin, name, args...)
	if code != 0 {
		m.t.Fatalf("%s: %s %v exited %d: %s", m.name, name, args, code, out)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(out), v); err != nil {
			m.t.Fatalf("%s %v: %v: %s", name, args, err, out)
		}
	}
}

// syncAnswer is task-sync's answer.
type syncAnswer struct {
	Pulled    int `json:"pulled"`
	Pushed    int `json:"pushed"`
	Merged    int `json:"merged"`
	Conflicts []struct {
		ID    string         `json:"id"`
		Field string         `json:"field"`
		Kept  jsontext.Value `json:"kept"`
		Lost  jsontext.Value `json:"lost"`
		Rule  string         `json:"rule"`
	} `json:"conflicts"`
	Error string `json:"error"`
}

// sync runs task-sync and returns its answer (sync_conflict included).
func (m *machine) sync() syncAnswer {
	out, code := m.run("", "task-sync")
	var a syncAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		m.t.Fatalf("%s: task-sync answered %q: %v", m.name, out, err)
	}
	if code != 0 && a.Error != "sync_conflict" {
		m.t.Fatalf("%s: task-sync exited %d: %s", m.name, code, out)
	}
	return a
}

// files returns the store's records and plans by path.
func (m *machine) files() map[string]string {
	out := map[string]string{}
	for _, d := range []string{"tasks", "plans"} {
		dir := filepath.Join(m.dir, ".matrixx", d)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			n := e.Name()
			if (d == "tasks" && strings.HasPrefix(n, "T-") && strings.HasSuffix(n, ".json")) || (d == "plans" && strings.HasSuffix(n, ".md") && !strings.HasPrefix(n, ".")) {
				b, err := os.ReadFile(filepath.Join(dir, n))
				if err != nil {
					m.t.Fatal(err)
				}
				out[d+"/"+n] = string(b)
			}
		}
	}
	return out
}
