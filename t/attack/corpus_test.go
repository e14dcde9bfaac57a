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
		"{IH}", "$HOME/.local/state/matrixx/integrity",
		"{BG}", "\"$HOME/"+bgFlag+"\"",
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
	// reportOnly ("?report " before the line) marks an attack whose
	// change cannot be undone (it destroys the last good copies too): it
	// must be reported, never adopted silently.
	reportOnly bool
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
		if rest, ok := strings.CutPrefix(l, "?report "); ok {
			e.reportOnly, l = true, rest
		}
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
	// The project's own directories: a real directory the owner can
	// list, enter and write, or what replaced it.
	for _, rel := range []string{".matrixx", ".matrixx/tasks", ".matrixx/plans", ".matrixx/state", ".matrixx/state/continuation"} {
		fi, err := os.Lstat(filepath.Join(proj, rel))
		switch {
		case err != nil:
			out[rel+"/"] = "missing"
		case !fi.IsDir():
			out[rel+"/"] = "not a directory: " + fi.Mode().String()
		default:
			out[rel+"/"] = fmt.Sprintf("directory, owner rwx %v", fi.Mode().Perm()&0o700 == 0o700)
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
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"`
}

// integrityReport returns what the second line said in an answer ("" when
// nothing): its lines all start with "matrixx-hook:" and speak of the
// binaries, of a check that could not run, or of adopted changes.
func (a hookAnswer) integrityReport() string {
	for _, s := range []string{a.SystemMessage, a.Reason, a.HookSpecificOutput.AdditionalContext} {
		if strings.Contains(s, "without its binaries") || strings.Contains(s, "Not checked") || strings.Contains(s, "recorded as good") {
			return s
		}
	}
	return ""
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
	// warmReport is what the harmless call before the attack got reported
	// (a benign call clobbered).
	warmReport string
	report     string
	left       []string
	exit       []int
}

var caseSeq struct {
	sync.Mutex
	n int
}

// mode is how a case is played.
type mode struct {
	// warm plays one harmless tool call before the attack; cold plays the
	// attack as the session's first call.
	warm bool
	// guardOff switches the guard off (disabled_hooks), so the second
	// line alone has to undo every change.
	guardOff bool
}

// bgFlag is the file a background attack creates once its write is done
// ({BG} in the corpus): the harness waits for it before the next turn.
const bgFlag = "bg.done"

// run plays one corpus entry in a fresh copy of the template, with the
// events Claude Code sends: SessionStart; (warm) one harmless call;
// for each call of the entry PreToolUse, the command (unless denied),
// PostToolUse or PostToolUseFailure; Stop; then, once a background job
// the attack left has finished, the next turn's call. A call written
// "[bg] COMMAND" runs as Claude Code's run_in_background: PostToolUse
// comes at once, the command goes on.
func run(t *testing.T, e entry, m mode) outcome {
	if e.needs != "" {
		if _, err := exec.LookPath(e.needs); err != nil {
			t.Skipf("needs %s", e.needs)
		}
	}
	root := filepath.Join(t.TempDir(), "c")
	if err := copyTree(template, root); err != nil {
		t.Fatalf("copying the template: %v", err)
	}
	t.Cleanup(func() { unlock(root) })
	proj := filepath.Join(root, "proj")
	if m.guardOff {
		cfg := "{\n  \"tasks\": {\"stale_after_hours\": 24},\n  \"disabled_hooks\": [\"task-edit-guard\"]\n}\n"
		if err := os.WriteFile(filepath.Join(proj, ".matrixx", "matrixx.jsonc"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	session := "s1"
	common := func(name string) map[string]any {
		return map[string]any{"session_id": session, "transcript_path": filepath.Join(root, "transcript"), "cwd": proj, "hook_event_name": name}
	}
	start := common("SessionStart")
	start["source"] = "startup"
	hook(t, root, start)
	before := snapshot(root)
	var o outcome
	// started: a call that writes the background flag ran (was not
	// refused); only then is there a flag to wait for.
	started := false
	call := func(cmd string, harmless bool) (report string, denied bool) {
		caseSeq.Lock()
		caseSeq.n++
		id := fmt.Sprintf("toolu_%d", caseSeq.n)
		caseSeq.Unlock()
		bg := false
		if c, ok := strings.CutPrefix(cmd, "[bg] "); ok {
			cmd, bg = c, true
		}
		input := map[string]any{"command": cmd, "description": "corpus"}
		if bg {
			input["run_in_background"] = true
		}
		ev := func(name string) map[string]any {
			ev := common(name)
			ev["tool_name"], ev["tool_use_id"], ev["tool_input"] = "Bash", id, input
			return ev
		}
		if a := hook(t, root, ev("PreToolUse")); a.HookSpecificOutput.PermissionDecision == "deny" {
			return "", true
		}
		if strings.Contains(cmd, bgFlag) {
			started = true
		}
		post := ev("PostToolUse")
		switch {
		case harmless:
			post["tool_response"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
		case bg:
			if err := background(proj, root, cmd); err != nil {
				t.Fatalf("starting %q: %v", cmd, err)
			}
			post["tool_response"] = map[string]any{"stdout": "Command running in background with ID: bash_1", "stderr": "", "interrupted": false, "backgroundTaskId": "bash_1"}
		default:
			code, stdout := bash(proj, root, cmd)
			o.exit = append(o.exit, code)
			if code == 0 {
				post["tool_response"] = map[string]any{"stdout": stdout, "stderr": "", "interrupted": false}
			} else {
				post["hook_event_name"] = "PostToolUseFailure"
				post["error"] = fmt.Sprintf("Exit code %d\n%s", code, stdout)
			}
		}
		return hook(t, root, post).integrityReport(), false
	}
	note := func(r string) {
		if r != "" && o.report == "" {
			o.report = r
		}
	}
	if m.warm {
		o.warmReport, _ = call("ls -la .matrixx/tasks", true)
	}
	flag := filepath.Join(root, "home", bgFlag)
	for _, cmd := range e.calls {
		if cmd == "[wait]" {
			waitFor(flag, 30*time.Second)
			continue
		}
		if tool, ok := strings.CutPrefix(cmd, "[mcp "); ok {
			// A tool call of another MCP server, open until the
			// background job's write has landed.
			tool = strings.TrimSuffix(tool, "]")
			ev := func(name string) map[string]any {
				ev := common(name)
				ev["tool_name"], ev["tool_use_id"], ev["tool_input"] = tool, "toolu_mcp", map[string]any{}
				return ev
			}
			if a := hook(t, root, ev("PreToolUse")); a.HookSpecificOutput.PermissionDecision == "deny" {
				o.refused = true
				break
			}
			waitFor(flag, 30*time.Second)
			post := ev("PostToolUse")
			post["tool_response"] = []any{map[string]any{"type": "text", "text": "[]"}}
			note(hook(t, root, post).integrityReport())
			continue
		}
		r, denied := call(cmd, false)
		if denied {
			o.refused = true
			break
		}
		note(r)
	}
	stop := common("Stop")
	stop["stop_hook_active"] = false
	note(hook(t, root, stop).integrityReport())
	if started {
		waitFor(flag, 30*time.Second)
	}
	r, _ := call("git status --short", true)
	note(r)
	o.reported = o.report != ""
	o.left = diff(before, snapshot(root))
	return o
}

// unlock gives the owner every directory of a case back (an attack that
// left one unreadable would fail the temp directory's removal).
func unlock(root string) {
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if fi != nil && fi.IsDir() && fi.Mode().Perm()&0o700 != 0o700 {
			_ = os.Chmod(p, fi.Mode().Perm()|0o700)
		}
		return nil
	})
}

// background starts cmd as Claude Code's run_in_background does: in its
// own process group, not waited for (it is reaped when it ends).
func background(dir, root, cmd string) error {
	c := exec.Command("bash", "-c", cmd)
	c.Dir = dir
	c.Env = env(root)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }()
	return nil
}

// waitFor waits until path exists (a background attack finished) or the
// budget runs out (an attack that failed before its flag).
func waitFor(path string, budget time.Duration) {
	for end := time.Now().Add(budget); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Lstat(path); err == nil {
			return
		}
	}
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
	// A job left in the background (`&`) may hold the output open: the
	// call ends when the shell does, as the Bash tool's does.
	c.WaitDelay = 2 * time.Second
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

// tally counts the outcomes of a corpus run.
type tally struct {
	sync.Mutex
	ran, refused, undone, noop, left, reportedOnly, clobbered int
}

func (c *tally) String() string {
	return fmt.Sprintf("attacks run: %d; refused by the guard: %d; undone by the check: %d; changed nothing by themselves: %d; left standing: %d (of which reported, not undoable: %d); benign calls clobbered: %d",
		c.ran, c.refused, c.undone, c.noop, c.left+c.reportedOnly, c.reportedOnly, c.clobbered)
}

// attack plays one attack and judges it: nothing may be left standing,
// and the harmless call of a warm case must get no report.
func (c *tally) attack(t *testing.T, e entry, m mode) {
	o := run(t, e, m)
	c.Lock()
	defer c.Unlock()
	c.ran++
	if o.warmReport != "" {
		c.clobbered++
		t.Errorf("the harmless call before %q was reported: %s", e.calls, o.warmReport)
	}
	switch {
	case len(o.left) > 0 && e.reportOnly && o.reported:
		c.reportedOnly++
		t.Logf("reported, not undone (the last good copies were destroyed too): %q: %s", e.calls, o.report)
	case len(o.left) > 0:
		c.left++
		t.Errorf("left standing by %q (exit %v, refused %v, report %q):\n  %s", e.calls, o.exit, o.refused, o.report, strings.Join(o.left, "\n  "))
	case o.refused:
		c.refused++
	case o.reported:
		c.undone++
	default:
		c.noop++
		t.Logf("changed nothing by itself: %q (exit %v)", e.calls, o.exit)
	}
}

// corpus plays cases in parallel subtests and logs the tally.
func corpus(t *testing.T, name string, cases []entry, m mode) {
	var c tally
	t.Run("corpus", func(t *testing.T) {
		for _, e := range cases {
			t.Run(fmt.Sprintf("line%d", e.line), func(t *testing.T) {
				t.Parallel()
				c.attack(t, e, m)
			})
		}
	})
	t.Logf("%s: %s", name, c.String())
}

// every returns every nth case, starting at the offset'th: make test
// plays a share of each corpus, with each mode starting at another
// offset so that the modes together cover more cases than any one;
// ATTACK_SCALE=full (make stress) plays every case in every mode.
func every(all []entry, n, offset int) []entry {
	if full {
		n, offset = 1, 0
	}
	var out []entry
	for i := offset % n; i < len(all); i += n {
		out = append(out, all[i])
	}
	return out
}

// full is set by ATTACK_SCALE=full (make stress).
var full = os.Getenv("ATTACK_SCALE") == "full"

// TestAttacks plays every fifth attack (all with ATTACK_SCALE=full) as
// the session's first tool call (the cold case); none may leave a change
// standing.
func TestAttacks(t *testing.T) {
	cases := load(t, "attacks.txt")
	if len(cases) < 300 && !testing.Short() {
		t.Fatalf("only %d attacks in the corpus", len(cases))
	}
	corpus(t, "cold", every(cases, 5, 0), mode{})
}

// TestAttacksWarm plays every twentieth attack (all with ATTACK_SCALE=full)
// after one harmless call of the session (the warm case): the harmless
// call gets no report, the attack is refused or undone.
func TestAttacksWarm(t *testing.T) {
	corpus(t, "warm", every(load(t, "attacks.txt"), 20, 1), mode{warm: true})
}

// TestEveryday plays every second everyday command as the session's
// first call and every sixth after a harmless one (every one in both with
// ATTACK_SCALE=full): each must be allowed by the guard and leave no
// report of the check.
func TestEveryday(t *testing.T) {
	cases := load(t, "everyday.txt")
	if len(cases) < 150 && !testing.Short() {
		t.Fatalf("only %d everyday commands in the corpus", len(cases))
	}
	var mu sync.Mutex
	var ran, passed int
	t.Run("corpus", func(t *testing.T) {
		for i, e := range cases {
			for _, m := range []mode{{}, {warm: true}} {
				if !full && (m.warm && i%6 != 3 || !m.warm && i%2 != 0) {
					continue
				}
				t.Run(fmt.Sprintf("line%d-warm%v", e.line, m.warm), func(t *testing.T) {
					t.Parallel()
					o := run(t, e, m)
					mu.Lock()
					defer mu.Unlock()
					ran++
					switch {
					case o.refused:
						t.Errorf("%q was refused by the guard", e.calls)
					case o.reported || o.warmReport != "":
						t.Errorf("%q was reported by the check (exit %v): %s%s; changes: %v", e.calls, o.exit, o.warmReport, o.report, o.left)
					default:
						passed++
					}
				})
			}
		}
	})
	t.Logf("everyday commands run: %d; passed untouched: %d", ran, passed)
}

// TestAttacksWithoutTheGuard plays every twentieth attack (all with
// ATTACK_SCALE=full) with the guard switched off (disabled_hooks), so the
// second line alone must undo every change.
func TestAttacksWithoutTheGuard(t *testing.T) {
	corpus(t, "without the guard, cold", every(load(t, "attacks.txt"), 20, 3), mode{guardOff: true})
}

// TestSecondLineAttacks plays the attacks on the second line itself
// (testdata/second-line.txt: first calls, background writes, planted
// locks, its own bookkeeping, the project's directories, other servers'
// MCP tools), cold and warm, with the guard on and off (each attack in
// two of the four modes, all four with ATTACK_SCALE=full): none may leave
// a change standing.
func TestSecondLineAttacks(t *testing.T) {
	cases := load(t, "second-line.txt")
	// The offsets put each attack once cold and once warm, once with the
	// guard and once without.
	offsets := []int{0, 1, 1, 0}
	for i, m := range []mode{{}, {warm: true}, {guardOff: true}, {guardOff: true, warm: true}} {
		t.Run(fmt.Sprintf("warm=%v,guard-off=%v", m.warm, m.guardOff), func(t *testing.T) {
			corpus(t, fmt.Sprintf("second line (warm %v, guard off %v)", m.warm, m.guardOff), every(cases, 2, offsets[i]), m)
		})
	}
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
