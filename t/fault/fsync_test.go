//go:build linux

package fault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// traceLine matches one strace line of interest (with -y, file descriptors
// carry their path: fsync(8</dir/file>)); "resumed" halves are skipped.
var traceLine = regexp.MustCompile(`^\d+\s+(fsync|fdatasync|rename|renameat|renameat2|unlink|unlinkat)\((.*)`)

// straced runs binary name under strace and returns the calls it made
// that matter for durability, in order, as "syscall args".
func (p *project) straced(t *testing.T, name, stdin string, args ...string) []string {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace): skipping the fsync check")
	}
	log := filepath.Join(t.TempDir(), "trace")
	c := p.cmd(name, nil, args...)
	c.Args = append([]string{strace, "-f", "-y", "-qq", "-e", "signal=none", "-o", log,
		"-e", "trace=fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat", "--", c.Path}, c.Args[1:]...)
	c.Path = strace
	c.Stdin = strings.NewReader(stdin)
	if out, err := c.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "ptrace") {
			t.Skipf("strace cannot trace here: %s", out)
		}
		t.Fatalf("%s under strace: %v\n%s", name, err, out)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, line := range strings.Split(string(data), "\n") {
		if m := traceLine.FindStringSubmatch(line); m != nil {
			calls = append(calls, m[1]+" "+m[2])
		}
	}
	return calls
}

// index returns the position of the first call at or after from that
// matches pattern, or -1.
func index(calls []string, from int, pattern string) int {
	re := regexp.MustCompile(pattern)
	for i := from; i < len(calls); i++ {
		if re.MatchString(calls[i]) {
			return i
		}
	}
	return -1
}

// wantDurableWrite requires, in order: fsync of the record's temp file,
// rename of that temp file onto the record, fsync of the task directory
// (D6: a success answer means the change survives a crash).
func wantDurableWrite(t *testing.T, calls []string, dir, id string) {
	t.Helper()
	tmp := regexp.QuoteMeta(filepath.Join(dir, "."+id+".json.tmp-"))
	rec := regexp.QuoteMeta(filepath.Join(dir, id+".json"))
	i := index(calls, 0, `^f(data)?sync \d+<`+tmp+`\d+>`)
	j := index(calls, max(i, 0), `^rename(at2?)? .*"`+tmp+`\d+".*"`+rec+`"`)
	k := index(calls, max(j, 0), `^f(data)?sync \d+<`+regexp.QuoteMeta(dir)+`>`)
	if i < 0 || j < 0 || k < 0 {
		t.Errorf("writing %s: want fsync(temp) < rename(temp, record) < fsync(dir), got positions %d %d %d in:\n%s",
			id, i, j, k, strings.Join(calls, "\n"))
	}
}

// TestFsync checks with strace that task-create and task-update sync the
// temp file before renaming it onto the record and sync the directory
// after, and that task-cleanup syncs the directory after unlinking.
// Skipped when strace is missing or cannot trace.
func TestFsync(t *testing.T) {
	p := newProject(t, filepath.Join(t.TempDir(), "proj"))
	p.create(`{"subject":"Make the directory"}`)
	dir := p.dir()

	calls := p.straced(t, "task-create", `{"subject":"Traced"}`)
	var id string
	for _, c := range calls {
		if m := regexp.MustCompile(`"` + regexp.QuoteMeta(dir) + `/(T-[^"/]+)\.json"`).FindStringSubmatch(c); m != nil && strings.HasPrefix(c, "rename") {
			id = m[1]
		}
	}
	if id == "" {
		t.Fatalf("task-create renamed no record:\n%s", strings.Join(calls, "\n"))
	}
	wantDurableWrite(t, calls, dir, id)

	calls = p.straced(t, "task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, id))
	wantDurableWrite(t, calls, dir, id)

	calls = p.straced(t, "task-cleanup", "")
	rec := regexp.QuoteMeta(filepath.Join(dir, id+".json"))
	// The record leaves its name by a rename to a claim name (judged, then
	// unlinked: docs/design/decisions.md, "Fencing: a late write cannot land") or an unlink, before the directory fsync.
	i := index(calls, 0, `^(unlink(at)? .*"`+rec+`"|rename(at2?)? .*"`+rec+`".*tmp-remove-)`)
	k := index(calls, max(i, 0), `^f(data)?sync \d+<`+regexp.QuoteMeta(dir)+`>`)
	if i < 0 || k < 0 {
		t.Errorf("task-cleanup: want unlink(record) < fsync(dir), got positions %d %d in:\n%s", i, k, strings.Join(calls, "\n"))
	}
}
