package t

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/matrixx-dev/matrixx-tasks/"

// goList runs go list -f '{{.ImportPath}}|{{join .Imports ","}}|{{join
// .Deps ","}}' on pkgs (from the module's root) and returns each
// package's direct imports and its whole dependency closure.
func goList(t *testing.T, pkgs ...string) (imports, deps map[string][]string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`}, pkgs...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports, deps = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		imports[f[0]], deps[f[0]] = strings.Split(f[1], ","), strings.Split(f[2], ",")
	}
	return imports, deps
}

// TestBinariesLinkOnlyWhatTheyNeed: the task binaries link neither the
// shell parser (the guard's) nor the MCP SDK, matrixx-hook links no MCP
// SDK, and the packages the binaries' mains import are leaves: none
// depends on another (the front ends share the operations of pkg/ops,
// never each other).
func TestBinariesLinkOnlyWhatTheyNeed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	imports, deps := goList(t, "./cmd/...")
	const shell, mcp = "mvdan.cc/sh/", "github.com/modelcontextprotocol/go-sdk/"
	has := func(bin, prefix string) bool {
		return slices.ContainsFunc(deps[module+"cmd/"+bin], func(d string) bool { return strings.HasPrefix(d, prefix) })
	}
	for _, bin := range []string{"task-get", "task-create", "task-list", "task-update"} {
		if _, ok := deps[module+"cmd/"+bin]; !ok {
			t.Fatalf("go list did not list cmd/%s", bin)
		}
		for _, p := range []string{shell, mcp} {
			if has(bin, p) {
				t.Errorf("%s links %s…", bin, p)
			}
		}
	}
	if has("matrixx-hook", mcp) {
		t.Errorf("matrixx-hook links %s…", mcp)
	}

	var fronts []string
	for _, ims := range imports {
		for _, p := range ims {
			if strings.HasPrefix(p, module) && !slices.Contains(fronts, p) {
				fronts = append(fronts, p)
			}
		}
	}
	slices.Sort(fronts)
	_, frontDeps := goList(t, fronts...)
	for _, f := range fronts {
		for _, other := range fronts {
			if other != f && slices.Contains(frontDeps[f], other) {
				t.Errorf("%s (a main's package) depends on %s, another main's package: front ends share pkg/ops, never each other", strings.TrimPrefix(f, module), strings.TrimPrefix(other, module))
			}
		}
	}
}

// TestSchemaImportsNoFrontEnd: pkg/schema describes the documents from the
// contract's and the domain's types: it depends on no front end (pkg/cli…,
// pkg/hook), not on the operations (pkg/ops) and not on the sync's
// machinery (pkg/tasksync), whose answers live in pkg/contract.
func TestSchemaImportsNoFrontEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	_, deps := goList(t, "./pkg/schema")
	for _, p := range deps[module+"pkg/schema"] {
		for _, bad := range []string{"pkg/cli", "pkg/hook", "pkg/tasksync", "pkg/ops", "pkg/mcpserver", "pkg/porcelain"} {
			if p == module+bad || strings.HasPrefix(p, module+bad+"/") {
				t.Errorf("pkg/schema depends on %s", strings.TrimPrefix(p, module))
			}
		}
	}
}
