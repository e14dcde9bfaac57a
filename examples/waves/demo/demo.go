// Package demo is the README's demo (make demo, examples/waves): it runs
// the wave-planning example through the real task binaries in a fresh
// project directory and prints what is runnable after each wave. Work
// starts as the agent guides say: task-claim takes the task (with a
// lease), task-update completes it under the claim's owner.
package demo

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type demo struct {
	bin     string // "" : the binaries on PATH
	dir     string
	w, errw io.Writer
}

// Main runs the demo with args (-bin DIR, -dir DIR, -keep) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("waves", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("bin", "bin", "directory holding the built task-* binaries (\"\": those on PATH)")
	dir := fs.String("dir", "", "project directory to use (default: a fresh temp dir)")
	keep := fs.Bool("keep", false, "keep the temp project directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := run(stdout, stderr, *bin, *dir, *keep); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return 1
	}
	return 0
}

// path is the binary name to run.
func (d *demo) path(name string) string {
	if d.bin == "" {
		return name
	}
	return filepath.Join(d.bin, name)
}

// work claims id for morpheus with task-claim and completes it, guarded
// by the owner (a worker whose claim was taken over cannot complete it).
func (d *demo) work(id string) error {
	if _, err := d.tool("task-claim", fmt.Sprintf(`{"id":%q,"owner":"morpheus"}`, id)); err != nil {
		return err
	}
	_, err := d.tool("task-update", fmt.Sprintf(`{"id":%q,"status":"completed","expect":{"owner":"morpheus"}}`, id))
	return err
}

func run(w io.Writer, errw io.Writer, bin, dir string, keep bool) error {
	abs := ""
	if bin != "" {
		var err error
		if abs, err = filepath.Abs(bin); err != nil {
			return err
		}
	}
	var err error
	if dir == "" {
		if dir, err = os.MkdirTemp("", "matrixx-demo-"); err != nil {
			return err
		}
		if !keep {
			defer os.RemoveAll(dir)
		}
	}
	// .matrixx/ marks the project root: the store is made where it is meant.
	if err := os.MkdirAll(filepath.Join(dir, ".matrixx"), 0o755); err != nil {
		return err
	}
	d := &demo{bin: abs, dir: dir, w: w, errw: errw}
	fmt.Fprintf(d.w, "# project: %s (store: .matrixx/tasks)\n\n", dir)

	fmt.Fprintln(d.w, "## Wave 1: independent tasks, created in one batch")
	out, err := d.tool("task-create", `{"items":[{"subject":"Build frontend"},{"subject":"Build backend"}]}`)
	if err != nil {
		return err
	}
	var created struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if err := json.Unmarshal(out, &created); err != nil || len(created.Tasks) != 2 {
		return fmt.Errorf("unexpected create answer: %s", out)
	}
	t1, t2 := created.Tasks[0].ID, created.Tasks[1].ID

	fmt.Fprintln(d.w, "## Wave 2: integration tests wait for both")
	out, err = d.tool("task-create", fmt.Sprintf(`{"subject":"Integration tests","blockedBy":[%q,%q]}`, t1, t2))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, &created); err != nil || len(created.Tasks) != 1 {
		return fmt.Errorf("unexpected create answer: %s", out)
	}
	t3 := created.Tasks[0].ID
	if err := d.runnable("before any work"); err != nil {
		return err
	}

	fmt.Fprintln(d.w, "## Execute wave 1 (in parallel in real life)")
	for _, id := range []string{t1, t2} {
		if err := d.work(id); err != nil {
			return err
		}
	}
	if err := d.runnable("after wave 1"); err != nil {
		return err
	}

	fmt.Fprintln(d.w, "## Execute wave 2")
	if err := d.work(t3); err != nil {
		return err
	}
	if err := d.runnable("after wave 2"); err != nil {
		return err
	}

	fmt.Fprintln(d.w, "## Clean up finished tasks")
	_, err = d.tool("task-cleanup", "")
	return err
}

// tool runs one binary with input on stdin, echoing the call and answer.
func (d *demo) tool(name, input string) ([]byte, error) {
	if input == "" {
		fmt.Fprintf(d.w, "$ %s\n", name)
	} else {
		fmt.Fprintf(d.w, "$ echo '%s' | %s\n", input, name)
	}
	cmd := exec.Command(d.path(name))
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "MATRIXX_SESSION_ID=demo-session", "MATRIXX_PROJECT_DIR="+d.dir)
	cmd.Stdin = strings.NewReader(input)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = d.errw
	err := cmd.Run()
	fmt.Fprintf(d.w, "%s\n", bytes.TrimSpace(stdout.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return stdout.Bytes(), nil
}

// runnable prints task-list --ready as a short table.
func (d *demo) runnable(when string) error {
	cmd := exec.Command(d.path("task-list"), "--ready")
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "MATRIXX_PROJECT_DIR="+d.dir)
	cmd.Stderr = d.errw
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("task-list --ready: %w", err)
	}
	var list struct {
		Tasks []struct {
			ID, Subject string
		} `json:"tasks"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return err
	}
	fmt.Fprintf(d.w, "\n>> runnable %s (task-list --ready): ", when)
	if len(list.Tasks) == 0 {
		fmt.Fprintln(d.w, "nothing, all done")
	} else {
		fmt.Fprintln(d.w)
		for _, t := range list.Tasks {
			fmt.Fprintf(d.w, "   %s  %s\n", t.ID, t.Subject)
		}
	}
	fmt.Fprintln(d.w)
	return nil
}
