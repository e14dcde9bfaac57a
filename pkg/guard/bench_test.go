package guard

import "testing"

// BenchmarkCheck measures one decision on typical PreToolUse events.
func BenchmarkCheck(b *testing.B) {
	events := []struct {
		name string
		req  Request
	}{
		{"Bash/read", Request{Tool: "Bash", Cwd: testCwd, Command: `git status && go test ./... 2>&1 | tail -20`}},
		{"Bash/store-read", Request{Tool: "Bash", Cwd: testCwd, Command: `jq -r '.status' .matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json`}},
		{"Bash/redirect", Request{Tool: "Bash", Cwd: testCwd, Command: `go build ./... > /tmp/build.log 2>&1`}},
		{"Bash/deny", Request{Tool: "Bash", Cwd: testCwd, Command: `sed -i 's/pending/completed/' .matrixx/tasks/T-2a200c59-1a36-4dad-a9c3-3064d180f694.json`}},
		{"Bash/heredoc", Request{Tool: "Bash", Cwd: testCwd, Command: "cat > src/app.go <<'EOF'\npackage main\n\nfunc main() {\n\tprintln(\"hi\")\n}\nEOF"}},
		{"Write/source", Request{Tool: "Write", Cwd: testCwd, Paths: map[string][]string{"file_path": {testCwd + "/src/app.go"}}}},
		{"Write/deny", Request{Tool: "Write", Cwd: testCwd, Paths: map[string][]string{"file_path": {testCwd + "/.matrixx/plans/auth-refresh.md"}}}},
	}
	// As the dispatcher sends them: with the config files and the
	// state directory of a project.
	hook := func(r Request) Request {
		r.Config = []string{testCwd + "/.matrixx/matrixx.jsonc", testCwd + "/.matrixx/matrixx.json",
			"/nonexistent-guard-test/home/.config/opencode/matrixx.jsonc", "/nonexistent-guard-test/home/.config/opencode/matrixx.json"}
		r.State = []string{testCwd + "/.matrixx/state"}
		return r
	}
	events = append(events,
		struct {
			name string
			req  Request
		}{"Hook/Bash/read", hook(events[0].req)},
		struct {
			name string
			req  Request
		}{"Hook/Write/source", hook(events[5].req)},
	)
	for _, ev := range events {
		b.Run(ev.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Check(ev.req)
			}
		})
	}
}
