//go:build linux

package board

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// browserTools finds chromium, node and puppeteer-core (.cache/board,
// .ci/install-board.sh). Missing ones skip the test, or fail it under
// CI=true.
func browserTools(t *testing.T) (chromium, node, modules string) {
	var missing []string
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium, _ = exec.LookPath("chromium")
	}
	if chromium == "" {
		missing = append(missing, "chromium (apt-get install chromium)")
	}
	node, _ = exec.LookPath("node")
	if node == "" {
		missing = append(missing, "node")
	}
	modules, _ = filepath.Abs("../../.cache/board/node_modules")
	if _, err := os.Stat(filepath.Join(modules, "puppeteer-core", "package.json")); err != nil {
		missing = append(missing, "puppeteer-core in .cache/board (.ci/install-board.sh)")
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the browser test needs %s", strings.Join(missing, ", "))
		}
		t.Skipf("no %s: .ci/install-board.sh installs them", strings.Join(missing, ", "))
	}
	return chromium, node, modules
}

// TestBoardInChromium opens the board in a real headless Chromium and uses
// it as a person would (browser.cjs). BOARD_TASKS sets the store's size
// (default 40; 10000 measures a big store); BOARD_SCREENSHOT saves a
// screenshot.
func TestBoardInChromium(t *testing.T) {
	chromium, node, modules := browserTools(t)
	n := 40
	if s := os.Getenv("BOARD_TASKS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 3 {
			t.Fatalf("BOARD_TASKS=%q", s)
		}
	}
	p := newProject(t)
	// A git checkout on branch "feature": the page's claims record it.
	if out, err := exec.Command("git", "init", "-q", "-b", "feature", p.root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	fill(t, p, n)
	b := p.startBoard()

	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>another page</title><p>not the board</p>")
	}))
	defer foreign.Close()

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "browser.cjs")
	cmd.Env = append(p.env(""),
		"NODE_PATH="+modules,
		"BOARD_URL="+b.url,
		"FOREIGN_URL="+foreign.URL,
		"BOARD_SELF="+self,
		"BOARD_ROOT="+p.root,
		"BOARD_N="+strconv.Itoa(n),
		"CHROMIUM="+chromium,
		"BOARD_SCREENSHOT="+os.Getenv("BOARD_SCREENSHOT"),
		"BOARD_LIVE_LIMIT_MS="+os.Getenv("BOARD_LIVE_LIMIT_MS"),
	)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("browser.cjs: %v\n%s%s\nboard's stderr:\n%s", err, out.Bytes(), errb.Bytes(), b.stderr)
	}
	t.Logf("%d tasks, %v in the browser: %s", n, time.Since(start).Round(time.Millisecond), strings.TrimSpace(out.String()))
	if rss := rssOf(b.cmd.Process.Pid); rss != "" {
		t.Logf("board process resident memory: %s", rss)
	}
}

// fill creates n tasks: "Task 1".."Task n", in batches of 1,000; every
// fifth is a subtask of Task 1, every tenth waits for Task 3, every
// seventh has a label.
func fill(t *testing.T, p *project, n int) {
	first := p.create("--subject", "Task 1", "--priority", "high")
	third := ""
	for i := 2; i <= n; {
		var items []string
		end := min(n, i+999)
		for ; i <= end; i++ {
			it := fmt.Sprintf(`{"subject":"Task %d"`, i)
			if i%7 == 0 {
				it += `,"metadata":{"labels":["label-` + strconv.Itoa(i%3) + `"]}`
			}
			if i%5 == 0 {
				it += `,"parentID":"` + first + `"`
			}
			if i%10 == 0 && third != "" {
				it += `,"blockedBy":["` + third + `"]`
			}
			items = append(items, it+"}")
			if i == 3 {
				break
			}
		}
		c := p.cmd("task-create")
		c.Stdin = strings.NewReader(`{"items":[` + strings.Join(items, ",") + `]}`)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("task-create: %v\n%.2000s", err, out)
		}
		if third == "" {
			third = lastID(t, out)
			i = 4
		}
	}
}

// lastID is the last id in a task-create answer.
func lastID(t *testing.T, out []byte) string {
	i := bytes.LastIndex(out, []byte(`"id":"`))
	if i < 0 {
		t.Fatalf("no id in %s", out)
	}
	rest := out[i+6:]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

// rssOf is a process's resident memory as /proc says it.
func rssOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return ""
}
