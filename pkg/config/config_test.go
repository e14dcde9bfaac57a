package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func write(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultsWithoutFiles(t *testing.T) {
	cfg, err := Load(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tasks != Defaults() || len(cfg.Files) != 0 || cfg.DisabledHooks == nil {
		t.Fatalf("%+v", cfg)
	}
	if d := Defaults(); d.Scope != "project" || d.StaleAfterHours != 24 || d.BackgroundStaleAfterHours != 2 || !d.SessionScoped || d.PollTimeoutMs != 600000 {
		t.Fatalf("defaults differ from spec §3.2: %+v", d)
	}
}

func TestPrecedencePerKey(t *testing.T) {
	user, root := t.TempDir(), t.TempDir()
	write(t, user, `{
		// user file
		"tasks": {"stale_after_hours": 5, "task_list_id": "user-list",},
		"morpheus": {"tasks": {"scope": "global", "session_scoped": false, "storage_path": "/user/legacy"}},
		"task": {"pollTimeoutMs": 70000},
		"disabled_hooks": ["a"],
	}`)
	write(t, filepath.Join(root, ".matrixx"), `{
		"morpheus": {"tasks": {"stale_after_hours": 1}},
		"tasks": {"session_scoped": true},
		"disabled_hooks": ["b"]
	}`)
	cfg, err := Load(user, root)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Tasks
	switch {
	case got.StaleAfterHours != 1: // project legacy beats user canonical
		t.Errorf("stale_after_hours = %v", got.StaleAfterHours)
	case got.SessionScoped != true: // project canonical
		t.Errorf("session_scoped = %v", got.SessionScoped)
	case got.Scope != "global": // user legacy fills the gap
		t.Errorf("scope = %v", got.Scope)
	case got.TaskListID != "user-list" || got.StoragePath != "/user/legacy":
		t.Errorf("list id/storage %+v", got)
	case got.PollTimeoutMs != 70000:
		t.Errorf("pollTimeoutMs = %v", got.PollTimeoutMs)
	}
	if strings.Join(cfg.DisabledHooks, ",") != "b,a" || len(cfg.Files) != 2 {
		t.Errorf("hooks %v files %v", cfg.DisabledHooks, cfg.Files)
	}
	if !cfg.HookDisabled("a") || cfg.HookDisabled("c") {
		t.Error("HookDisabled")
	}
}

func TestErrorsNameFileAndKey(t *testing.T) {
	tests := []struct{ content, want string }{
		{`{"tasks":{"stale_after_hours":0.2}}`, "tasks.stale_after_hours: out of range: 0.2 is below the minimum 0.25 hours"},
		{`{"tasks":{"background_stale_after_hours":0}}`, "tasks.background_stale_after_hours"},
		{`{"tasks":{"pollTimeoutMs":59999}}`, "tasks.pollTimeoutMs: out of range: 59999 is below the minimum 60000 ms"},
		{`{"morpheus":{"tasks":{"scope":"team"}}}`, `morpheus.tasks.scope: out of range: "team"`},
		{`{"tasks":{"session_scoped":1}}`, "tasks.session_scoped: expected a boolean, got a number"},
		{`{"tasks":[]}`, "tasks: expected an object, got an array"},
		{`{"disabled_hooks":"x"}`, "disabled_hooks: expected an array of strings"},
		{`{"tasks":{"scope":"project"}`, "not valid JSONC"},
		{`{"a":1,"a":2}`, "duplicate"},
	}
	for _, tt := range tests {
		root := t.TempDir()
		write(t, filepath.Join(root, ".matrixx"), tt.content)
		_, err := Load("", root)
		if errcode.Of(err) != errcode.ConfigError || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), filepath.Join(root, ".matrixx", FileName)) {
			t.Errorf("%s: err = %v, want %q with the file name", tt.content, err, tt.want)
		}
	}
}

func TestWarnings(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".matrixx"), `{"tasks":{"enabled":true,"typo":1},"morpheus":{"tasks":{"enabled":false,"pollTimeoutMs":1}},"experimental":{"task_system":true},"other":{"x":1}}`)
	cfg, err := Load("", root)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(cfg.Warnings, "\n")
	if strings.Count(all, "retired") != 1 || !strings.Contains(all, "tasks.enabled") || !strings.Contains(all, "morpheus.tasks.enabled") || !strings.Contains(all, "experimental.task_system") {
		t.Errorf("retired warning: %q", all)
	}
	if !strings.Contains(all, "unknown key tasks.typo") || !strings.Contains(all, "unknown key morpheus.tasks.pollTimeoutMs") {
		t.Errorf("unknown-key warnings: %q", all)
	}
	if cfg.Tasks.PollTimeoutMs != 600000 {
		t.Errorf("pollTimeoutMs has no morpheus mirror; got %v", cfg.Tasks.PollTimeoutMs)
	}
}

func TestEmptyAndCommentOnlyFilesHaveNoSettings(t *testing.T) {
	for _, content := range []string{"", "\n", "  // nothing yet\n", "/* later */"} {
		root := t.TempDir()
		write(t, filepath.Join(root, ".matrixx"), content)
		cfg, err := Load("", root)
		if err != nil || cfg.Tasks != Defaults() || len(cfg.Files) != 1 {
			t.Errorf("%q: cfg %+v err %v", content, cfg, err)
		}
	}
	root := t.TempDir()
	write(t, filepath.Join(root, ".matrixx"), `{"tasks": null}`)
	if _, err := Load("", root); errcode.Of(err) != errcode.ConfigError || !strings.Contains(err.Error(), "tasks: expected an object, got null") {
		t.Errorf("null section: %v", err)
	}
}
