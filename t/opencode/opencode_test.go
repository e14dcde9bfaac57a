// Package opencode proves the OpenCode plugin (integrations/opencode) two
// ways: TestPlugin runs its node tests (matrixx.test.mjs, node --test)
// through OpenCode's plugin API against freshly built binaries;
// TestOpenCodeCLI runs the real OpenCode CLI with the plugin installed
// (docs/hosts.md).
package opencode

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/t/hostkit"
)

func TestPlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "node is not installed: the OpenCode plugin test needs Node.js >= 20"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := t.TempDir()
	if err := hostkit.Build(bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--test", filepath.Join("integrations", "opencode", "matrixx.test.mjs"))
	cmd.Dir = hostkit.RepoRoot()
	cmd.Env = hostkit.Env("MATRIXX_BIN_DIR="+bin, "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
