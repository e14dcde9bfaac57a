package t

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

// TestPorcelainInTmux drives matrixx in a real terminal (a tmux pane 50
// columns wide): on the terminal it colours by status and fits the width,
// NO_COLOR turns colour off, and in a pipe it neither colours nor cuts.
// Without tmux it skips, except under CI=true, where it fails.
func TestPorcelainInTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: tmux is not installed (.ci/run installs it with apt-get)")
		}
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "../cmd/matrixx")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building matrixx: %v\n%s", err, out)
	}
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	long := "Write the release notes for every change since the last release"
	for _, s := range []string{"Build backend", long} {
		cmd := exec.Command(filepath.Join(bin, "matrixx"), "add", s)
		cmd.Env = append(os.Environ(), "MATRIXX_PROJECT_DIR="+proj)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("matrixx add: %v\n%s", err, out)
		}
	}

	socket := fmt.Sprintf("matrixx-test-%d", os.Getpid())
	tm := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	shell := fmt.Sprintf("env -i HOME=%s PATH=%s:/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8 MATRIXX_PROJECT_DIR=%s HISTFILE= PS1='$ ' bash --norc --noprofile", dir, bin, proj)
	tm("new-session", "-d", "-s", "t", "-x", "50", "-y", "30", shell)
	defer exec.Command(tmux, "-L", socket, "kill-server").Run()

	// run types a command line, waits for its end marker and returns the
	// pane's text (with escapes when esc) between the line and the marker.
	n := 0
	run := func(line string, esc bool) string {
		t.Helper()
		n++
		tm("send-keys", "-t", "t", "clear", "Enter")
		marker := fmt.Sprintf("END%d", n)
		tm("send-keys", "-t", "t", line+"; echo E''ND"+fmt.Sprint(n), "Enter")
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(tm("capture-pane", "-p", "-t", "t"), "\n"+marker+"\n") {
			if time.Now().After(deadline) {
				t.Fatalf("%q did not finish; pane:\n%s", line, tm("capture-pane", "-p", "-t", "t"))
			}
			time.Sleep(50 * time.Millisecond)
		}
		args := []string{"capture-pane", "-p", "-t", "t"}
		if esc {
			args = append(args, "-e")
		}
		var out []string
		in := false
		for _, l := range strings.Split(tm(args...), "\n") {
			switch {
			case strings.Contains(l, "E''ND"):
				in = true
			case strings.Contains(l, marker):
				return strings.Join(out, "\n")
			case in:
				out = append(out, l)
			}
		}
		t.Fatalf("%q: output not found in the pane", line)
		return ""
	}

	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	out := run("matrixx ls", true)
	if !strings.Contains(out, "\x1b[36m") {
		t.Errorf("on a terminal, pending tasks are not coloured (cyan):\n%q", out)
	}
	plain := sgr.ReplaceAllString(out, "")
	if !strings.Contains(plain, "Write the release") || strings.Contains(plain, long) || !strings.Contains(plain, "…") {
		t.Errorf("the long subject is not cut to the 50-column width with an ellipsis:\n%s", plain)
	}
	for _, l := range strings.Split(plain, "\n") {
		if w := runewidth.StringWidth(strings.TrimRight(l, " ")); w > 50 {
			t.Errorf("line wider than the pane (%d > 50): %q", w, l)
		}
	}

	if out := run("NO_COLOR=1 matrixx ls", true); sgr.MatchString(out) {
		t.Errorf("NO_COLOR=1: colour escapes in the output:\n%q", out)
	}
	if out := run("matrixx ls --color=never", true); sgr.MatchString(out) {
		t.Errorf("--color=never: colour escapes in the output:\n%q", out)
	}
	// A pipe is not a terminal: no colour, no width limit (the pane wraps the line).
	out = run("matrixx ls | cat", true)
	if sgr.MatchString(out) {
		t.Errorf("in a pipe: colour escapes in the output:\n%q", out)
	}
	if joined := strings.ReplaceAll(out, "\n", ""); !strings.Contains(joined, long) {
		t.Errorf("in a pipe the subject is cut:\n%s", out)
	}
	// ASCII where the locale is not UTF-8.
	if out := run("LANG=C matrixx ls --color=never", false); strings.Contains(out, "○") || !strings.Contains(out, "o pending") {
		t.Errorf("LANG=C: not ASCII:\n%s", out)
	}
}
