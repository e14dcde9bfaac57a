package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func env(vars map[string]string, wd string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		Getwd:  func() (string, error) { return wd, nil },
		Home:   func() (string, error) { return "/home/u", nil },
	}
}

func TestRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir()) // canonical: macOS /var → /private/var
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(base, "repo", ".git"), 0o755)
	os.MkdirAll(filepath.Join(base, "repo", "a", ".matrixx"), 0o755)
	os.MkdirAll(filepath.Join(base, "repo", "a", "b", "c"), 0o755)
	os.MkdirAll(filepath.Join(base, "plain"), 0o755)
	tests := []struct {
		name, flag, wd string
		vars           map[string]string
		want           string
	}{
		{"flag wins", "plain", base, map[string]string{"MATRIXX_PROJECT_DIR": "/m"}, filepath.Join(base, "plain")},
		{"matrixx env", "", base, map[string]string{"MATRIXX_PROJECT_DIR": base + "/repo/", "CLAUDE_PROJECT_DIR": "/c"}, filepath.Join(base, "repo")},
		{"claude env", "", base, map[string]string{"CLAUDE_PROJECT_DIR": base + "/repo/a"}, filepath.Join(base, "repo", "a")},
		{"nearest .matrixx", "", filepath.Join(base, "repo", "a", "b", "c"), nil, filepath.Join(base, "repo", "a")},
		{".git", "", filepath.Join(base, "repo"), nil, filepath.Join(base, "repo")},
		{"none: cwd", "", filepath.Join(base, "plain"), nil, filepath.Join(base, "plain")},
	}
	for _, tt := range tests {
		got, err := Root(tt.flag, env(tt.vars, tt.wd))
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q %v, want %q", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []struct {
		flag string
		vars map[string]string
	}{
		{"missing", nil},
		{"", map[string]string{"MATRIXX_PROJECT_DIR": "/nonexistent/x"}},
		{"", map[string]string{"CLAUDE_PROJECT_DIR": filepath.Join(base, "repo", ".git", "x")}},
	} {
		if _, err := Root(bad.flag, env(bad.vars, base)); errcode.Of(err) != errcode.InvalidArguments {
			t.Errorf("%+v: err = %v, want invalid_arguments", bad, err)
		}
	}
}

func TestSessionAndOpenCodeDir(t *testing.T) {
	if got := Session(" s1 ", env(map[string]string{"MATRIXX_SESSION_ID": "s2"}, "/")); got != "s1" {
		t.Errorf("flag: %q", got)
	}
	if got := Session("", env(map[string]string{"MATRIXX_SESSION_ID": "s2"}, "/")); got != "s2" {
		t.Errorf("env: %q", got)
	}
	if got := Session("", env(nil, "/")); got != NoSession {
		t.Errorf("default: %q", got)
	}
	for want, vars := range map[string]map[string]string{
		"/oc":                      {"OPENCODE_CONFIG_DIR": "/oc/", "XDG_CONFIG_HOME": "/x"},
		"/x/opencode":              {"XDG_CONFIG_HOME": "/x"},
		"/home/u/.config/opencode": {"XDG_CONFIG_HOME": "relative"},
	} {
		if got := OpenCodeDir(env(vars, "/")); got != want {
			t.Errorf("%v: got %q want %q", vars, got, want)
		}
	}
}

// TestRootIsCanonical: a project reached through a symbolic link has the
// root of its real directory, whichever source names it (docs/design/decisions.md, "Canonical roots").
func TestRootIsCanonical(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real")
	os.MkdirAll(filepath.Join(real, ".git"), 0o755)
	os.MkdirAll(filepath.Join(real, "src"), 0o755)
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, flag, wd string
		vars           map[string]string
	}{
		{"flag", link, base, nil},
		{"relative flag", "link/src/..", base, nil},
		{"matrixx env", "", base, map[string]string{"MATRIXX_PROJECT_DIR": link}},
		{"claude env", "", base, map[string]string{"CLAUDE_PROJECT_DIR": link + "/"}},
		{"cwd through the link", "", filepath.Join(link, "src"), nil},
	} {
		if got, err := Root(tt.flag, env(tt.vars, tt.wd)); err != nil || got != real {
			t.Errorf("%s: got %q %v, want %q", tt.name, got, err, real)
		}
	}
}

func TestMatcher(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, other := filepath.Join(base, "root"), filepath.Join(base, "other")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(other, 0o755)
	link := filepath.Join(base, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	cases := map[string][2]bool{ // record root → {shared store, own store}
		"":                          {true, true},
		root:                        {true, true},
		link:                        {true, true},
		link + "/":                  {true, true},
		other:                       {false, true},
		filepath.Join(base, "gone"): {false, true},
		"relative":                  {false, true},
	}
	shared, own := NewMatcher(root, false), NewMatcher(root, true)
	for pass := 0; pass < 2; pass++ { // the second pass answers from the cache
		for rec, want := range cases {
			if got := shared.Same(rec); got != want[0] {
				t.Errorf("shared Same(%q) = %v, want %v", rec, got, want[0])
			}
			if got := own.Same(rec); got != want[1] {
				t.Errorf("own Same(%q) = %v, want %v", rec, got, want[1])
			}
		}
	}
	if len(shared.seen) != 5 || own.seen != nil {
		t.Errorf("resolved: shared %v, own %v", shared.seen, own.seen)
	}
	// a root given in another spelling (not from Root) still matches
	if !NewMatcher(link, false).Same(root) {
		t.Error("a non-canonical root does not match its own directory")
	}
}

// TestTrimJS: JavaScript's String.prototype.trim, not Go's TrimSpace.
func TestTrimJS(t *testing.T) {
	for in, want := range map[string]string{
		" x ": "x", "\ufeffx\u00a0": "x", "\u0085x": "\u0085x", "\u2028x\u3000": "x", "\t\v\fx\r\n": "x", "": "",
	} {
		if got := TrimJS(in); got != want {
			t.Errorf("TrimJS(%q) = %q, want %q", in, got, want)
		}
	}
}
