package guard

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDanglingLinks: a write through a link whose target does not exist
// yet creates the target; a link pointing into a store (made in an
// earlier call, or committed to the repository) or onto a config file
// that is written next is seen through. Removing the link itself, and
// links that lead elsewhere, pass.
func TestDanglingLinks(t *testing.T) {
	proj := project(t, "")
	for link, target := range map[string]string{
		"newtask":  ".matrixx/tasks/T-new.json",
		"plannew":  ".matrixx/plans/new.md",
		"cfg":      ".matrixx/matrixx.json", // the project has matrixx.jsonc only
		"chain":    "newtask2",
		"newtask2": "./.matrixx/tasks/T-chain.json",
		"absplan":  filepath.Join(proj, ".matrixx/plans/abs.md"),
		"docs-out": "/nonexistent-guard-test/out.md",
		"src/up":   "../.matrixx/tasks/T-up.json",
	} {
		if err := os.Symlink(target, filepath.Join(proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{`echo '{}' > newtask`, true},
		{`cp /tmp/t.json newtask`, true},
		{`tee plannew <<< x`, true},
		{`echo '{"disabled_hooks":["task-edit-guard"]}' > cfg`, true},
		{`printf x >> chain`, true},
		{`touch absplan`, true},
		{`cd src && echo x > up`, true},
		{`sed -i s/a/b/ newtask`, true},
		{`rm newtask`, false}, // rm removes the link itself
		{`ls -l newtask plannew`, false},
		{`echo hi > docs-out`, false},
		{`echo hi > notes.md`, false},
	} {
		d := check(Request{Tool: "Bash", Cwd: proj, Command: c.cmd})
		if d.Deny != c.deny {
			t.Errorf("%q: deny = %v, want %v (%s)", c.cmd, d.Deny, c.deny, d.Reason)
		}
	}
	for _, c := range []struct {
		tool, path string
		deny       bool
	}{
		{"Write", "newtask", true},
		{"Edit", filepath.Join(proj, "plannew"), true},
		{"Write", "cfg", true},
		{"Write", "chain", true},
		{"Write", "docs-out", false},
		{"mcp__fs__write_file", "src/up", true},
	} {
		d := check(Request{Tool: c.tool, Cwd: proj, Paths: map[string][]string{"file_path": {c.path}}})
		if d.Deny != c.deny {
			t.Errorf("%s %q: deny = %v, want %v (%s)", c.tool, c.path, d.Deny, c.deny, d.Reason)
		}
	}
}

// TestOddSpellings: file tool paths that reach a store by spellings a
// server or the file system may accept: URIs with a host or without
// slashes, percent-encoded dots and slashes, Windows 8.3 short names and
// device prefixes; and LooseValue, the values of fields that are not
// path fields.
func TestOddSpellings(t *testing.T) {
	cwd := testCwd
	for _, c := range []struct {
		path string
		deny bool
	}{
		{"file:///nonexistent-guard-test/proj/%2Ematrixx/tasks/T-1.json", true},
		{"file:///nonexistent-guard-test/proj/.matrixx%2Fplans%2Fp.md", true},
		{"file://localhost/nonexistent-guard-test/proj/.matrixx/tasks/T-1.json", true},
		{"FILE:/nonexistent-guard-test/proj/.matrixx/tasks/T-1.json", true},
		{"file:.matrixx/plans/p.md", true},
		{"%2Ematrixx/tasks/T-1.json", true},
		{`C:\proj\MATRIX~1\tasks\T-1.json`, true},
		{`C:\proj\.matrixx\MATRIX~1.JSO`, true},
		{`\\?\C:\proj\.matrixx\tasks\T-1.json`, true},
		{"./.matrixx/./tasks//T-1.json/", true},
		{"file:///nonexistent-guard-test/proj/docs/%2Ematrixx.md", false},
		{`C:\proj\PROGRA~1\x.json`, false},
		{"50%25-done.md", false},
	} {
		d := check(Request{Tool: "Write", Cwd: cwd, Paths: map[string][]string{"file_path": {c.path}}})
		if d.Deny != c.deny {
			t.Errorf("Write %q: deny = %v, want %v (%s)", c.path, d.Deny, c.deny, d.Reason)
		}
	}
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"to", ".matrixx/tasks/T-1.json", true},
		{"targetUri", "file:///p/.matrixx/plans/p.md", true},
		{"newName", "/home/me/My Project/.matrixx/tasks/T-1.json", true},
		{"ref", "C:\\p\\.matrixx\\tasks", true},
		{"to", "src/a.go", false},
		{"message", ".matrixx/tasks/T-1.json", false},
		{"new_string", ".matrixx/tasks/T-1.json", false},
		{"label", "update .matrixx/tasks/T-1.json", false},
		{"to", ".matrixx/tasks/T-1.json\nmore", false},
		{"url", "https://github.com/o/r/blob/main/.matrixx/plans/p.md", false},
		{"uri", "file:///p/.matrixx/plans/p.md", true},
	} {
		if got := LooseValue(c.name, c.value); got != c.want {
			t.Errorf("LooseValue(%q, %q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}
