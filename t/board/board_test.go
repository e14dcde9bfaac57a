//go:build linux

// Package board drives matrixx board as people and other programs meet it:
// the real binary on 127.0.0.1, its security rules checked with plain HTTP
// requests (TestBoardRefuses, TestBoardActions), and a real headless
// Chromium driven by puppeteer-core (TestBoardInChromium, browser.cjs):
// the page shows the tasks, a task made by task-create appears, a claim
// from the page lands on disk, a stale page's action is refused, a foreign
// page and a request without the secret are refused.
//
// The test binary doubles as every binary it runs (BOARD_EXEC=<name>), so
// nothing is built separately. The browser test needs Debian's chromium
// and puppeteer-core in .cache/board (.ci/install-board.sh): it skips
// without them, and fails under CI=true.
package board

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli"
	"github.com/matrixx-dev/matrixx-tasks/pkg/porcelain"
)

var mains = map[string]func([]string, io.Reader, io.Writer, io.Writer) int{
	"task-create": cli.TaskCreate,
	"task-get":    cli.TaskGet,
	"task-list":   cli.TaskList,
	"task-update": cli.TaskUpdate,
	"task-claim":  cli.TaskClaim,
	"task-feed":   cli.TaskFeed,
	"matrixx":     porcelain.Main,
}

func TestMain(m *testing.M) {
	if name := os.Getenv("BOARD_EXEC"); name != "" {
		main, ok := mains[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "board test: no binary %q\n", name)
			os.Exit(127)
		}
		os.Exit(main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// project is a temporary project with its own HOME.
type project struct {
	t    testing.TB
	root string
	home string
}

func newProject(t testing.TB) *project {
	dir := t.TempDir()
	p := &project{t: t, root: filepath.Join(dir, "proj"), home: filepath.Join(dir, "home")}
	for _, d := range []string{p.root, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *project) env(name string) []string {
	return []string{
		"BOARD_EXEC=" + name,
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + p.home,
		"OPENCODE_CONFIG_DIR=" + filepath.Join(p.home, ".config", "opencode"),
		"MATRIXX_OWNER=pat",
	}
}

func (p *project) cmd(name string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		p.t.Fatal(err)
	}
	c := exec.Command(self, append([]string{"-C", p.root}, args...)...)
	c.Dir = p.root
	c.Env = p.env(name)
	return c
}

// run runs a binary to its end and returns its stdout; a failure fails
// the test.
func (p *project) run(name string, args ...string) []byte {
	p.t.Helper()
	var out, errb bytes.Buffer
	c := p.cmd(name, args...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		p.t.Fatalf("%s %v: %v\n%s%s", name, args, err, out.Bytes(), errb.Bytes())
	}
	return out.Bytes()
}

// create makes a task and returns its id.
func (p *project) create(args ...string) string {
	p.t.Helper()
	var res struct {
		Tasks []struct {
			ID string `json:"id"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(p.run("task-create", args...), &res, json.RejectUnknownMembers(false)); err != nil || len(res.Tasks) != 1 {
		p.t.Fatalf("task-create %v: %v", args, err)
	}
	return res.Tasks[0].ID
}

// get reads a task from disk through task-get.
func (p *project) get(id string) map[string]any {
	p.t.Helper()
	var res struct {
		Task map[string]any `json:"task"`
	}
	if err := json.Unmarshal(p.run("task-get", id), &res, json.RejectUnknownMembers(false)); err != nil {
		p.t.Fatal(err)
	}
	return res.Task
}

// board is a running matrixx board.
type board struct {
	cmd    *exec.Cmd
	url    string // the page with the secret
	base   string // http://127.0.0.1:PORT
	host   string // 127.0.0.1:PORT
	token  string
	stderr *bytes.Buffer
}

// startBoard starts matrixx board and reads the URL from its first line.
func (p *project) startBoard(args ...string) *board {
	p.t.Helper()
	c := p.cmd("matrixx", append([]string{"board"}, args...)...)
	out, err := c.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	b := &board{cmd: c, stderr: &bytes.Buffer{}}
	c.Stderr = b.stderr
	if err := c.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() {
		_ = c.Process.Signal(syscall.SIGTERM)
		_ = c.Wait()
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		s, _ := r.ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case b.url = <-line:
	case <-time.After(60 * time.Second):
		p.t.Fatalf("matrixx board printed no URL in 60s; stderr:\n%s", b.stderr)
	}
	base, tok, ok := strings.Cut(b.url, "/#token=")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		p.t.Fatalf("first line is not the page's URL: %q", b.url)
	}
	b.base, b.token, b.host = base, tok, strings.TrimPrefix(base, "http://")
	return b
}

// request sends one request to the board with the given headers.
func (b *board) request(t testing.TB, method, path, body string, hdr map[string]string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, b.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var doc map[string]any
	_ = json.Unmarshal(data, &doc)
	return res.StatusCode, res.Header, doc
}

func (b *board) auth(extra map[string]string) map[string]string {
	h := map[string]string{"X-Matrixx-Token": b.token, "Content-Type": "application/json"}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// card is one card of GET /api/board.
func (b *board) card(t testing.TB, id string) map[string]any {
	t.Helper()
	code, _, doc := b.request(t, "GET", "/api/board", "", b.auth(nil))
	if code != 200 {
		t.Fatalf("GET /api/board: %d %v", code, doc)
	}
	cards, _ := doc["cards"].([]any)
	for _, c := range cards {
		if m, _ := c.(map[string]any); m["id"] == id {
			return m
		}
	}
	return nil
}

// waitCard polls the board until id's card satisfies ok (60s at most).
func (b *board) waitCard(t testing.TB, id string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if c := b.card(t, id); c != nil && ok(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("the board never showed %s as expected: %v", id, b.card(t, id))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBoardRefuses(t *testing.T) {
	p := newProject(t)
	id := p.create("--subject", "guarded")
	b := p.startBoard()
	before := p.get(id)
	claim := `{"op":"claim","id":"` + id + `","v":"x"}`
	for _, tc := range []struct {
		name         string
		method, path string
		hdr          map[string]string
		want         int
		code         string
	}{
		{"no secret", "GET", "/api/board", map[string]string{}, 401, "missing_token"},
		{"wrong secret", "GET", "/api/board", map[string]string{"X-Matrixx-Token": strings.Repeat("0", len(b.token))}, 401, "missing_token"},
		{"secret in the query only", "GET", "/api/board?token=" + b.token, map[string]string{}, 401, "missing_token"},
		{"action without secret", "POST", "/api/action", map[string]string{"Content-Type": "application/json"}, 401, "missing_token"},
		{"foreign origin", "POST", "/api/action", b.auth(map[string]string{"Origin": "http://evil.example"}), 403, "forbidden_origin"},
		{"null origin", "POST", "/api/action", b.auth(map[string]string{"Origin": "null"}), 403, "forbidden_origin"},
		{"cross-site fetch", "POST", "/api/action", b.auth(map[string]string{"Sec-Fetch-Site": "cross-site"}), 403, "forbidden_origin"},
		{"rebound host name", "GET", "/api/board", b.auth(map[string]string{"Host": "evil.example:" + strings.Split(b.host, ":")[1]}), 421, "forbidden_host"},
		{"other port", "GET", "/", map[string]string{"Host": "127.0.0.1:1"}, 421, "forbidden_host"},
		{"preflight", "OPTIONS", "/api/action", map[string]string{"Origin": "http://" + b.host, "Access-Control-Request-Method": "POST"}, 405, "method_not_allowed"},
		{"form post", "POST", "/api/action", b.auth(map[string]string{"Content-Type": "application/x-www-form-urlencoded"}), 415, "invalid_arguments"},
	} {
		code, hdr, doc := b.request(t, tc.method, tc.path, claim, tc.hdr)
		if code != tc.want || doc["error"] != tc.code {
			t.Errorf("%s: got %d %v, want %d %s", tc.name, code, doc, tc.want, tc.code)
		}
		for k := range hdr {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: answered a CORS header %s", tc.name, k)
			}
		}
	}
	// Nothing was claimed by any of them.
	if after := p.get(id); after["status"] != before["status"] || after["owner"] != nil {
		t.Fatalf("a refused request changed the task: %v", after)
	}
	// The page itself (no data in it) loads without the secret, with a
	// strict content policy; the API with it.
	code, hdr, _ := b.request(t, "GET", "/", "", nil)
	if code != 200 || !strings.Contains(hdr.Get("Content-Security-Policy"), "default-src 'none'") || hdr.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("GET /: %d %v", code, hdr)
	}
	if code, _, _ := b.request(t, "GET", "/api/board", "", b.auth(map[string]string{"Host": "localhost:" + strings.Split(b.host, ":")[1], "Origin": "http://localhost:" + strings.Split(b.host, ":")[1]})); code != 200 {
		t.Fatalf("localhost:PORT with its own origin: %d", code)
	}
	// SIGINT ends it with status 0.
	_ = b.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("board after SIGINT: %v\n%s", err, b.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("board did not stop on SIGINT")
	}
}

func TestBoardActions(t *testing.T) {
	p := newProject(t)
	// A git checkout on branch "feature": claims record where they were made.
	if out, err := exec.Command("git", "init", "-q", "-b", "feature", p.root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	a := p.create("--subject", "first", "--priority", "high")
	blocker := p.create("--subject", "blocker")
	leased := p.create("--subject", "api work", "--paths", "src/api/**")
	b := p.startBoard()
	if c := b.card(t, leased); fmt.Sprint(c["paths"]) != "[src/api/**]" {
		t.Fatalf("a pending card does not show the paths it will touch: %v", c)
	}
	post := func(body string) (int, map[string]any) {
		code, _, doc := b.request(t, "POST", "/api/action", body, b.auth(nil))
		return code, doc
	}
	c := b.card(t, a)
	if c == nil || c["state"] != "ready" || c["priority"] != "high" {
		t.Fatalf("card of %s: %v", a, c)
	}
	v := c["v"].(string)

	// A write by another program reaches the board within a second or so
	// (measured and logged; the bound here is generous for a loaded machine).
	start := time.Now()
	p.run("task-update", a, "--subject", "first, renamed")
	c = b.waitCard(t, a, func(c map[string]any) bool { return c["subject"] == "first, renamed" })
	t.Logf("write to board: %v", time.Since(start))

	// The page still holding the old version is refused, nothing written.
	code, doc := post(`{"op":"edit","id":"` + a + `","v":"` + v + `","subject":"lost update","seen":{"subject":"first","status":"pending","owner":"","priority":"high","blockedBy":[],"labels":[],"parentID":""}}`)
	if code != 409 || doc["error"] != "conflict" {
		t.Fatalf("stale edit: %d %v", code, doc)
	}
	changed, _ := json.Marshal(doc["changed"])
	if !strings.Contains(string(changed), `"field":"subject"`) || !strings.Contains(string(changed), `"now":"first, renamed"`) {
		t.Fatalf("the conflict does not say what changed: %s", changed)
	}
	if got := p.get(a)["subject"]; got != "first, renamed" {
		t.Fatalf("a stale edit was written: %v", got)
	}

	// With the current version: edit (labels), depend, claim, complete, reopen.
	v = c["v"].(string)
	code, doc = post(`{"op":"edit","id":"` + a + `","v":"` + v + `","labels":["ui"," ui ","board"],"priority":"low"}`)
	if code != 200 {
		t.Fatalf("edit: %d %v", code, doc)
	}
	task := p.get(a)
	if task["priority"] != "low" || fmt.Sprint(task["metadata"].(map[string]any)["labels"]) != "[ui board]" {
		t.Fatalf("edit on disk: %v", task)
	}
	code, doc = post(`{"op":"depend","id":"` + a + `","v":"` + doc["v"].(string) + `","blocker":"` + blocker[len(blocker)-4:] + `"}`)
	if code != 200 {
		t.Fatalf("depend: %d %v", code, doc)
	}
	c = b.waitCard(t, a, func(c map[string]any) bool { return c["state"] == "blocked" })
	// Removing it and adding it again: both ends change on disk.
	code, doc = post(`{"op":"undepend","id":"` + a + `","v":"` + c["v"].(string) + `","blocker":"` + blocker + `"}`)
	if code != 200 || fmt.Sprint(p.get(a)["blockedBy"]) != "[]" || fmt.Sprint(p.get(blocker)["blocks"]) != "[]" {
		t.Fatalf("undepend: %d %v", code, doc)
	}
	code, doc = post(`{"op":"undepend","id":"` + a + `","v":"` + doc["v"].(string) + `","blocker":"` + blocker + `"}`)
	if code != 409 || !strings.Contains(doc["message"].(string), "does not wait") {
		t.Fatalf("undepend of a missing edge: %d %v", code, doc)
	}
	// The blocker's card changes with each edge too (its blocks): the page
	// is current for it once it shows the edge gone, then back.
	blocks := func(n int) func(map[string]any) bool {
		return func(c map[string]any) bool { l, _ := c["blocks"].([]any); return len(l) == n }
	}
	b.waitCard(t, blocker, blocks(0))
	code, doc = post(`{"op":"depend","id":"` + a + `","v":"` + doc["v"].(string) + `","blocker":"` + blocker + `"}`)
	if code != 200 {
		t.Fatalf("depend again: %d %v", code, doc)
	}
	c = b.waitCard(t, a, func(c map[string]any) bool { return c["state"] == "blocked" })
	code, doc = post(`{"op":"claim","id":"` + a + `","v":"` + c["v"].(string) + `"}`)
	if code != 409 || !strings.Contains(doc["message"].(string), "blocker") && !strings.Contains(doc["message"].(string), "blocked") {
		t.Fatalf("claim of a blocked task: %d %v", code, doc)
	}
	bc := b.waitCard(t, blocker, blocks(1))
	code, doc = post(`{"op":"claim","id":"` + blocker + `","v":"` + bc["v"].(string) + `"}`)
	if code != 200 {
		t.Fatalf("claim: %d %v", code, doc)
	}
	if bt := p.get(blocker); bt["status"] != "in_progress" || bt["owner"] != "pat" {
		t.Fatalf("the claim is not on disk: %v", bt)
	}
	code, doc = post(`{"op":"complete","id":"` + blocker + `","v":"` + doc["v"].(string) + `"}`)
	if code != 200 || p.get(blocker)["status"] != "completed" {
		t.Fatalf("complete: %d %v", code, doc)
	}
	b.waitCard(t, a, func(c map[string]any) bool { return c["state"] == "ready" })
	code, doc = post(`{"op":"reopen","id":"` + blocker + `","v":"` + doc["v"].(string) + `"}`)
	if code != 200 || p.get(blocker)["status"] != "pending" {
		t.Fatalf("reopen: %d %v", code, doc)
	}
	// A claim from the page runs task-claim's operation: the checkout and
	// branch it was made in and the task's declared paths are in the claim
	// on disk, and the history names the board as the command.
	lc := b.card(t, leased)
	stale := `{"op":"claim","id":"` + leased + `","v":"0","seen":{"subject":"api","status":"pending","owner":"","priority":"","blockedBy":[],"labels":[],"parentID":""}}`
	if code, doc := post(stale); code != 409 || doc["error"] != "conflict" || !strings.Contains(fmt.Sprint(doc["changed"]), "field:subject now:api work seen:api") {
		t.Fatalf("claim with an old version: %d %v", code, doc)
	}
	if lt := p.get(leased); lt["status"] != "pending" {
		t.Fatalf("a stale claim was written: %v", lt)
	}
	code, doc = post(`{"op":"claim","id":"` + leased + `","v":"` + lc["v"].(string) + `"}`)
	if code != 200 {
		t.Fatalf("claim of a task with paths: %d %v", code, doc)
	}
	cl, _ := p.get(leased)["metadata"].(map[string]any)["claim"].(map[string]any)
	if cl["owner"] != "pat" || cl["branch"] != "feature" || cl["worktree"] != p.root || fmt.Sprint(cl["paths"]) != "[src/api/**]" {
		t.Fatalf("the claim on disk does not say where it was made or what it leases: %v", cl)
	}
	// Its card says what the agent holds: where it claimed and which paths.
	hc := b.waitCard(t, leased, func(c map[string]any) bool { return c["state"] == "in_progress" })
	if hc["owner"] != "pat" || hc["branch"] != "feature" || hc["worktree"] != p.root || fmt.Sprint(hc["leases"]) != "[src/api/**]" || hc["leaseEnds"] == nil || hc["paths"] != nil {
		t.Fatalf("the in-progress card does not show the claim: %v", hc)
	}
	if pc := b.card(t, a); pc["leases"] != nil {
		t.Fatalf("a card without a claim shows leases: %v", pc)
	}
	if hist := string(p.run("task-get", leased, "--history")); !strings.Contains(hist, `"command":"matrixx board"`) {
		t.Fatalf("the history does not name the board: %s", hist)
	}
	// Someone else's live claim is not completed from the page.
	other := p.create("--subject", "theirs")
	p.run("task-claim", other, "--owner", "someone-else")
	oc := b.waitCard(t, other, func(c map[string]any) bool { return c["state"] == "in_progress" })
	code, doc = post(`{"op":"complete","id":"` + other + `","v":"` + oc["v"].(string) + `"}`)
	if code != 409 || !strings.Contains(doc["message"].(string), "someone-else") {
		t.Fatalf("completing someone else's claim: %d %v", code, doc)
	}
	// add, with a parent and a label; bad input is a clear 400.
	code, doc = post(`{"op":"add","subject":"from the page","parentID":"` + a + `","labels":["new"]}`)
	if code != 200 {
		t.Fatalf("add: %d %v", code, doc)
	}
	nt := p.get(doc["id"].(string))
	if nt["subject"] != "from the page" || nt["parentID"] != a {
		t.Fatalf("add on disk: %v", nt)
	}
	b.waitCard(t, a, func(c map[string]any) bool { return fmt.Sprint(c["kids"]) == "[0 1]" })
	for _, bad := range []string{`{"op":"add","subject":"  "}`, `{"op":"fly","id":"` + a + `","v":"1"}`, `{"op":"claim","id":"` + a + `"}`, `{"op":"edit","id":"` + a + `","v":"1","priority":"urgent"}`, `not json`, `{"op":"claim","id":"` + a + `","v":"1","extra":1}`} {
		if code, doc := post(bad); code != 400 {
			t.Errorf("%s: %d %v, want 400", bad, code, doc)
		}
	}
	if code, doc := post(`{"op":"claim","id":"T-00000000-0000-7000-8000-000000000000","v":"1"}`); code != 404 {
		t.Errorf("missing task: %d %v", code, doc)
	}
}

// TestBoardRefusesBadIDs: every id the board takes is checked before a
// file is opened: GET /api/task with a path, a NUL or nothing is 400
// invalid_task_id, the same answer whether or not a file lies at that
// path; so is a depend or undepend blocker that is not a task id.
func TestBoardRefusesBadIDs(t *testing.T) {
	p := newProject(t)
	id := p.create("--subject", "target")
	if err := os.MkdirAll(filepath.Join(p.root, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.root, "x", "T-evil.json"), []byte("not a task"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := p.startBoard()
	for _, q := range []string{"../../x/T-evil", "../../x/T-none", "%00", "", "T-a/../T-b", "T-" + strings.Repeat("a", 200)} {
		code, _, doc := b.request(t, "GET", "/api/task?id="+q, "", b.auth(nil))
		if code != 400 || doc["error"] != "invalid_task_id" {
			t.Errorf("GET /api/task?id=%s: %d %v, want 400 invalid_task_id", q, code, doc)
		}
	}
	// A task id and a handle still answer.
	for _, q := range []string{id, id[len(id)-4:]} {
		if code, _, doc := b.request(t, "GET", "/api/task?id="+q, "", b.auth(nil)); code != 200 {
			t.Errorf("GET /api/task?id=%s: %d %v", q, code, doc)
		}
	}
	before := p.get(id)
	v := b.card(t, id)["v"].(string)
	for _, op := range []string{"depend", "undepend"} {
		code, _, doc := b.request(t, "POST", "/api/action", `{"op":"`+op+`","id":"`+id+`","v":"`+v+`","blocker":"../../x/T-evil"}`, b.auth(nil))
		if code != 400 || doc["error"] != "invalid_task_id" {
			t.Errorf("%s with a path as blocker: %d %v, want 400 invalid_task_id", op, code, doc)
		}
	}
	// A body over the 1 MiB cap is 413 input_too_large, not a JSON error.
	big := `{"op":"edit","id":"` + id + `","v":"` + v + `","subject":"` + strings.Repeat("x", 1<<20) + `"}`
	if code, _, doc := b.request(t, "POST", "/api/action", big, b.auth(nil)); code != 413 || doc["error"] != "input_too_large" {
		t.Errorf("a 1 MiB action: %d %v, want 413 input_too_large", code, doc)
	}
	if after := p.get(id); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused request changed the task: %v", after)
	}
}
