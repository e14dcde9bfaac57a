// Command waves is the README's demo: it runs the wave-planning example of
// the original's specification through the real task binaries in a fresh project directory and
// prints what is runnable after each wave.
//
//	go run ./examples/waves -bin bin [-dir DIR] [-keep]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type demo struct {
	bin string
	dir string
}

func main() {
	bin := flag.String("bin", "bin", "directory holding the built task-* binaries")
	dir := flag.String("dir", "", "project directory to use (default: a fresh temp dir)")
	keep := flag.Bool("keep", false, "keep the temp project directory")
	flag.Parse()
	if err := run(*bin, *dir, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(bin, dir string, keep bool) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "matrixx-demo-"); err != nil {
			return err
		}
		if !keep {
			defer os.RemoveAll(dir)
		}
	}
	d := &demo{bin: abs, dir: dir}
	fmt.Printf("# project: %s (store: .matrixx/tasks)\n\n", dir)

	fmt.Println("## Wave 1: independent tasks, created in one batch")
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

	fmt.Println("## Wave 2: integration tests wait for both")
	out, err = d.tool("task-create", fmt.Sprintf(`{"subject":"Integration tests","blockedBy":[%q,%q]}`, t1, t2))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, &created); err != nil || len(created.Tasks) != 1 {
		return fmt.Errorf("unexpected create answer: %s", out)
	}
	t3 := created.Tasks[0].ID
	for _, id := range []string{t1, t2} {
		if _, err := d.tool("task-update", fmt.Sprintf(`{"id":%q,"addBlocks":[%q]}`, id, t3)); err != nil {
			return err
		}
	}
	if err := d.runnable("before any work"); err != nil {
		return err
	}

	fmt.Println("## Execute wave 1 (in parallel in real life)")
	for _, id := range []string{t1, t2} {
		if _, err := d.tool("task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress","owner":"morpheus"}`, id)); err != nil {
			return err
		}
		if _, err := d.tool("task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, id)); err != nil {
			return err
		}
	}
	if err := d.runnable("after wave 1"); err != nil {
		return err
	}

	fmt.Println("## Execute wave 2")
	if _, err := d.tool("task-update", fmt.Sprintf(`{"id":%q,"status":"in_progress","owner":"morpheus"}`, t3)); err != nil {
		return err
	}
	if _, err := d.tool("task-update", fmt.Sprintf(`{"id":%q,"status":"completed"}`, t3)); err != nil {
		return err
	}
	if err := d.runnable("after wave 2"); err != nil {
		return err
	}

	fmt.Println("## Clean up finished tasks")
	_, err = d.tool("task-cleanup", "")
	return err
}

// tool runs one binary with input on stdin, echoing the call and answer.
func (d *demo) tool(name, input string) ([]byte, error) {
	if input == "" {
		fmt.Printf("$ %s\n", name)
	} else {
		fmt.Printf("$ echo '%s' | %s\n", input, name)
	}
	cmd := exec.Command(filepath.Join(d.bin, name))
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "MATRIXX_SESSION_ID=demo-session", "MATRIXX_PROJECT_DIR="+d.dir)
	cmd.Stdin = strings.NewReader(input)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	fmt.Printf("%s\n", bytes.TrimSpace(stdout.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return stdout.Bytes(), nil
}

// runnable prints task-list --ready as a short table.
func (d *demo) runnable(when string) error {
	cmd := exec.Command(filepath.Join(d.bin, "task-list"), "--ready")
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "MATRIXX_PROJECT_DIR="+d.dir)
	cmd.Stderr = os.Stderr
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
	fmt.Printf("\n>> runnable %s (task-list --ready): ", when)
	if len(list.Tasks) == 0 {
		fmt.Println("nothing, all done")
	} else {
		fmt.Println()
		for _, t := range list.Tasks {
			fmt.Printf("   %s  %s\n", t.ID, t.Subject)
		}
	}
	fmt.Println()
	return nil
}
