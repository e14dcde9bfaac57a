// Package attack runs the second line's corpus (docs/integrity.md) for
// real: every command of testdata/attacks.txt and testdata/everyday.txt
// runs with bash in a private copy of a project (HOME and the working
// directory inside it), between the real PreToolUse and PostToolUse
// events fed to the real matrixx-hook. For every attack the covered files
// (task store, plans, config files, hook state) must end byte-identical to
// before (content, mode, mtime, type), whether the guard refused the call
// or the post-call check put things back; every everyday command must be
// allowed and leave no report.
package attack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binDir   string
	template string // a prepared project and home to copy
	ids      [2]string
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "matrixx-attack-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the binaries: %v\n%s", err, out)
		os.Exit(1)
	}
	template = filepath.Join(tmp, "template")
	if err := prepare(template); err != nil {
		fmt.Fprintln(os.Stderr, "preparing the project:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// env is the environment of every process of a case rooted at dir.
func env(dir string) []string {
	home := filepath.Join(dir, "home")
	return []string{
		"PATH=" + binDir + ":" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"LANG=C.UTF-8",
	}
}

func sh(dir, root, script string, stdin string) (string, error) {
	c := exec.Command("bash", "-c", script)
	c.Dir = dir
	c.Env = env(root)
	c.Stdin = strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	return string(out), err
}

// prepare builds the template: a git repository whose working tree holds
// three tasks (one changed since the commit), a plan, the project and
// user config files and a hook state file.
func prepare(dir string) error {
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{proj, filepath.Join(dir, "home", ".config", "opencode"), filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	script := `set -e
printf '[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
git init -q .
echo 'hello world' > README.md
echo '{}' > "$HOME/.config/opencode/matrixx.jsonc"
mkdir -p .matrixx/state/continuation
printf '{\n  "tasks": {"stale_after_hours": 24}\n}\n' > .matrixx/matrixx.jsonc
printf '{"blocks":1,"lastKey":"x"}\n' > .matrixx/state/continuation/s0.json
a=$(echo '{"subject":"first task","description":"a task"}' | task-create | jq -r '.tasks[0].id')
b=$(echo '{"subject":"second task"}' | task-create | jq -r '.tasks[0].id')
echo "{\"subject\":\"third\",\"blockedBy\":[\"$a\"]}" | task-create >/dev/null
printf '# plan\n- [ ] 1. first\n- [ ] 2. second\n' | plan create p >/dev/null
git add -A && git commit -qm init
echo "{\"id\":\"$a\",\"status\":\"in_progress\"}" | task-update >/dev/null
rm -rf "$HOME/.local/state"
echo "$a $b"
`
	out, err := sh(proj, dir, script, "")
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	f := strings.Fields(out)
	if len(f) < 2 {
		return fmt.Errorf("no task ids: %q", out)
	}
	ids = [2]string{f[len(f)-2], f[len(f)-1]}
	return nil
}

// expand replaces the corpus placeholders.
func expand(cmd string) string {
	r := strings.NewReplacer(
		"{T}", ".matrixx/tasks/"+ids[0]+".json",
		"{T2}", ".matrixx/tasks/"+ids[1]+".json",
		"{TB}", ids[0]+".json",
		"{ID}", ids[0],
		"{ID2}", ids[1],
		"{P}", ".matrixx/plans/p.md",
		"{PB}", "p.md",
		"{C}", ".matrixx/matrixx.jsonc",
		"{UC}", "$HOME/.config/opencode/matrixx.jsonc",
		"{S}", ".matrixx/state/continuation/s0.json",
		"{TD}", ".matrixx/tasks",
		"{PD}", ".matrixx/plans",
		"⏎", "\n",
	)
	return r.Replace(cmd)
}

// entry is one corpus line.
type entry struct {
	line  int
	needs string
	calls []string
}

func load(t *testing.T, file string) []entry {
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		e := entry{line: n}
		if strings.HasPrefix(l, "@") {
			tool, rest, _ := strings.Cut(l[1:], " ")
			e.needs, l = tool, rest
		}
		for _, c := range strings.Split(l, ";;;") {
			e.calls = append(e.calls, expand(strings.TrimSpace(c)))
		}
		out = append(out, e)
	}
	if testing.Short() {
		// -short: every eighth case, for a quick local run.
		var some []entry
		for i := 0; i < len(out); i += 8 {
			some = append(some, out[i])
		}
		return some
	}
	return out
}

// snapshot describes every covered file of a case: type, mode, mtime and
// content (link target for a link).
func snapshot(root string) map[string]string {
	proj := filepath.Join(root, "proj")
	out := map[string]string{}
	add := func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			return
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %v %d %q", fi.Mode(), fi.ModTime().UnixNano(), data)
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		default:
			out[rel] = "other " + fi.Mode().String()
		}
	}
	dirs := []struct{ dir, suffix, prefix string }{
		{filepath.Join(proj, ".matrixx", "tasks"), ".json", "T-"},
		{filepath.Join(proj, ".matrixx", "plans"), ".md", ""},
		{filepath.Join(proj, ".matrixx", "state", "continuation"), ".json", ""},
	}
	for _, d := range dirs {
		if fi, err := os.Lstat(d.dir); err != nil || !fi.IsDir() {
			if err == nil {
				out[d.dir] = "not a directory"
			}
			continue
		}
		ents, _ := os.ReadDir(d.dir)
		for _, e := range ents {
			n := e.Name()
			if strings.HasSuffix(n, d.suffix) && strings.HasPrefix(n, d.prefix) && !strings.HasPrefix(n, ".") {
				add(filepath.Join(d.dir, n))
			}
		}
	}
	for _, p := range []string{
		filepath.Join(proj, ".matrixx", "matrixx.jsonc"), filepath.Join(proj, ".matrixx", "matrixx.json"),
		filepath.Join(root, "home", ".config", "opencode", "matrixx.jsonc"), filepath.Join(root, "home", ".config", "opencode", "matrixx.json"),
	} {
		add(p)
	}
	return out
}

func diff(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			w := b[k]
			if w == "" {
				w = "(missing)"
			}
			d = append(d, fmt.Sprintf("%s: %.80s → %.80s", k, v, w))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("%s: (new) %.80s", k, v))
		}
	}
	sort.Strings(d)
	return d
}

// hookAnswer is what the tests read of matrixx-hook's answers.
type hookAnswer struct {
	HookSpecificOutput struct {
		PermissionDecision string `json:"permissionDecision"`
		AdditionalContext  string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage"`
}

func hook(t *testing.T, root string, ev map[string]any) hookAnswer {
	data, _ := json.Marshal(ev)
	c := exec.Command(filepath.Join(binDir, "matrixx-hook"))
	c.Dir = filepath.Join(root, "proj")
	c.Env = env(root)
	c.Stdin = bytes.NewReader(data)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("matrixx-hook: %v", err)
	}
	var a hookAnswer
	if len(bytes.TrimSpace(out)) > 0 {
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatalf("matrixx-hook answer %q: %v", out, err)
		}
	}
	return a
}

// outcome of one case.
type outcome struct {
	refused, reported bool
	left              []string
	exit              []int
}

var caseSeq struct {
	sync.Mutex
	n int
}

// run plays one corpus entry in a fresh copy of the template.
func run(t *testing.T, e entry, guardOff bool) outcome {
	if e.needs != "" {
		if _, err := exec.LookPath(e.needs); err != nil {
			t.Skipf("needs %s", e.needs)
		}
	}
	root := filepath.Join(t.TempDir(), "c")
	if err := copyTree(template, root); err != nil {
		t.Fatalf("copying the template: %v", err)
	}
	proj := filepath.Join(root, "proj")
	if guardOff {
		cfg := "{\n  \"tasks\": {\"stale_after_hours\": 24},\n  \"disabled_hooks\": [\"task-edit-guard\"]\n}\n"
		if err := os.WriteFile(filepath.Join(proj, ".matrixx", "matrixx.jsonc"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := sh(proj, root, "matrixx-hook accept", ""); err != nil {
		t.Fatalf("accept: %v %s", err, out)
	}
	before := snapshot(root)
	var o outcome
	for i, cmd := range e.calls {
		caseSeq.Lock()
		caseSeq.n++
		id := fmt.Sprintf("toolu_%d_%d", caseSeq.n, i)
		caseSeq.Unlock()
		base := map[string]any{
			"session_id": "s1", "transcript_path": filepath.Join(root, "transcript"), "cwd": proj,
			"tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": cmd, "description": "corpus"},
		}
		pre := clone(base)
		pre["hook_event_name"] = "PreToolUse"
		if a := hook(t, root, pre); a.HookSpecificOutput.PermissionDecision == "deny" {
			o.refused = true
			break
		}
		code, stdout := bash(proj, root, cmd)
		o.exit = append(o.exit, code)
		post := clone(base)
		if code == 0 {
			post["hook_event_name"] = "PostToolUse"
			post["tool_response"] = map[string]any{"stdout": stdout, "stderr": "", "interrupted": false}
		} else {
			post["hook_event_name"] = "PostToolUseFailure"
			post["error"] = fmt.Sprintf("Exit code %d\n%s", code, stdout)
		}
		if a := hook(t, root, post); a.SystemMessage != "" {
			o.reported = true
		}
	}
	o.left = diff(before, snapshot(root))
	return o
}

// copyTree copies a tree of directories, regular files and links, with
// modes and modification times (cp -a, without a process per case).
func copyTree(src, dst string) error {
	type dirTime struct {
		path string
		mt   time.Time
	}
	var dirs []dirTime
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		q := filepath.Join(dst, rel)
		switch {
		case fi.IsDir():
			dirs = append(dirs, dirTime{q, fi.ModTime()})
			return os.MkdirAll(q, fi.Mode().Perm())
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, q)
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(q, data, fi.Mode().Perm()); err != nil {
				return err
			}
			return os.Chtimes(q, fi.ModTime(), fi.ModTime())
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Chtimes(dirs[i].path, dirs[i].mt, dirs[i].mt)
	}
	return err
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// bash runs cmd as the Bash tool would (its own process group, killed
// after 10 s) and returns its exit status and output.
func bash(dir, root, cmd string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir = dir
	c.Env = env(root)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.Stdin = nil
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = 127
	}
	s := out.String()
	if len(s) > 4096 {
		s = s[:4096]
	}
	return code, s
}

// TestAttacks plays every attack; none may leave a change standing.
func TestAttacks(t *testing.T) {
	cases := load(t, "attacks.txt")
	if len(cases) < 300 && !testing.Short() {
		t.Fatalf("only %d attacks in the corpus", len(cases))
	}
	var mu sync.Mutex
	var ran, refused, undone, noop, left int
	t.Run("corpus", func(t *testing.T) {
		for _, e := range cases {
			t.Run(fmt.Sprintf("line%d", e.line), func(t *testing.T) {
				t.Parallel()
				o := run(t, e, false)
				mu.Lock()
				defer mu.Unlock()
				ran++
				switch {
				case len(o.left) > 0:
					left++
					t.Errorf("left standing by %q (exit %v, refused %v, reported %v):\n  %s", e.calls, o.exit, o.refused, o.reported, strings.Join(o.left, "\n  "))
				case o.refused:
					refused++
				case o.reported:
					undone++
				default:
					noop++
					t.Logf("changed nothing by itself: %q (exit %v)", e.calls, o.exit)
				}
			})
		}
	})
	t.Logf("attacks run: %d; refused by the guard: %d; undone by the check: %d; changed nothing by themselves: %d; left standing: %d", ran, refused, undone, noop, left)
}

// TestEveryday plays every everyday command: each must be allowed by the
// guard and leave no report of the check.
func TestEveryday(t *testing.T) {
	cases := load(t, "everyday.txt")
	if len(cases) < 150 && !testing.Short() {
		t.Fatalf("only %d everyday commands in the corpus", len(cases))
	}
	var mu sync.Mutex
	var ran, passed int
	t.Run("corpus", func(t *testing.T) {
		for _, e := range cases {
			t.Run(fmt.Sprintf("line%d", e.line), func(t *testing.T) {
				t.Parallel()
				o := run(t, e, false)
				mu.Lock()
				defer mu.Unlock()
				ran++
				switch {
				case o.refused:
					t.Errorf("%q was refused by the guard", e.calls)
				case o.reported:
					t.Errorf("%q was reported by the check (exit %v); changes: %v", e.calls, o.exit, o.left)
				default:
					passed++
				}
			})
		}
	})
	t.Logf("everyday commands run: %d; passed untouched: %d", ran, passed)
}

// TestAttacksWithoutTheGuard plays every fourth attack with the guard
// switched off (disabled_hooks), so the second line alone must undo
// every change.
func TestAttacksWithoutTheGuard(t *testing.T) {
	all := load(t, "attacks.txt")
	var cases []entry
	for i := 0; i < len(all); i += 4 {
		cases = append(cases, all[i])
	}
	var mu sync.Mutex
	var ran, refused, undone, noop, left int
	t.Run("corpus", func(t *testing.T) {
		for _, e := range cases {
			t.Run(fmt.Sprintf("line%d", e.line), func(t *testing.T) {
				t.Parallel()
				o := run(t, e, true)
				mu.Lock()
				defer mu.Unlock()
				ran++
				switch {
				case len(o.left) > 0:
					left++
					t.Errorf("left standing by %q (exit %v, reported %v):\n  %s", e.calls, o.exit, o.reported, strings.Join(o.left, "\n  "))
				case o.refused:
					refused++
				case o.reported:
					undone++
				default:
					noop++
					t.Logf("changed nothing by itself: %q (exit %v)", e.calls, o.exit)
				}
			})
		}
	})
	t.Logf("without the guard: attacks run: %d; refused: %d; undone by the check: %d; changed nothing by themselves: %d; left standing: %d", ran, refused, undone, noop, left)
}

// TestChecksNeverRevertAcknowledgedWrites runs task-update and
// plan create writers against post-call checks that count every
// unexplained change as the agent's (no marker), all at once: every
// acknowledged write must stand and no check may report anything.
func TestChecksNeverRevertAcknowledgedWrites(t *testing.T) {
	root := filepath.Join(t.TempDir(), "c")
	if err := copyTree(template, root); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	if out, err := sh(proj, root, "matrixx-hook accept", ""); err != nil {
		t.Fatalf("accept: %v %s", err, out)
	}
	const rounds = 25
	var wg sync.WaitGroup
	last := make([]string, 3)
	var lastMu sync.Mutex
	errs := make(chan error, 8)
	writer := func(k int, script func(i int) string, value func(i int) string) {
		defer wg.Done()
		for i := range rounds {
			if out, err := sh(proj, root, script(i), ""); err != nil {
				errs <- fmt.Errorf("%s: %v %s", script(i), err, out)
				return
			}
			lastMu.Lock()
			last[k] = value(i)
			lastMu.Unlock()
		}
	}
	wg.Add(3)
	for k := range 2 {
		go writer(k, func(i int) string {
			return fmt.Sprintf(`echo '{"id":"%s","subject":"v%d"}' | task-update >/dev/null`, ids[k], i)
		}, func(i int) string { return fmt.Sprintf("v%d", i) })
	}
	go writer(2, func(i int) string { return fmt.Sprintf(`printf '# plan v%d\n' | plan create --force p >/dev/null`, i) },
		func(i int) string { return fmt.Sprintf("# plan v%d\n", i) })
	done := make(chan struct{})
	checks := 0
	go func() {
		defer close(done)
		for n := 0; ; n++ {
			select {
			case <-errs:
				return
			default:
			}
			a := hook(t, root, map[string]any{"session_id": "s1", "cwd": proj, "hook_event_name": "PostToolUse", "tool_name": "Bash",
				"tool_use_id": fmt.Sprintf("toolu_race_%d", n), "tool_input": map[string]any{"command": "true"}, "tool_response": map[string]any{"stdout": ""}})
			checks++
			if a.HookSpecificOutput.AdditionalContext != "" || a.SystemMessage != "" {
				t.Errorf("check %d reported: %s", n, a.HookSpecificOutput.AdditionalContext+a.SystemMessage)
			}
			lastMu.Lock()
			finished := allDone(last, rounds)
			lastMu.Unlock()
			if finished {
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	<-done
	t.Logf("%d writes of our binaries, %d concurrent checks, nothing reported", 3*rounds, checks)
	for k := range 2 {
		data, _ := os.ReadFile(filepath.Join(proj, ".matrixx", "tasks", ids[k]+".json"))
		if !strings.Contains(string(data), fmt.Sprintf(`"subject": "%s"`, last[k])) {
			t.Errorf("task %d lost its last acknowledged write %q: %s", k, last[k], data)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(proj, ".matrixx", "plans", "p.md")); string(data) != last[2] {
		t.Errorf("plan lost its last acknowledged write %q: %q", last[2], data)
	}
}

func allDone(last []string, rounds int) bool {
	want := fmt.Sprintf("v%d", rounds-1)
	return last[0] == want && last[1] == want && strings.Contains(last[2], want)
}
