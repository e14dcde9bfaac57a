//go:build linux

package fault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// sparse makes path a 2 GB sparse file beginning with a JSON-looking byte.
func sparse(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// maxRSS runs c (already set up) and returns its exit code and peak RSS in MiB.
func maxRSS(t *testing.T, c *exec.Cmd) (int, int64, string) {
	t.Helper()
	out, err := c.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	return code, ru.Maxrss / 1024, string(out)
}

// TestSparseGiants: a 2 GB sparse T-*.json, plan and config are refused
// after a stat, never read whole: every command stays far below 2 GB of
// memory (under 200 MiB here) and answers.
func TestSparseGiants(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	id := p.create(`{"subject":"Neighbour"}`)
	giant, err := task.NewID()
	if err != nil {
		t.Fatal(err)
	}
	sparse(t, filepath.Join(p.dir(), task.FileName(giant)))
	sparse(t, filepath.Join(p.root, ".matrixx", "plans", "giant.md"))
	for _, c := range []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"task-get", "", []string{giant}, 1, "task_corrupt"},
		{"task-list", "", nil, 0, "larger than the"},
		{"task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, giant), nil, 1, "task_corrupt"},
		{"task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, id), nil, 0, `"completed"`},
		{"plan", "", []string{"read", "giant"}, 1, "file_too_large"},
	} {
		cmd := p.cmd(c.name, nil, c.args...)
		cmd.Stdin = strings.NewReader(c.stdin)
		code, mib, out := maxRSS(t, cmd)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s %v: exit %d %s; want exit %d with %q", c.name, c.args, code, out, c.code, c.want)
		}
		if mib > 200 {
			t.Errorf("%s %v: peak RSS %d MiB: the giant was read", c.name, c.args, mib)
		}
	}
	// A giant config is a config_error, not 2 GB read.
	sparse(t, filepath.Join(p.root, ".matrixx", "matrixx.jsonc"))
	cmd := p.cmd("task-list", nil)
	code, mib, out := maxRSS(t, cmd)
	if code == 0 || !strings.Contains(out, "config_error") || mib > 200 {
		t.Errorf("task-list with a giant config: exit %d, %d MiB, %s", code, mib, out)
	}
}
