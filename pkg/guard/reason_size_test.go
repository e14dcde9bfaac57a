package guard

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// longRoot is a project path as people have them: a long home, a host and
// an organisation, a long repository name (95 bytes).
const longRoot = "/home/alexandra-konstantinopoulou/src/github.com/example-organisation/a-rather-long-repository"

// TestReasonSizes: every deny reason the guard writes, for every guarded
// area, with realistic long paths (the project above, a task file under
// it, a link target as long), fits MaxReasonBytes on its own, without the
// middle cut of FitReason; the corpus run from that project too.
func TestReasonSizes(t *testing.T) {
	task := longRoot + "/.matrixx/tasks/T-01a235bc-d5e0-767f-b72b-1092b82dee10.json"
	link := "/var/lib/backups/alexandra-konstantinopoulou/2026-12-01/a-rather-long-repository/.matrixx/tasks"
	via := "Bash (python3, in its environment as $MATRIXX_SOME_RATHER_LONG_VARIABLE_NAME)"
	longest, which := 0, ""
	check := func(name, r string) {
		t.Helper()
		if len(r) > MaxReasonBytes {
			t.Errorf("%s: %d bytes, over %d:\n%s", name, len(r), MaxReasonBytes, r)
		}
		if len(r) > longest {
			longest, which = len(r), name
		}
	}
	for _, st := range []store{tasks, plans, root, extra, config, configDir, state} {
		check("writeReason", writeReason(via, st, task, link))
		check("handedReason", handedReason(via, st, task, link))
		check("copyReason", copyReason("Bash (rm -rf)", st, task, link, longRoot))
		check("toolReason", toolReason("MultiEdit", st, task, link, false))
	}
	check("planReadReason", planReadReason("Read", longRoot+"/.matrixx/plans/release-2-0-and-the-migration-of-the-storage-layer.md", link))
	e := &env{}
	for _, hit := range []string{".matrixx/tasks", ".matrixx/plans", ".matrixx/state", longRoot + "/.matrixx/matrixx.jsonc"} {
		check("rawReason", e.rawReason(hit, "it is too large or too repetitive to analyse"))
	}
	for _, mode := range []byte{'u', 'x', 'X'} {
		check("gitCleanReason", gitCleanReason(task, mode))
	}
	check("gitStashReason", gitStashReason(task, "git stash push --include-untracked"))
	check("acceptReason", acceptReason)
	t.Logf("longest reason: %s, %d bytes (bound %d)", which, longest, MaxReasonBytes)

	for _, c := range corpus() {
		cmd := strings.ReplaceAll(c.cmd, testCwd, longRoot)
		d := Check(Request{Tool: "Bash", Cwd: longRoot, Command: cmd, Home: "/home/alexandra-konstantinopoulou"})
		if strings.Contains(d.Reason, " (…) ") || len(d.Reason) > MaxReasonBytes {
			t.Errorf("%q: a %d-byte reason, cut to fit:\n%s", cmd, len(d.Reason), d.Reason)
		}
	}
}

// TestFitReason: a reason over the bound keeps its start and its end (what
// to do instead), on character boundaries, within MaxReasonBytes.
func TestFitReason(t *testing.T) {
	if r := "Blocked: short."; FitReason(r) != r {
		t.Errorf("a short reason changed: %q", FitReason(r))
	}
	long := "Blocked: Bash (" + strings.Repeat("é", 700) + ") would change x. " + tasksWay
	got := FitReason(long)
	if len(got) > MaxReasonBytes || !utf8.ValidString(got) || !strings.HasPrefix(got, "Blocked: Bash (") || !strings.HasSuffix(got, tasksWay) || !strings.Contains(got, " (…) ") {
		t.Errorf("%d bytes, valid %v:\n%s", len(got), utf8.ValidString(got), got)
	}
	if p := clip(strings.Repeat("a/", 200) + "T-1.json"); len(p) > maxPathShown || !strings.HasSuffix(p, "/T-1.json") || !strings.HasPrefix(p, "…") {
		t.Errorf("clip: %q", p)
	}
}
