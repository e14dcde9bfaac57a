package t

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeBuildStampsTheRevision builds the binaries with make build, as a
// user does in a git checkout, and checks that --version names the commit
// (docs/design/decisions.md, "Version strings"), whatever GOFLAGS says about -buildvcs. Skipped
// outside a git checkout, without make or git, and with -short.
func TestMakeBuildStampsTheRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	for _, tool := range []string{"make", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	rev := strings.TrimSpace(string(out))[:12]
	bin := t.TempDir()
	build := exec.Command("make", "-C", root, "build", "BIN="+bin)
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	want := regexp.MustCompile(`^task-list (devel|v[0-9][^ ]*)\+` + rev + `(-dirty)?\n$`)
	got, err := exec.Command(filepath.Join(bin, "task-list"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !want.Match(got) {
		t.Fatalf("task-list --version = %q, want %s", got, want)
	}
}
