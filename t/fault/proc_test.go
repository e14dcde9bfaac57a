//go:build linux

// Package fault drives the real task binaries through faults: writers
// killed with SIGKILL at random moments, a lock holder paused past the
// stale threshold, a full or read-only filesystem, a directory full of
// corrupt and foreign files, and the fsync sequence seen through strace
// (issue 5, DESIGN §5 "crash" and "bad input" bars).
//
// The test binary doubles as every task binary and plan: run with
// FAULT_EXEC=<name>, it is that binary (see TestMain), so the tests need
// no separate build step. Loop counts grow with FAULT_SCALE (default 1;
// `make stress` sets it higher).
package fault

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
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/hookcmd"
	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

var mains = map[string]func([]string, io.Reader, io.Writer, io.Writer) int{
	"task-create":  cli.TaskCreate,
	"task-get":     cli.TaskGet,
	"task-list":    cli.TaskList,
	"task-update":  cli.TaskUpdate,
	"task-cleanup": cli.TaskCleanup,
	"task-claim":   cli.TaskClaim,
	"task-doctor":  cli.TaskDoctor,
	"matrixx-hook": hookcmd.Main,
	"plan":         cli.Plan,
}

func TestMain(m *testing.M) {
	if name := os.Getenv("FAULT_EXEC"); name != "" {
		main, ok := mains[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "fault: no binary %q\n", name)
			os.Exit(127)
		}
		os.Exit(main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// scale multiplies loop counts: FAULT_SCALE, default 1.
func scale() int {
	n, err := strconv.Atoi(os.Getenv("FAULT_SCALE"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// project is a project root with its own HOME, used by every call.
type project struct {
	t    testing.TB
	root string
	home string
}

func newProject(t testing.TB, root string) *project {
	t.Helper()
	home := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-home")
	for _, d := range []string{root, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &project{t: t, root: root, home: home}
}

func (p *project) dir() string { return filepath.Join(p.root, ".matrixx", "tasks") }

// cmd returns an unstarted process running binary name in the project.
func (p *project) cmd(name string, env []string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		p.t.Fatal(err)
	}
	c := exec.Command(self, append([]string{"-C", p.root}, args...)...)
	c.Dir = p.root
	c.Env = append([]string{
		"FAULT_EXEC=" + name,
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + p.home,
		"OPENCODE_CONFIG_DIR=" + filepath.Join(p.home, ".config", "opencode"),
	}, env...)
	return c
}

// result is a finished call.
type result struct {
	code   int
	stdout []byte
	stderr []byte
}

// errorCode returns the "error" member of a flat error envelope, or "".
func (r result) errorCode() string {
	var env struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(r.stdout, &env) != nil {
		return ""
	}
	return env.Error
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// callTimeout bounds every call: a command that hangs (say, on a FIFO
// named like a record) fails the test instead of wedging it.
const callTimeout = 20 * time.Second

// call runs binary name with stdin and waits.
func (p *project) call(name, stdin string, env []string, args ...string) result {
	p.t.Helper()
	c := p.cmd(name, env, args...)
	c.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		p.t.Fatalf("%s: %v", name, err)
	}
	hung := time.AfterFunc(callTimeout, func() { _ = c.Process.Kill() })
	err := c.Wait()
	if !hung.Stop() {
		p.t.Fatalf("%s %v hung (killed after %v); stderr: %s", name, args, callTimeout, errb.Bytes())
	}
	r := result{stdout: out.Bytes(), stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		p.t.Fatalf("%s: %v", name, err)
	}
	return r
}

// mustCall runs binary name and requires exit 0.
func (p *project) mustCall(name, stdin string, args ...string) result {
	p.t.Helper()
	r := p.call(name, stdin, nil, args...)
	if r.code != 0 {
		p.t.Fatalf("%s %v: %s", name, args, r)
	}
	return r
}

// create makes one task and returns its id.
func (p *project) create(doc string) string {
	p.t.Helper()
	r := p.mustCall("task-create", doc)
	var ans struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(r.stdout, &ans); err != nil || len(ans.Tasks) != 1 {
		p.t.Fatalf("task-create answer: %v %s", err, r.stdout)
	}
	return ans.Tasks[0].ID
}

// get reads one task through task-get.
func (p *project) get(id string) *task.Task {
	p.t.Helper()
	r := p.mustCall("task-get", "", id)
	var ans struct {
		Task *task.Task `json:"task"`
	}
	if err := json.Unmarshal(r.stdout, &ans); err != nil || ans.Task == nil {
		p.t.Fatalf("task-get %s: %v %s", id, err, r.stdout)
	}
	return ans.Task
}

// storeState is what validateStore found in a task directory.
type storeState struct {
	records map[string]*task.Task // by id
	temps   []string              // temp files (killed writers leave them)
	lock    bool                  // .lock present
}

// validateStore checks the invariants of D4/D6 on a directory: every
// T-*.json is a regular file that decodes strictly and whose id matches
// its name (a temp file is never taken for a task), and everything else
// is a known non-task name.
func validateStore(t testing.TB, dir string) storeState {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := storeState{records: map[string]*task.Task{}}
	for _, e := range entries {
		name := e.Name()
		switch {
		case store.IsTaskFile(name):
			if !e.Type().IsRegular() {
				t.Errorf("%s is not a regular file (%v)", name, e.Type())
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			rec, err := task.DecodeRecord(data)
			if err != nil {
				t.Errorf("%s does not decode as a record: %v\n%s", name, err, data)
				continue
			}
			if task.FileName(rec.ID) != name {
				t.Errorf("%s holds id %s", name, rec.ID)
				continue
			}
			st.records[rec.ID] = rec
		case durable.IsTemp(name):
			st.temps = append(st.temps, name)
		case name == ".lock":
			st.lock = true
		case name == ".index", name == ".legacy-migrated", name == history.DirName:
		default:
			t.Errorf("unexpected file %s in the task directory", name)
		}
	}
	return st
}
