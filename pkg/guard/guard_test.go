package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func paths(field string, vals ...string) map[string][]string {
	return map[string][]string{field: vals}
}

func TestFileTools(t *testing.T) {
	const cwd = "/home/dev/proj"
	cases := []struct {
		name string
		req  Request
		deny bool
		want string // in the reason when denied
	}{
		{"Write plan", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/plans/auth-refresh.md")}, true, "plan create"},
		{"Write task", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/tasks/T-1.json")}, true, "task-update"},
		{"Write source", Request{Tool: "Write", Paths: paths("file_path", cwd+"/src/app.go")}, false, ""},
		{"Write notepad", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/notepads/adhoc/1-x.md")}, false, ""},
		{"Edit task", Request{Tool: "Edit", Paths: paths("file_path", cwd+"/.matrixx/tasks/T-1.json")}, true, ".matrixx/tasks/T-1.json"},
		{"Edit plan", Request{Tool: "Edit", Paths: paths("file_path", cwd+"/.matrixx/plans/p.md")}, true, "plan update"},
		{"Edit source", Request{Tool: "Edit", Paths: paths("file_path", cwd+"/src/app.go")}, false, ""},
		{"MultiEdit task", Request{Tool: "MultiEdit", Paths: paths("file_path", cwd+"/.matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json")}, true, "task-create"},
		{"MultiEdit plan", Request{Tool: "MultiEdit", Paths: paths("file_path", cwd+"/.matrixx/plans/p.md")}, true, ""},
		{"NotebookEdit store", Request{Tool: "NotebookEdit", Paths: paths("notebook_path", cwd+"/.matrixx/plans/a.ipynb")}, true, ""},
		{"NotebookEdit source", Request{Tool: "NotebookEdit", Paths: paths("notebook_path", cwd+"/analysis.ipynb")}, false, ""},
		{"Read plan", Request{Tool: "Read", Paths: paths("file_path", cwd+"/.matrixx/plans/auth-refresh.md")}, true, "plan read auth-refresh"},
		{"Read plans dir", Request{Tool: "Read", Paths: paths("file_path", cwd+"/.matrixx/plans")}, true, "plan list"},
		{"Read task", Request{Tool: "Read", Paths: paths("file_path", cwd+"/.matrixx/tasks/T-1.json")}, false, ""},
		{"Read source", Request{Tool: "Read", Paths: paths("file_path", cwd+"/src/app.go")}, false, ""},
		{"Grep plans", Request{Tool: "Grep", Paths: paths("path", cwd+"/.matrixx/plans")}, false, ""},
		{"Glob tasks", Request{Tool: "Glob", Paths: paths("path", cwd+"/.matrixx/tasks")}, false, ""},
		{"Write no paths", Request{Tool: "Write"}, false, ""},
		{"unknown builtin", Request{Tool: "TodoWrite"}, false, ""},

		// MCP file tools.
		{"mcp write_file task", Request{Tool: "mcp__filesystem__write_file", Paths: paths("path", cwd+"/.matrixx/tasks/T-1.json")}, true, "mcp__filesystem__write_file"},
		{"mcp edit_file plan", Request{Tool: "mcp__filesystem__edit_file", Paths: paths("path", ".matrixx/plans/p.md")}, true, ""},
		{"mcp create_directory", Request{Tool: "mcp__filesystem__create_directory", Paths: paths("path", cwd+"/.matrixx/tasks/sub")}, true, ""},
		{"mcp move_file source", Request{Tool: "mcp__filesystem__move_file", Paths: map[string][]string{"source": {cwd + "/.matrixx/tasks/T-1.json"}, "destination": {"/tmp/x.json"}}}, true, ""},
		{"mcp move_file destination", Request{Tool: "mcp__filesystem__move_file", Paths: map[string][]string{"source": {"/tmp/x.md"}, "destination": {cwd + "/.matrixx/plans/x.md"}}}, true, ""},
		{"mcp move .matrixx", Request{Tool: "mcp__fs__move_file", Paths: map[string][]string{"source": {cwd + "/.matrixx"}, "destination": {"/tmp/m"}}}, true, ""},
		{"mcp read_file plan", Request{Tool: "mcp__filesystem__read_file", Paths: paths("path", cwd+"/.matrixx/plans/p.md")}, true, "plan read p"},
		{"mcp read_text_file plan", Request{Tool: "mcp__filesystem__read_text_file", Paths: paths("path", cwd+"/.matrixx/plans/p.md")}, true, ""},
		{"mcp read_multiple_files", Request{Tool: "mcp__filesystem__read_multiple_files", Paths: paths("paths", cwd+"/src/a.go", cwd+"/.matrixx/plans/p.md")}, true, ""},
		{"mcp read_file task", Request{Tool: "mcp__filesystem__read_file", Paths: paths("path", cwd+"/.matrixx/tasks/T-1.json")}, false, ""},
		{"mcp list_directory plans", Request{Tool: "mcp__filesystem__list_directory", Paths: paths("path", cwd+"/.matrixx/plans")}, false, ""},
		{"mcp search_files", Request{Tool: "mcp__filesystem__search_files", Paths: paths("path", cwd+"/.matrixx")}, false, ""},
		{"mcp get_file_info", Request{Tool: "mcp__filesystem__get_file_info", Paths: paths("path", cwd+"/.matrixx/tasks/T-1.json")}, false, ""},
		{"mcp unknown tool", Request{Tool: "mcp__weird__frobnicate", Paths: paths("target", cwd+"/.matrixx/tasks/T-1.json")}, true, ""},
		{"mcp unknown tool reads plan", Request{Tool: "mcp__weird__frobnicate", Paths: paths("file", cwd+"/.matrixx/plans/p.md")}, true, ""},
		// A remote repository's .matrixx/plans cannot be told from the
		// local one by the path: denied (docs/guard.md, Limits).
		{"mcp github remote file", Request{Tool: "mcp__github__create_or_update_file", Paths: paths("path", ".matrixx/plans/p.md")}, true, ""},
		{"mcp write elsewhere", Request{Tool: "mcp__filesystem__write_file", Paths: paths("path", cwd+"/README.md")}, false, ""},
		{"mcp file uri", Request{Tool: "mcp__fs__write_file", Paths: paths("uri", "file://"+cwd+"/.matrixx/tasks/T-1.json")}, true, ""},
		{"mcp own task tool", Request{Tool: "mcp__matrixx__task_update", Paths: paths("path", cwd+"/.matrixx/tasks/T-1.json")}, false, ""},
		{"mcp own plan tool", Request{Tool: "mcp__matrixx__plan_update", Paths: paths("path", cwd+"/.matrixx/plans/p.md")}, false, ""},
		{"mcp shell command", Request{Tool: "mcp__desktop__execute_command", Command: "rm .matrixx/tasks/T-1.json"}, true, ""},
		{"opencode write", Request{Tool: "write", Paths: paths("filePath", cwd+"/.matrixx/tasks/T-1.json")}, true, ""},
		{"opencode read plan", Request{Tool: "read", Paths: paths("filePath", cwd+"/.matrixx/plans/p.md")}, true, ""},
		{"opencode bash", Request{Tool: "bash", Command: "rm .matrixx/tasks/T-1.json"}, true, ""},
		{"NotebookRead plan", Request{Tool: "NotebookRead", Paths: paths("notebook_path", cwd+"/.matrixx/plans/n.ipynb")}, true, ""},

		// Normalisation of tool paths.
		{"relative", Request{Tool: "Write", Paths: paths("file_path", ".matrixx/tasks/T-1.json")}, true, ""},
		{"dot-dot", Request{Tool: "Write", Paths: paths("file_path", cwd+"/src/../.matrixx/tasks/T-1.json")}, true, ""},
		{"dot-dot out", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/tasks/../notes.md")}, false, ""},
		{"double slashes", Request{Tool: "Edit", Paths: paths("file_path", cwd+"//.matrixx///plans//p.md")}, true, ""},
		{"dot segments", Request{Tool: "Edit", Paths: paths("file_path", cwd+"/./.matrixx/./tasks/T-1.json")}, true, ""},
		{"case", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.MATRIXX/Plans/P.md")}, true, ""},
		{"windows", Request{Tool: "Write", Cwd: `C:\Users\dev\proj`, Paths: paths("file_path", `C:\Users\dev\proj\.matrixx\tasks\T-1.json`)}, true, ""},
		{"windows relative", Request{Tool: "Edit", Cwd: `C:\Users\dev\proj`, Paths: paths("file_path", `.matrixx\plans\p.md`)}, true, ""},
		{"windows trailing dot", Request{Tool: "Write", Paths: paths("file_path", cwd+`\.matrixx.\tasks\T-1.json`)}, true, ""},
		{"lookalike dir", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx-old/tasks/T-1.json")}, false, ""},
		{"tasks elsewhere", Request{Tool: "Write", Paths: paths("file_path", cwd+"/tasks/T-1.json")}, false, ""},
		{"home tilde", Request{Tool: "mcp__fs__write_file", Home: "/home/dev", Paths: paths("path", "~/proj/.matrixx/tasks/T-1.json")}, true, ""},

		// MCP path fields by any name, relative to the tool's own cwd field.
		{"mcp relative_path", Request{Tool: "mcp__serena__replace_content", Paths: paths("relative_path", ".matrixx/plans/p.md")}, true, ""},
		{"mcp pathInProject", Request{Tool: "mcp__jetbrains__replace_text_in_file", Paths: paths("pathInProject", ".matrixx/tasks/T-1.json")}, true, ""},
		{"mcp absolute_path", Request{Tool: "mcp__x__save", Paths: paths("absolute_path", cwd+"/.matrixx/tasks/T-1.json")}, true, ""},
		{"mcp target_file", Request{Tool: "mcp__x__overwrite", Paths: paths("target_file", ".matrixx/plans/p.md")}, true, ""},
		{"mcp dest", Request{Tool: "mcp__x__copy", Paths: map[string][]string{"src": {"/tmp/x"}, "dest": {".matrixx/tasks/T-1.json"}}}, true, ""},
		{"mcp output_dir", Request{Tool: "mcp__x__export", Paths: paths("output_dir", ".matrixx/plans")}, true, ""},
		{"mcp cwd field", Request{Tool: "mcp__x__write_file", Paths: map[string][]string{"cwd": {cwd + "/.matrixx"}, "file": {"tasks/T-1.json"}}}, true, ""},
		{"mcp working_directory", Request{Tool: "mcp__x__edit", Paths: map[string][]string{"working_directory": {".matrixx/plans"}, "path": {"p.md"}}}, true, ""},
		{"mcp root elsewhere", Request{Tool: "mcp__x__write_file", Paths: map[string][]string{"root": {"/tmp/scratch"}, "path": {"tasks/T-1.json"}}}, false, ""},
		{"mcp exec cmd", Request{Tool: "mcp__desktop__start_process", Command: "rm -f .matrixx/tasks/T-1.json"}, true, ""},
		{"mcp exec cwd", Request{Tool: "mcp__shell__run_command", Command: "rm T-1.json", Paths: paths("cwd", cwd+"/.matrixx/tasks")}, true, ""},
		{"mcp exec cwd read", Request{Tool: "mcp__shell__run_command", Command: "cat T-1.json", Paths: paths("cwd", cwd+"/.matrixx/tasks")}, false, ""},
		{"mcp exec args", Request{Tool: "mcp__x__execute", Command: "rm", Args: []string{"-f", ".matrixx/plans/p.md"}}, true, ""},
		{"mcp exec argv", Request{Tool: "mcp__x__run_process", Args: []string{"rm", ".matrixx/tasks/T-1.json"}}, true, ""},
		{"mcp exec argv read", Request{Tool: "mcp__x__run_process", Args: []string{"cat", ".matrixx/tasks/T-1.json"}}, false, ""},
		{"mcp exec output file", Request{Tool: "mcp__x__run_script", Command: "make", Paths: paths("output_file", ".matrixx/tasks/log")}, true, ""},

		// The config and the hooks' state.
		{"Write project config", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/matrixx.jsonc")}, true, "user's to edit"},
		{"Edit project config json", Request{Tool: "Edit", Paths: paths("file_path", cwd+"/.matrixx/matrixx.json")}, true, "user's to edit"},
		{"Write state", Request{Tool: "Write", Paths: paths("file_path", cwd+"/.matrixx/state/continue-s.json")}, true, "hooks"},
		{"Read config", Request{Tool: "Read", Paths: paths("file_path", cwd+"/.matrixx/matrixx.jsonc")}, false, ""},
		{"Write user config", Request{Tool: "Write", Config: []string{"/home/dev/.cfg/oc/matrixx.jsonc"}, Paths: paths("file_path", "/home/dev/.cfg/oc/matrixx.jsonc")}, true, "user's to edit"},
		{"Write user config dir other file", Request{Tool: "Write", Config: []string{"/home/dev/.cfg/oc/matrixx.jsonc"}, Paths: paths("file_path", "/home/dev/.cfg/oc/other.json")}, false, ""},
		{"Write usual user config", Request{Tool: "Write", Paths: paths("file_path", "/home/dev/.config/opencode/matrixx.json")}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.req.Cwd == "" {
				c.req.Cwd = cwd
			}
			d := check(c.req)
			if d.Deny != c.deny {
				t.Fatalf("deny = %v, want %v: %+v", d.Deny, c.deny, d)
			}
			if c.deny && !strings.Contains(d.Reason, c.want) {
				t.Errorf("reason %q lacks %q", d.Reason, c.want)
			}
			if c.deny && !strings.HasPrefix(d.Rule, "tool:") && !strings.HasPrefix(d.Rule, "bash:") {
				t.Errorf("rule %q", d.Rule)
			}
		})
	}
}

func TestIsPathField(t *testing.T) {
	for _, f := range []string{"file_path", "notebook_path", "path", "paths", "filePath", "FILE_PATH", "file-path",
		"filename", "file", "files", "source", "destination", "target", "dest", "src", "dst", "directory",
		"old_path", "newPath", "uri", "output_path", "relative_path", "pathInProject", "absolute_path",
		"pathname", "target_file", "output_dir", "workdir", "cwd", "working_directory", "root", "rootPath",
		"project_root", "file.path", "destination_file_path_for_the_output"} {
		if !IsPathField(f) {
			t.Errorf("IsPathField(%q) = false", f)
		}
	}
	for _, f := range []string{"content", "new_string", "old_string", "command", "description", "pattern",
		"edits", "cell_id", "new_source", "timeout", "", "file_text", "file_content", "fileContents",
		"file_type", "file_id", "path_encoding", "redirect_url", "input",
		"a_very_long_field_name_that_is_not_a_path_at_all_because_it_is_longer_than_64_bytes"} {
		if IsPathField(f) {
			t.Errorf("IsPathField(%q) = true", f)
		}
	}
}

// TestSymlinks drives real symlinks in a temporary project: a link to a
// store, a link to a store file, a linked parent, and "..": all are
// resolved before matching.
func TestSymlinks(t *testing.T) {
	proj := t.TempDir()
	for _, d := range []string{".matrixx/tasks", ".matrixx/plans", "src"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, ".matrixx/plans/p.md"), []byte("# p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Skipf("symlinks not available: %v", err)
		}
	}
	link(".matrixx/tasks", "t")
	link(".matrixx/plans/p.md", "plan.md")
	link(".matrixx", "m")
	link(filepath.Join(proj, ".matrixx/plans"), "src/abs-plans")
	link("src", "s")

	cases := []struct {
		req  Request
		deny bool
	}{
		{Request{Tool: "Bash", Command: "echo x > t/T-1.json"}, true},
		{Request{Tool: "Bash", Command: "echo x > m/tasks/T-1.json"}, true},
		{Request{Tool: "Bash", Command: "sed -i s/a/b/ plan.md"}, true},
		{Request{Tool: "Bash", Command: "rm src/abs-plans/p.md"}, true},
		{Request{Tool: "Bash", Command: "cd src && echo x > abs-plans/new.md"}, true},
		{Request{Tool: "Bash", Command: "echo x > s/../t/T-2.json"}, true},
		{Request{Tool: "Bash", Command: "cat t/T-1.json"}, false},
		{Request{Tool: "Bash", Command: "echo x > s/new.go"}, false},
		{Request{Tool: "Write", Paths: paths("file_path", filepath.Join(proj, "t", "T-1.json"))}, true},
		{Request{Tool: "Edit", Paths: paths("file_path", filepath.Join(proj, "plan.md"))}, true},
		{Request{Tool: "Read", Paths: paths("file_path", filepath.Join(proj, "plan.md"))}, true},
		{Request{Tool: "Read", Paths: paths("file_path", filepath.Join(proj, "t", "T-1.json"))}, false},
		{Request{Tool: "Write", Paths: paths("file_path", filepath.Join(proj, "s", "x.go"))}, false},
	}
	for _, c := range cases {
		c.req.Cwd = proj
		d := check(c.req)
		if d.Deny != c.deny {
			t.Errorf("%s %q %v: deny = %v, want %v (%s)", c.req.Tool, c.req.Command, c.req.Paths, d.Deny, c.deny, d.Reason)
		}
		if d.Deny && !strings.Contains(d.Reason, "a link to") {
			t.Errorf("%s %q: reason does not say where the link leads: %s", c.req.Tool, c.req.Command, d.Reason)
		}
	}
}

// TestExtra: a task store moved by tasks.storage_path is guarded like
// .matrixx/tasks, through every channel.
func TestExtra(t *testing.T) {
	extra := []string{"/home/dev/.config/opencode/tasks/proj"}
	cases := []struct {
		req  Request
		deny bool
	}{
		{Request{Tool: "Write", Paths: paths("file_path", "/home/dev/.config/opencode/tasks/proj/T-1.json")}, true},
		{Request{Tool: "Write", Paths: paths("file_path", "/HOME/dev/.config/opencode/tasks/proj/T-1.json")}, true},
		{Request{Tool: "Read", Paths: paths("file_path", "/home/dev/.config/opencode/tasks/proj/T-1.json")}, false},
		{Request{Tool: "Write", Paths: paths("file_path", "/home/dev/.config/opencode/tasks/projx/T-1.json")}, false},
		{Request{Tool: "Bash", Command: "rm ~/.config/opencode/tasks/proj/T-1.json"}, true},
		{Request{Tool: "Bash", Command: "echo x > $HOME/.config/opencode/tasks/proj/T-1.json"}, true},
		{Request{Tool: "Bash", Command: "cd ~/.config/opencode/tasks/proj && rm T-1.json"}, true},
		{Request{Tool: "Bash", Command: "cat ~/.config/opencode/tasks/proj/T-1.json"}, false},
		{Request{Tool: "Bash", Command: `python3 -c "open('/home/dev/.config/opencode/tasks/proj/T-1.json','w')"`}, true},
	}
	for _, c := range cases {
		c.req.Cwd, c.req.Home, c.req.Extra = "/home/dev/proj", "/home/dev", extra
		d := check(c.req)
		if d.Deny != c.deny {
			t.Errorf("%s %q %v: deny = %v, want %v (%s)", c.req.Tool, c.req.Command, c.req.Paths, d.Deny, c.deny, d.Reason)
		}
		if d.Deny && !strings.Contains(d.Reason, "task-update") {
			t.Errorf("reason %q", d.Reason)
		}
	}
}

// TestCwdInStore: when the event's cwd is inside a store, relative writes
// land in it.
func TestCwdInStore(t *testing.T) {
	cases := []struct {
		cwd, cmd string
		deny     bool
	}{
		{testCwd + "/.matrixx/tasks", "rm T-1.json", true},
		{testCwd + "/.matrixx/tasks", "echo '{}' > T-9.json", true},
		{testCwd + "/.matrixx/tasks", "ls | xargs rm", true},
		{testCwd + "/.matrixx/tasks", `python3 -c "open('T-1.json','w').write('{}')"`, true},
		{testCwd + "/.matrixx/plans", "sed -i s/a/b/ *.md", true},
		{testCwd + "/.matrixx", "rm -rf tasks", true},
		{testCwd + "/.matrixx", "rm -rf *", true},
		{testCwd, "rm -rf *", false}, // "*" does not match the dot directory .matrixx
		{testCwd + "/.matrixx/tasks", "cat T-1.json", false},
		{testCwd + "/.matrixx/tasks", "ls -la", false},
		{testCwd + "/.matrixx/tasks", "echo x > /tmp/out", false},
		{testCwd + "/.matrixx/tasks", "cd ../.. && rm -rf build", false},
		{testCwd + "/.matrixx/tasks", "task-update --id T-1 --status completed", false},
		{testCwd + "/.matrixx/plans", "plan read p", false},
		{testCwd + "/.matrixx/plans", "cat p.md", false},
	}
	for _, c := range cases {
		d := check(Request{Tool: "Bash", Cwd: c.cwd, Command: c.cmd})
		if d.Deny != c.deny {
			t.Errorf("cwd %s: %q: deny = %v, want %v (%s)", c.cwd, c.cmd, d.Deny, c.deny, d.Reason)
		}
	}
}

func TestEmptyAndUnknown(t *testing.T) {
	for _, req := range []Request{
		{},
		{Tool: "Bash"},
		{Tool: "Bash", Command: "   \n"},
		{Tool: "Bash", Command: "rm .matrixx/tasks/T-1.json"[:2]},
		{Tool: "WebFetch", Paths: paths("url", "https://x")},
		{Tool: "Task"},
	} {
		if d := Check(req); d != (Decision{}) {
			t.Errorf("%+v: %+v, want no opinion", req, d)
		}
	}
}

// TestPanicFailsClosed: a panic inside the analysis is recovered; the
// answer then follows the raw rule.
func TestPanicFailsClosed(t *testing.T) {
	// A nil Paths entry cannot panic, so provoke the fallback directly.
	if d := failClosed(Request{Tool: "Bash", Command: "echo x > .matrixx/tasks/T-1.json"}); !d.Deny || d.Rule != "panic" {
		t.Errorf("raw store write: %+v", d)
	}
	if d := failClosed(Request{Tool: "Bash", Command: "echo see .matrixx/tasks"}); d.Deny {
		t.Errorf("raw mention without write: %+v", d)
	}
	if d := failClosed(Request{Tool: "Write", Cwd: "/p", Paths: paths("file_path", ".matrixx/plans/x.md")}); !d.Deny {
		t.Errorf("tool write: %+v", d)
	}
	if d := failClosed(Request{Tool: "Read", Cwd: "/p", Paths: paths("file_path", ".matrixx/tasks/x.json")}); d.Deny {
		t.Errorf("tool read of a task: %+v", d)
	}
}

func TestSuspicious(t *testing.T) {
	e := &env{}
	for _, c := range []struct {
		cmd string
		ok  bool
	}{
		{`echo "x > .matrixx/tasks/T-1.json`, true},
		{`sed -i 's/a/b' .MATRIXX\TASKS\T-1.json "`, true},
		{`python3 -c "open('.matrixx/plans/p.md'`, true},
		{`cat .matrixx/tasks/T-1.json "`, false},
		{`echo "see .matrixx/plans`, false},
		{`rm x "`, false},
	} {
		if _, ok := e.suspicious(c.cmd); ok != c.ok {
			t.Errorf("suspicious(%q) = %v, want %v", c.cmd, ok, c.ok)
		}
	}
}

// TestDeepNesting: absurd nesting is not parsed (it would cost the parser
// seconds and stack); the raw rule decides, quickly.
func TestDeepNesting(t *testing.T) {
	for _, pat := range [][2]string{{"(", ")"}, {"$(", ")"}, {"{ ", ";}"}, {"${a:-", "}"}} {
		cmd := strings.Repeat(pat[0], 200000) + "rm .matrixx/tasks/x" + strings.Repeat(pat[1], 200000)
		if d := Check(Request{Tool: "Bash", Cwd: testCwd, Command: cmd}); !d.Deny || d.Rule != "bash:parse" {
			t.Errorf("%q×200000: %+v", pat[0], d)
		}
		cmd = strings.Repeat(pat[0], 200000) + "ls" + strings.Repeat(pat[1], 200000)
		if d := Check(Request{Tool: "Bash", Cwd: testCwd, Command: cmd}); d.Deny {
			t.Errorf("%q×200000 around ls: %+v", pat[0], d)
		}
	}
}

// TestGitClean: git clean without a pathspec in a directory holding
// .matrixx would delete untracked stores.
func TestGitClean(t *testing.T) {
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".matrixx", "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cwd, cmd string
		deny     bool
	}{
		{proj, "git clean -fdx", true},
		{proj, "git clean -fd .", true},
		{proj, "git -C " + proj + " clean -ffdx", true},
		{proj, "git clean -fdx -e .matrixx", false},
		{proj, "git clean -n -fdx", false},
		{proj, "git clean -fdxn", false},
		{proj, "git clean --dry-run -fdx", false},
		{proj, "git clean -fd", true}, // .matrixx is not ignored here
		{proj, "git clean -fdX", false},
		{proj, "git clean -fd src", false},
		{filepath.Join(proj, "src"), "git clean -fdx", false},
		{proj, "cd src && git clean -fdx", false},
	} {
		d := check(Request{Tool: "Bash", Cwd: c.cwd, Command: c.cmd})
		if d.Deny != c.deny {
			t.Errorf("cwd %s: %q: deny = %v, want %v (%s)", c.cwd, c.cmd, d.Deny, c.deny, d.Reason)
		}
	}
}

// TestLargeCommands: commands near the 1 MiB cap that would cost
// quadratic time in a naive analysis (words of many parts, many scopes
// over many variables, many -exec targets) are decided, denied where
// they write a store.
func TestLargeCommands(t *testing.T) {
	for _, c := range []struct {
		name string
		cmd  string
		deny bool
	}{
		{"many parts", "echo x > " + strings.Repeat("$a", 200000) + "/.matrixx/tasks/T-1.json", true},
		{"many brace parts", "echo " + strings.Repeat("{a,b}", 100000) + " > .matrixx/plans/p.md", true},
		{"scopes over variables", strings.Repeat("v=1; ", 20000) + strings.Repeat("(:); ", 20000) + "rm .matrixx/tasks/T-1.json", true},
		{"many exec targets", "find " + strings.Repeat("a ", 100000) + strings.Repeat("-exec rm {} \\; ", 1000), false},
		{"many mentions", strings.Repeat("cat .matrixx/tasks/T-1.json; ", 20000) + "ls | xargs echo", false},
	} {
		d := check(Request{Tool: "Bash", Cwd: testCwd, Command: c.cmd})
		if d.Deny != c.deny {
			t.Errorf("%s: deny = %v, want %v (%s)", c.name, d.Deny, c.deny, d.Reason)
		}
	}
}
