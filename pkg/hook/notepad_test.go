package hook

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func TestTaskCalls(t *testing.T) {
	tests := []struct {
		cmd            string
		create, update bool
	}{
		{"task-create --subject x", true, false},
		{"task-update T-1 --status completed", false, true},
		{"task-create < in.json | matrixx-hook notepad", true, false},
		{"task-create --subject a && task-update T-1 --status completed", true, true},
		{"/usr/local/bin/task-create", true, false},
		{`"$HOME/go/bin/task-create" --subject x`, true, false},
		{"'./bin/task-update' T-1", false, true},
		{`C:\tools\task-create.exe`, true, false},
		{"echo 'Creating task...' && task-create --subject X", true, false},
		{"x=$(task-create --subject a) && echo \"$x\"", true, false},
		{"echo \"$(task-update T-1 --status completed)\"", false, true},
		{"( cd sub && task-create )", true, false},
		{"if true; then task-create; fi", true, false},
		{"mk() { task-create --subject \"$1\"; }; mk a", true, false},
		{"env MATRIXX_SESSION_ID=s task-create", true, false},
		{"FOO=1 task-create", true, false},
		{"timeout 10 task-update T-1", false, true},
		{"nice -n 10 task-create", true, false},
		{"jq -c '.items[]' b.json | xargs -I{} task-create", true, false},
		{"sh -c 'task-create --subject x'", true, false},
		{"bash -ec \"task-update T-1 --status completed\"", false, true},
		{"env sh -c 'bash -c \"task-create\"'", true, false},
		{"time task-create", true, false},
		{"go run ./cmd/task-create < in.json", true, false},

		// mentions that run nothing
		{"task-list  # then decide what to task-create", false, false},
		{"task-list # task-update later", false, false},
		{"echo \"run task-create later\"; task-list", false, false},
		{"echo task-create", false, false},
		{"grep -rn task-update docs/", false, false},
		{"cat <<EOF\ntask-create\nEOF", false, false},
		{"man task-create", false, false},
		{"task-created", false, false},
		{"my-task-create", false, false},
		{"$TC --subject x", false, false},
		{"sh task-create.sh", false, false},
		{"sh -c \"$CMD\"", false, false},
		{"", false, false},

		// a line that does not parse: the statements before the error count
		{"task-create --subject a; if then", true, false},
		{"if then; task-create", false, false},
	}
	for _, tt := range tests {
		c, u := taskCalls(tt.cmd)
		if c != tt.create || u != tt.update {
			t.Errorf("taskCalls(%q) = %v, %v; want %v, %v", tt.cmd, c, u, tt.create, tt.update)
		}
	}
}

// writeTask stores a task record under dir's store.
func writeTask(t *testing.T, dir string, tk *task.Task) {
	t.Helper()
	b, err := task.Encode(tk)
	if err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, ".matrixx", "tasks")
	if err := os.MkdirAll(tasks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tasks, tk.ID+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hashWriter hashes what is written to it.
type hashWriter struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int
}

func (w *hashWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.h.Write(p)
}

// TestNotepadFilterStreams pipes 64 MiB through `matrixx-hook notepad`: a
// create answer first, junk, a completed update answer last. The output is
// the input byte for byte, both notepad actions happen, and the memory the
// filter allocates does not grow with its input (finding: the whole input
// was held, 60 MB → 355 MB RSS).
func TestNotepadFilterStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 64 MiB")
	}
	dir := t.TempDir()
	a := &task.Task{ID: "T-aaaa", Subject: "First", Status: task.Pending}
	b := &task.Task{ID: "T-bbbb", Subject: "Last", Status: task.Pending}
	writeTask(t, dir, a)
	writeTask(t, dir, b)
	input := func(junk int) io.Reader {
		return io.MultiReader(
			strings.NewReader(`{"tasks":[{"id":"T-aaaa","subject":"First"},{"id":"T-bbbb","subject":"Last"}],"errors":[]}`+"\n"),
			io.LimitReader(repeat("not an answer {\n"), int64(junk)),
			strings.NewReader("\n"+`{"task":{"id":"T-bbbb","subject":"Last","status":"completed"}}`+"\n"),
		)
	}
	measure := func(junk int) (alloc uint64, out *hashWriter) {
		out = &hashWriter{h: sha256.New()}
		r := &Runner{Env: testEnv(dir), Stdout: out, Stderr: io.Discard}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r.Run(Notepad, input(junk))
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, out
	}
	const junk = 64 << 20
	alloc, out := measure(junk)
	want := sha256.New()
	n, _ := io.Copy(want, input(junk))
	if out.n != int(n) || !bytes.Equal(out.h.Sum(nil), want.Sum(nil)) {
		t.Fatalf("output of %d bytes differs from the input of %d bytes", out.n, n)
	}
	first := filepath.Join(dir, ".matrixx", "notepads", "adhoc", "0-first.md")
	last := filepath.Join(dir, ".matrixx", "notepads", "adhoc", "1-last.md")
	if _, err := os.Stat(first); err != nil {
		t.Errorf("create answer in the head: %v", err)
	}
	if data, err := os.ReadFile(last); err != nil || !strings.Contains(string(data), "## Completion") {
		t.Errorf("update answer in the tail: %v\n%s", err, data)
	}
	t.Logf("allocated %d MiB for %d MiB of input", alloc>>20, n>>20)
	if bound := uint64(4 * (FilterHead + FilterTail)); alloc > bound {
		t.Errorf("allocated %d bytes for %d bytes of input, want under %d", alloc, n, bound)
	}
}

// TestNotepadFilterSmallInputs: input that fits whole is read whole, and
// an event is still recognised when it is large.
func TestNotepadFilterSmallInputs(t *testing.T) {
	dir := t.TempDir()
	writeTask(t, dir, &task.Task{ID: "T-cccc", Subject: "Mid", Status: task.Pending})
	// an answer in the middle of an input under head+tail
	in := strings.Repeat("x\n", 3<<20) + `{"tasks":[{"id":"T-cccc","subject":"Mid"}],"errors":[]}` + "\n" + strings.Repeat("y\n", 3<<20)
	var out bytes.Buffer
	r := &Runner{Env: testEnv(dir), Stdout: &out, Stderr: io.Discard}
	r.Run(Notepad, strings.NewReader(in))
	if out.String() != in {
		t.Fatalf("output differs (%d bytes, want %d)", out.Len(), len(in))
	}
	if _, err := os.Stat(filepath.Join(dir, ".matrixx", "notepads", "adhoc", "0-mid.md")); err != nil {
		t.Error(err)
	}
	// a hook event with a big field before hook_event_name: no output
	out.Reset()
	ev := `{"tool_response":{"stdout":"` + strings.Repeat("z", 10<<20) + `"},"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r = &Runner{Env: testEnv(dir), Stdout: &out, Stderr: io.Discard}
	r.Run(Notepad, strings.NewReader(ev))
	if out.Len() != len(ev) {
		// over FilterHead without an event member in it: passed through
		t.Errorf("output %d bytes, want the input passed through (%d)", out.Len(), len(ev))
	}
	out.Reset()
	ev = `{"session_id":"s","tool_response":{"stdout":"` + strings.Repeat("z", 10<<20) + `"},"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	r.Run(Notepad, strings.NewReader(ev))
	if out.Len() != 0 {
		t.Errorf("event: output %d bytes, want none", out.Len())
	}
}
