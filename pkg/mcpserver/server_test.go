package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// testEnv is an isolated environment whose working directory is wd.
func testEnv(t *testing.T, wd string) project.Env {
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "OPENCODE_CONFIG_DIR": filepath.Join(home, "oc")}
	return project.Env{
		Getenv: func(k string) string { return vars[k] },
		Getwd:  func() (string, error) { return wd, nil },
		Home:   func() (string, error) { return home, nil },
	}
}

func newRoot(t *testing.T) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// connect starts a server with opts and returns a connected SDK client
// (with roots, when given).
func connect(t *testing.T, opts Options, roots ...string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(opts).MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	for _, r := range roots {
		c.AddRoots(&mcp.Root{URI: "file://" + r})
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls tool with args (a JSON object) and returns the text answer.
func call(t *testing.T, cs *mcp.ClientSession, tool, args string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: protocol error %v", tool, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", tool, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil || !jsonEqual(sc, []byte(text)) {
		t.Errorf("%s: structuredContent %s differs from the text %s", tool, sc, text)
	}
	return text, res.IsError
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// binaryMain is a binary's function (cli.TaskGet, cli.Plan, …).
type binaryMain func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// binary runs main in this process as if it had been started in env: the
// process's variables set to env's (PATH kept), its working directory
// env's (t.Setenv and t.Chdir put both back; the test is not parallel),
// stdin a reader as a pipe would be. It returns the binary's stdout
// (trimmed) and exit status, and puts back the garbage collector's
// settings a short-lived binary changes for itself.
func binary(t *testing.T, env project.Env, main binaryMain, stdin string, args ...string) (string, int) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "PATH" {
			t.Setenv(k, env.Getenv(k))
		}
	}
	for _, k := range []string{"HOME", "OPENCODE_CONFIG_DIR"} {
		t.Setenv(k, env.Getenv(k))
	}
	wd, err := env.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	defer debug.SetGCPercent(gc)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // -1 reads the limit
	var out, errb bytes.Buffer
	st := main(args, strings.NewReader(stdin), &out, &errb)
	return strings.TrimSpace(out.String()), st
}

// TestToolsList: the server announces exactly the fifteen tools, each with
// an object input schema.
func TestToolsList(t *testing.T) {
	cs := connect(t, Options{Env: testEnv(t, newRoot(t))})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		s, _ := json.Marshal(tl.InputSchema)
		var m map[string]any
		if json.Unmarshal(s, &m) != nil || m["type"] != "object" {
			t.Errorf("%s: input schema %s is not an object schema", tl.Name, s)
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := m[k]; ok {
				t.Errorf("%s: %s at the top of the input schema (the Anthropic API refuses it)", tl.Name, k)
			}
		}
	}
	want := []string{"task_create", "task_get", "task_list", "task_update", "task_cleanup", "task_claim", "task_doctor",
		"plan_create", "plan_read", "plan_update", "plan_list", "plan_delete", "plan_tasks", "plan_check", "plan_sync"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != Name {
		t.Errorf("server name %q", got)
	}
}

// TestCoreTier: with Tools TierCore the server announces only task_create,
// task_list, task_get, task_update and task_claim, which still work; a
// plan tool is unknown.
func TestCoreTier(t *testing.T) {
	cs := connect(t, Options{Env: testEnv(t, newRoot(t)), Tools: TierCore})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"task_claim", "task_create", "task_get", "task_list", "task_update"}; !slices.Equal(names, want) {
		t.Errorf("core tools %v, want %v", names, want)
	}
	if text, isErr := call(t, cs, "task_create", `{"subject":"Core"}`); isErr || !strings.Contains(text, `"subject":"Core"`) {
		t.Errorf("task_create in the core tier: %s", text)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "plan_list", Arguments: json.RawMessage(`{}`)}); err == nil {
		t.Errorf("plan_list answered in the core tier")
	}
	if strings.Contains(cs.InitializeResult().Instructions, "plan_") {
		t.Errorf("the core tier's instructions name plan tools: %s", cs.InitializeResult().Instructions)
	}
}

// TestSameDocuments: every tool answers the very document its binary
// prints for the same input, errors included, on the same store.
func TestSameDocuments(t *testing.T) {
	root := newRoot(t)
	env := testEnv(t, root)
	cs := connect(t, Options{Env: env})

	// Writes through MCP, then each read compared with the binary's.
	text, isErr := call(t, cs, "task_create", `{"subject":"Build backend","metadata":{"area":"api"}}`)
	var created struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if isErr || json.Unmarshal([]byte(text), &created) != nil || len(created.Tasks) != 1 {
		t.Fatalf("task_create: %s (isError %v)", text, isErr)
	}
	id := created.Tasks[0].ID
	if _, err := os.Stat(filepath.Join(root, ".matrixx", "tasks", id+".json")); err != nil {
		t.Fatalf("the task is not on disk: %v", err)
	}
	// A batch where some items fail (exit 3) created tasks: not an error.
	if text, isErr := call(t, cs, "task_create", `{"items":[{"subject":"Write docs","blockedBy":["`+id+`"]},{"subject":" "}]}`); isErr || !strings.Contains(text, `"index":1`) {
		t.Errorf("batch with a bad item: %s (isError %v)", text, isErr)
	}
	// Every item failing (exit 1) is.
	if text, isErr := call(t, cs, "task_create", `{"items":[{"subject":""}]}`); !isErr || !strings.HasPrefix(text, `{"tasks":[],"errors":[{"index":0`) {
		t.Errorf("batch of bad items: %s (isError %v)", text, isErr)
	}
	plan := "# Auth\n\n1. [ ] Login form\n2. [ ] Session tokens\n"
	if text, isErr := call(t, cs, "plan_create", `{"name":"auth","content":`+quote(plan)+`}`); isErr {
		t.Fatalf("plan_create: %s", text)
	}

	for _, c := range []struct {
		tool, args string
		main       binaryMain
		stdin      string
		argv       []string
		isError    bool
	}{
		{"task_get", `{"id":"` + id + `"}`, cli.TaskGet, `{"id":"` + id + `"}`, nil, false},
		{"task_get", `{"id":"T-0000"}`, cli.TaskGet, `{"id":"T-0000"}`, nil, false},
		{"task_get", `{"id":"../etc/passwd"}`, cli.TaskGet, `{"id":"../etc/passwd"}`, nil, true},
		{"task_get", `{}`, cli.TaskGet, `{}`, nil, true},
		{"task_list", `{}`, cli.TaskList, `{}`, nil, false},
		{"task_list", `{"ready":true}`, cli.TaskList, `{"ready":true}`, nil, false},
		{"task_list", `{"all":true,"ready":true}`, cli.TaskList, `{"all":true,"ready":true}`, nil, true},
		{"task_list", `{"status":7}`, cli.TaskList, `{"status":7}`, nil, true},
		{"task_list", `{"Ready":true}`, cli.TaskList, `{"Ready":true}`, nil, true},
		{"task_update", `{"id":"` + id + `","status":"bogus"}`, cli.TaskUpdate, `{"id":"` + id + `","status":"bogus"}`, nil, true},
		{"task_update", `{"id":"T-1234","status":"completed"}`, cli.TaskUpdate, `{"id":"T-1234","status":"completed"}`, nil, true},
		{"task_update", `{"id":"` + id + `","addBlockedBy":["` + id + `"]}`, cli.TaskUpdate, `{"id":"` + id + `","addBlockedBy":["` + id + `"]}`, nil, true},
		{"task_create", `{"subject":"x","status":"completed"}`, cli.TaskCreate, `{"subject":"x","status":"completed"}`, nil, true},
		{"task_cleanup", `{"dryRun":true}`, cli.TaskCleanup, `{"dryRun":true}`, nil, false},
		{"task_cleanup", `{"all":false}`, cli.TaskCleanup, `{"all":false}`, nil, true},
		{"plan_read", `{"name":"auth"}`, cli.Plan, "", []string{"read", "--json", "auth"}, false},
		{"plan_read", `{"name":"auth","offset":3,"limit":1}`, cli.Plan, "", []string{"read", "--json", "--offset", "3", "--limit", "1", "auth"}, false},
		{"plan_read", `{"name":"auth","offset":0}`, cli.Plan, "", []string{"read", "--json", "--offset", "0", "auth"}, true},
		{"plan_read", `{"name":"../x"}`, cli.Plan, "", []string{"read", "--json", "--", "../x"}, true},
		{"plan_read", `{"name":"--help"}`, cli.Plan, "", []string{"read", "--json", "--", "--help"}, true},
		{"plan_read", `{"name":"missing"}`, cli.Plan, "", []string{"read", "--json", "missing"}, true},
		{"plan_list", `{}`, cli.Plan, "", []string{"list"}, false},
		{"plan_tasks", `{"name":"auth"}`, cli.Plan, "", []string{"tasks", "auth"}, false},
		{"plan_update", `{"name":"auth","dryRun":true,"edits":[{"op":"append","lines":["3. [ ] Logout"]}]}`, cli.Plan,
			`{"edits":[{"op":"append","lines":["3. [ ] Logout"]}]}`, []string{"update", "--dry-run", "auth"}, false},
		{"plan_update", `{"name":"auth","edits":[{"op":"replace","pos":"3#ZZZZ","lines":["x"]}]}`, cli.Plan,
			`{"edits":[{"op":"replace","pos":"3#ZZZZ","lines":["x"]}]}`, []string{"update", "auth"}, true},
		{"plan_update", `{"name":"auth","edits":[]}`, cli.Plan, `{"edits":[]}`, []string{"update", "auth"}, true},
		{"plan_update", `{"name":"auth"}`, cli.Plan, `{}`, []string{"update", "auth"}, true},
		{"plan_check", `{"name":"auth","item":9}`, cli.Plan, "", []string{"check", "auth", "9"}, true},
		{"plan_delete", `{"name":"nope"}`, cli.Plan, "", []string{"delete", "nope"}, true},
		{"plan_sync", `{"name":"auth"}`, cli.Plan, "", []string{"sync", "auth"}, false},
	} {
		got, isErr := call(t, cs, c.tool, c.args)
		want, status := binary(t, env, c.main, c.stdin, c.argv...)
		if got != want {
			t.Errorf("%s %s:\n mcp    %s\n binary %s", c.tool, c.args, got, want)
		}
		if isErr != c.isError || isErr != (status != 0) {
			t.Errorf("%s %s: isError %v, binary exit %d, want isError %v", c.tool, c.args, isErr, status, c.isError)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestArgumentErrors: arguments a plan tool cannot take are the binaries'
// validation_error envelope with isError, and the server keeps serving.
func TestArgumentErrors(t *testing.T) {
	root := newRoot(t)
	cs := connect(t, Options{Env: testEnv(t, root)})
	for _, args := range []string{`{"name":"auth","bogus":1}`, `{"name":7}`, `{"name":"a","name":"b"}`, `[1]`, `"x"`} {
		text, isErr := call(t, cs, "plan_read", args)
		if !isErr || !strings.HasPrefix(text, `{"error":"validation_error","message":`) {
			t.Errorf("plan_read %s: %s (isError %v)", args, text, isErr)
		}
	}
	for _, args := range []string{`[1]`, `"x"`, `{"subject":`} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "task_create", Arguments: json.RawMessage(args)})
		if err == nil && (!res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"error"`)) {
			t.Errorf("task_create %s: %+v", args, res)
		}
	}
	if text, isErr := call(t, cs, "task_list", `{}`); isErr || !strings.HasPrefix(text, `{"tasks":[]`) {
		t.Errorf("after bad calls task_list answers %s", text)
	}
	if ents, _ := os.ReadDir(filepath.Join(root, ".matrixx", "tasks")); len(ents) > 0 {
		t.Errorf("bad calls wrote %d files", len(ents))
	}
}

// TestStoreResolution: -C wins, else the client's root, else the working
// directory; the nearest ancestor holding .git is the project.
func TestStoreResolution(t *testing.T) {
	wd, rootDir, flagDir := newRoot(t), newRoot(t), newRoot(t)
	sub := filepath.Join(rootDir, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	count := func(dir string) int {
		ents, _ := os.ReadDir(filepath.Join(dir, ".matrixx", "tasks"))
		n := 0
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "T-") {
				n++
			}
		}
		return n
	}
	create := func(cs *mcp.ClientSession, subject string) {
		if text, isErr := call(t, cs, "task_create", `{"subject":"`+subject+`"}`); isErr {
			t.Fatalf("task_create: %s", text)
		}
	}
	create(connect(t, Options{Env: testEnv(t, wd)}), "cwd")
	create(connect(t, Options{Env: testEnv(t, wd)}, sub), "root")
	create(connect(t, Options{Env: testEnv(t, wd), Dir: flagDir}, sub), "flag")
	if count(wd) != 1 || count(rootDir) != 1 || count(flagDir) != 1 {
		t.Errorf("tasks: cwd %d, client root %d, -C %d; want 1 each", count(wd), count(rootDir), count(flagDir))
	}
	if _, err := os.Stat(filepath.Join(sub, ".matrixx")); err == nil {
		t.Errorf("a store was made in the root's subdirectory instead of the project")
	}
}

// TestRootsChange: after notifications/roots/list_changed the server asks
// again.
func TestRootsChange(t *testing.T) {
	a, b := newRoot(t), newRoot(t)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(Options{Env: testEnv(t, newRoot(t))}).MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	c.AddRoots(&mcp.Root{URI: "file://" + a})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, "task_create", `{"subject":"in a"}`)
	c.RemoveRoots("file://" + a)
	c.AddRoots(&mcp.Root{URI: "file://" + b})
	// The notification is asynchronous: retry until the server has seen it.
	for i := 0; i < 200; i++ {
		text, _ := call(t, cs, "task_list", `{}`)
		if strings.Contains(text, `"tasks":[]`) {
			break
		}
	}
	call(t, cs, "task_create", `{"subject":"in b"}`)
	if text, _ := call(t, cs, "task_list", `{}`); !strings.Contains(text, "in b") || strings.Contains(text, "in a") {
		t.Errorf("after the roots changed, task_list answers %s", text)
	}
}
