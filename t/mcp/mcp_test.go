// Package mcp tests matrixx-mcp as a real process: the binaries are built
// once (go build ./cmd/...), the server is started over stdio by the
// official SDK's client (CommandTransport) and by a hand-written JSON-RPC
// client speaking protocol 2025-06-18 (what Claude Code speaks, roots/list
// answered by the client), and MCP calls race task binaries on one store.
package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var bin string // directory of the built binaries

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "matrixx-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	build := exec.Command("go", "build", "-buildvcs=false", "-o", dir+string(filepath.Separator), "../../cmd/...")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the binaries:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is a temp project with its own HOME.
type project struct {
	root, home string
}

func newProject(t *testing.T) *project {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &project{root: filepath.Join(base, "repo"), home: filepath.Join(base, "home")}
	for _, d := range []string{filepath.Join(p.root, ".git"), p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *project) env() []string {
	return []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + p.home,
		"OPENCODE_CONFIG_DIR=" + filepath.Join(p.home, ".config", "opencode"),
	}
}

// command is a binary started in dir.
func (p *project) command(dir, name string, args ...string) *exec.Cmd {
	c := exec.Command(filepath.Join(bin, name), args...)
	c.Dir = dir
	c.Env = p.env()
	return c
}

// sdkClient starts matrixx-mcp in dir with the SDK's client over stdio.
func (p *project) sdkClient(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: p.command(dir, "matrixx-mcp", args...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool, args string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func taskFiles(t *testing.T, root string) []string {
	ents, err := os.ReadDir(filepath.Join(root, ".matrixx", "tasks"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "T-") && strings.HasSuffix(n, ".json") {
			ids = append(ids, strings.TrimSuffix(n, ".json"))
		}
	}
	return ids
}

// TestStdioSDKClient: the built server, started over stdio by the SDK's
// client in a project subdirectory, files the task in the project's store
// and answers what task-get prints for it; errors are envelopes with
// isError; --help names docs/schemas.
func TestStdioSDKClient(t *testing.T) {
	p := newProject(t)
	sub := filepath.Join(p.root, "src")
	os.MkdirAll(sub, 0o755)
	cs := p.sdkClient(t, sub)
	text, isErr := callText(t, cs, "task_create", `{"subject":"Build backend","priority":"high"}`)
	var created struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if isErr || json.Unmarshal([]byte(text), &created) != nil || len(created.Tasks) != 1 {
		t.Fatalf("task_create: %s", text)
	}
	id := created.Tasks[0].ID
	if got := taskFiles(t, p.root); len(got) != 1 || got[0] != id {
		t.Fatalf("store holds %v, want [%s]", got, id)
	}
	got, _ := callText(t, cs, "task_get", `{"id":"`+id+`"}`)
	out, err := p.command(p.root, "task-get", id).Output()
	if err != nil || got != strings.TrimSpace(string(out)) {
		t.Errorf("task_get answers\n %s\ntask-get prints\n %s (%v)", got, out, err)
	}
	if text, isErr := callText(t, cs, "task_update", `{"id":"`+id+`","status":"done"}`); !isErr || !strings.HasPrefix(text, `{"error":"validation_error"`) {
		t.Errorf("bad status: %s (isError %v)", text, isErr)
	}
	help, err := p.command(p.root, "matrixx-mcp", "--help").Output()
	if err != nil || !strings.Contains(string(help), "docs/schemas/") {
		t.Errorf("--help does not point at docs/schemas: %s %v", help, err)
	}
	if err := p.command(p.root, "matrixx-mcp", "-C", filepath.Join(p.root, "nope")).Run(); err == nil {
		t.Errorf("-C naming a missing directory started the server")
	}
}

// rawClient speaks JSON-RPC to a matrixx-mcp process, line by line.
type rawClient struct {
	t     *testing.T
	in    io.WriteCloser
	out   *bufio.Scanner
	cmd   *exec.Cmd
	roots []string
}

func (p *project) rawClient(t *testing.T, dir string, roots ...string) *rawClient {
	c := p.command(dir, "matrixx-mcp")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); c.Wait() })
	sc := bufio.NewScanner(outp)
	sc.Buffer(nil, 16<<20)
	return &rawClient{t: t, in: in, out: sc, cmd: c, roots: roots}
}

func (r *rawClient) send(v any) {
	b, _ := json.Marshal(v)
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		r.t.Fatal(err)
	}
}

// await reads messages until the response to id, answering roots/list.
func (r *rawClient) await(id int) map[string]any {
	for r.out.Scan() {
		var m map[string]any
		if err := json.Unmarshal(r.out.Bytes(), &m); err != nil {
			r.t.Fatalf("not JSON from the server: %s", r.out.Bytes())
		}
		if m["method"] == "roots/list" {
			var roots []map[string]string
			for _, d := range r.roots {
				roots = append(roots, map[string]string{"uri": "file://" + d})
			}
			r.send(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"roots": roots}})
			continue
		}
		if m["id"] == float64(id) {
			return m
		}
	}
	r.t.Fatalf("the server closed its output before answering %d (%v)", id, r.out.Err())
	return nil
}

// TestStdioLegacyProtocol: a client speaking 2025-06-18 with roots (as
// Claude Code does) gets the tools, and calls land in the store of the root
// it announced, not in the server's working directory.
func TestStdioLegacyProtocol(t *testing.T) {
	p, other := newProject(t), newProject(t)
	r := p.rawClient(t, other.root, p.root)
	r.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{"roots": map[string]any{"listChanged": true}},
		"clientInfo": map[string]any{"name": "claude-code", "version": "2.1.332"}}})
	init := r.await(1)
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Errorf("negotiated %v", v)
	}
	r.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	r.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	tools := r.await(2)["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 15 {
		t.Errorf("%d tools", len(tools))
	}
	r.send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{
		"name": "task_create", "arguments": map[string]any{"subject": "From Claude Code"}}})
	res := r.await(3)["result"].(map[string]any)
	if res["isError"] == true {
		t.Fatalf("task_create: %v", res)
	}
	if n, m := len(taskFiles(t, p.root)), len(taskFiles(t, other.root)); n != 1 || m != 0 {
		t.Errorf("root's store holds %d tasks, the working directory's %d; want 1 and 0", n, m)
	}
}

// TestPipedRequestsAllAnswered: requests written at once and stdin closed
// (a script) are all answered before the server exits, and it exits 0.
func TestPipedRequestsAllAnswered(t *testing.T) {
	p := newProject(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const n = 20
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"task_create","arguments":{"subject":"piped %d"}}}`+"\n", i, i)
	}
	c := p.command(p.root, "matrixx-mcp")
	c.Stdin = strings.NewReader(in.String())
	out, err := c.Output()
	if err != nil {
		t.Fatalf("exit: %v", err)
	}
	answered := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			if id, ok := m["id"].(float64); ok && m["result"] != nil {
				answered[id] = true
			}
		}
	}
	if len(answered) != n+1 || len(taskFiles(t, p.root)) != n {
		t.Errorf("%d answers (want %d), %d tasks (want %d)", len(answered), n+1, len(taskFiles(t, p.root)), n)
	}
}

// TestConcurrentWithBinaries: MCP calls (two servers, calls in parallel)
// and task binaries (processes) create tasks and update one task's
// metadata on the same store at once; nothing is lost: every create has
// its file, every update its key.
func TestConcurrentWithBinaries(t *testing.T) {
	p := newProject(t)
	seed, err := p.command(p.root, "task-create", "--subject", "shared").Output()
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if err := json.Unmarshal(seed, &created); err != nil {
		t.Fatal(err)
	}
	shared := created.Tasks[0].ID
	servers := []*mcp.ClientSession{p.sdkClient(t, p.root), p.sdkClient(t, p.root)}
	const perWorker = 12
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func() { // MCP
			defer wg.Done()
			cs := servers[w%2]
			for i := 0; i < perWorker; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_create", Arguments: map[string]any{"subject": fmt.Sprintf("mcp %d %d", w, i)}})
				if err != nil || res.IsError {
					errs <- fmt.Sprintf("mcp create: %v %v", err, res)
				}
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_update", Arguments: map[string]any{"id": shared, "metadata": map[string]any{fmt.Sprintf("mcp-%d-%d", w, i): true}}})
				if err != nil || res.IsError {
					errs <- fmt.Sprintf("mcp update: %v %v", err, res)
				}
				cancel()
			}
		}()
		go func() { // binaries
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				if out, err := p.command(p.root, "task-create", "--subject", fmt.Sprintf("bin %d %d", w, i)).CombinedOutput(); err != nil {
					errs <- fmt.Sprintf("task-create: %v %s", err, out)
				}
				md := fmt.Sprintf(`{"bin-%d-%d":true}`, w, i)
				if out, err := p.command(p.root, "task-update", shared, "--metadata", md).CombinedOutput(); err != nil {
					errs <- fmt.Sprintf("task-update: %v %s", err, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got, want := len(taskFiles(t, p.root)), 1+8*perWorker; got != want {
		t.Errorf("%d tasks on disk, want %d", got, want)
	}
	out, err := p.command(p.root, "task-get", shared).Output()
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Task struct {
			Metadata map[string]bool `json:"metadata"`
		} `json:"task"`
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Task.Metadata) != 8*perWorker {
		t.Errorf("the shared task has %d metadata keys, want %d: updates were lost", len(rec.Task.Metadata), 8*perWorker)
	}
}
