// Package config loads matrixx.jsonc.
//
// Two files are read, both optional: the user's <OpenCode config
// dir>/matrixx.jsonc and the project's <root>/.matrixx/matrixx.jsonc
// (matrixx.json when the .jsonc file is absent). Comments and trailing
// commas are allowed (JSONC). Each key resolves in this order:
//
//  1. project tasks.<key>
//  2. project morpheus.tasks.<key> (legacy mirror; task.pollTimeoutMs for pollTimeoutMs)
//  3. user tasks.<key>
//  4. user morpheus.tasks.<key>
//  5. the default
//
// Retired keys (tasks.enabled, morpheus.tasks.enabled,
// experimental.task_system) are accepted and produce one deprecation
// warning; unknown keys inside tasks.* produce a warning; other sections
// are ignored. A bad value is a config_error naming the file, the key and
// the allowed range.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/tailscale/hujson"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
)

// FileName is the config file's name in both places.
const FileName = "matrixx.jsonc"

// Tasks is the resolved tasks.* section.
type Tasks struct {
	// Scope is "project" (.matrixx/tasks under the root) or "global".
	Scope string `json:"scope"`
	// StoragePath, when set, is the task directory (relative to the root).
	StoragePath string `json:"storage_path,omitempty"`
	// TaskListID names the global list; sanitized to [a-zA-Z0-9_-].
	TaskListID string `json:"task_list_id,omitempty"`
	// StaleAfterHours: idle hours after which an active task is stale (min 0.25).
	StaleAfterHours float64 `json:"stale_after_hours"`
	// BackgroundStaleAfterHours: the background gate's window (min 0.25).
	BackgroundStaleAfterHours float64 `json:"background_stale_after_hours"`
	// SessionScoped: the continuation hook counts only the session's tasks.
	SessionScoped bool `json:"session_scoped"`
	// PollTimeoutMs: poll budget in ms (min 60000).
	PollTimeoutMs float64 `json:"pollTimeoutMs"`
	// ClaimLease: the lease of a claim when task-claim gets no --lease, in
	// Go duration syntax ("15m"); 1s to 720h (docs/claims.md).
	ClaimLease string `json:"claim_lease"`
	// ClaudeCodeCompat is a reserved no-op flag.
	ClaudeCodeCompat bool `json:"claude_code_compat,omitzero"`
	// PluginSchema: write every record in the form the published
	// oh-my-opencode plugin's strict schema accepts (projectRoot and
	// priority kept in metadata; docs/compat.md). Default false.
	PluginSchema bool `json:"plugin_schema,omitzero"`
	// DenyHostTaskTools: the PreToolUse hook denies the host's own todo
	// and task tools (Claude Code's TodoWrite, TaskCreate, …), so work
	// goes to the one task store (docs/hooks.md). Default true.
	DenyHostTaskTools bool `json:"deny_host_task_tools"`
}

// Config is the resolved configuration.
type Config struct {
	Tasks Tasks `json:"tasks"`
	// DisabledHooks lists hook names turned off (top-level disabled_hooks).
	DisabledHooks []string `json:"disabled_hooks"`
	// Files are the config files that were read, project first.
	Files []string `json:"files"`
	// Warnings are human-readable notes (retired and unknown keys).
	Warnings []string `json:"warnings,omitempty"`
	// Origins says where each tasks.* setting that a file gave came from:
	// "tasks.scope" → "<file>: morpheus.tasks.scope". Keys at their
	// defaults are absent.
	Origins map[string]string `json:"origins,omitempty"`
}

// Defaults of the original's specification
func Defaults() Tasks {
	return Tasks{
		Scope:                     "project",
		StaleAfterHours:           24,
		BackgroundStaleAfterHours: 2,
		SessionScoped:             true,
		PollTimeoutMs:             600000,
		ClaimLease:                "15m",
		DenyHostTaskTools:         true,
	}
}

// IntegrityHook is the post-call integrity check's name in
// disabled_hooks (docs/integrity.md): listing it switches the check off,
// and the binaries' recording of their writes with it.
const IntegrityHook = "task-integrity-check"

// HookDisabled reports whether a hook name is listed in disabled_hooks.
func (c *Config) HookDisabled(name string) bool {
	for _, h := range c.DisabledHooks {
		if h == name {
			return true
		}
	}
	return false
}

// key describes one tasks.* key: its type check and range.
type key struct {
	name   string
	legacy bool // mirrored under morpheus.tasks
	set    func(t *Tasks, v jsontext.Value) error
}

var errRange = errors.New("out of range")

func keys() []key {
	str := func(f func(*Tasks, string)) func(*Tasks, jsontext.Value) error {
		return func(t *Tasks, v jsontext.Value) error {
			var s string
			if err := decode(v, &s, "a string"); err != nil {
				return err
			}
			f(t, s)
			return nil
		}
	}
	num := func(min float64, unit string, f func(*Tasks, float64)) func(*Tasks, jsontext.Value) error {
		return func(t *Tasks, v jsontext.Value) error {
			var n float64
			if err := decode(v, &n, "a number"); err != nil {
				return err
			}
			if n < min {
				return fmt.Errorf("%w: %v is below the minimum %v%s", errRange, n, min, unit)
			}
			f(t, n)
			return nil
		}
	}
	boolean := func(f func(*Tasks, bool)) func(*Tasks, jsontext.Value) error {
		return func(t *Tasks, v jsontext.Value) error {
			var b bool
			if err := decode(v, &b, "a boolean"); err != nil {
				return err
			}
			f(t, b)
			return nil
		}
	}
	return []key{
		{"scope", true, func(t *Tasks, v jsontext.Value) error {
			var s string
			if err := decode(v, &s, "a string"); err != nil {
				return err
			}
			if s != "project" && s != "global" {
				return fmt.Errorf("%w: %q is not \"project\" or \"global\"", errRange, s)
			}
			t.Scope = s
			return nil
		}},
		{"storage_path", true, str(func(t *Tasks, s string) { t.StoragePath = s })},
		{"task_list_id", true, str(func(t *Tasks, s string) { t.TaskListID = project.TrimJS(s) })},
		{"stale_after_hours", true, num(0.25, " hours", func(t *Tasks, n float64) { t.StaleAfterHours = n })},
		{"background_stale_after_hours", false, num(0.25, " hours", func(t *Tasks, n float64) { t.BackgroundStaleAfterHours = n })},
		{"session_scoped", true, boolean(func(t *Tasks, b bool) { t.SessionScoped = b })},
		{"pollTimeoutMs", false, num(60000, " ms", func(t *Tasks, n float64) { t.PollTimeoutMs = n })},
		{"claim_lease", false, func(t *Tasks, v jsontext.Value) error {
			var s string
			if err := decode(v, &s, "a string"); err != nil {
				return err
			}
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("%q is not a duration such as \"90s\", \"15m\" or \"2h\"", s)
			}
			if d < time.Second || d > 720*time.Hour {
				return fmt.Errorf("%w: %q is not between 1s and 720h", errRange, s)
			}
			t.ClaimLease = strings.TrimSpace(s)
			return nil
		}},
		{"claude_code_compat", true, boolean(func(t *Tasks, b bool) { t.ClaudeCodeCompat = b })},
		{"plugin_schema", false, boolean(func(t *Tasks, b bool) { t.PluginSchema = b })},
		{"deny_host_task_tools", false, boolean(func(t *Tasks, b bool) { t.DenyHostTaskTools = b })},
	}
}

func decode(v jsontext.Value, dst any, want string) error {
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("expected %s, got %s", want, input.KindName(v.Kind()))
	}
	return nil
}

// file is one parsed config file.
type file struct {
	path  string
	tasks map[string]jsontext.Value // tasks.*
	morph map[string]jsontext.Value // morpheus.tasks.*
	task  map[string]jsontext.Value // task.*
	top   map[string]jsontext.Value
}

// Load reads the user file from userDir (may be "") and the project file
// under root, and resolves the configuration. Errors: config_error.
func Load(userDir, root string) (*Config, error) {
	var files []*file
	var paths []string
	if root != "" {
		paths = append(paths, filepath.Join(root, ".matrixx"))
	}
	if userDir != "" {
		paths = append(paths, userDir)
	}
	cfg := &Config{Tasks: Defaults(), DisabledHooks: []string{}, Files: []string{}}
	for _, dir := range paths {
		f, err := readFile(dir)
		if err != nil {
			return nil, err
		}
		if f != nil {
			files = append(files, f)
			cfg.Files = append(cfg.Files, f.path)
		}
	}
	var retired []string
	for _, f := range files {
		retired = append(retired, f.check(cfg)...)
	}
	if len(retired) > 0 {
		cfg.Warnings = append([]string{fmt.Sprintf("retired config keys are ignored (the task system is always on): %s", strings.Join(retired, ", "))}, cfg.Warnings...)
	}
	for _, k := range keys() {
		for _, f := range files {
			v, where, ok := f.lookup(k)
			if !ok {
				continue
			}
			if err := k.set(&cfg.Tasks, v); err != nil {
				return nil, errcode.New(errcode.ConfigError, "%s: %s: %v", f.path, where, err)
			}
			if cfg.Origins == nil {
				cfg.Origins = map[string]string{}
			}
			cfg.Origins["tasks."+k.name] = f.path + ": " + where
			break
		}
	}
	for _, f := range files {
		v, ok := f.top["disabled_hooks"]
		if !ok {
			continue
		}
		var hooks []string
		if err := decode(v, &hooks, "an array of strings"); err != nil {
			return nil, errcode.New(errcode.ConfigError, "%s: disabled_hooks: %v", f.path, err)
		}
		cfg.DisabledHooks = append(cfg.DisabledHooks, hooks...)
	}
	return cfg, nil
}

// lookup finds key k in f: tasks.<k>, then the legacy mirror.
func (f *file) lookup(k key) (jsontext.Value, string, bool) {
	if v, ok := f.tasks[k.name]; ok {
		return v, "tasks." + k.name, true
	}
	if k.legacy {
		if v, ok := f.morph[k.name]; ok {
			return v, "morpheus.tasks." + k.name, true
		}
	}
	if k.name == "pollTimeoutMs" {
		if v, ok := f.task["pollTimeoutMs"]; ok {
			return v, "task.pollTimeoutMs", true
		}
	}
	return nil, "", false
}

// check collects warnings for unknown keys and returns retired keys found.
func (f *file) check(cfg *Config) []string {
	known := map[string]bool{}
	legacy := map[string]bool{}
	for _, k := range keys() {
		known[k.name] = true
		legacy[k.name] = k.legacy
	}
	var retired []string
	for _, name := range sortedKeys(f.tasks) {
		switch {
		case name == "enabled":
			retired = append(retired, f.path+": tasks.enabled")
		case !known[name]:
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: unknown key tasks.%s is ignored", f.path, name))
		}
	}
	for _, name := range sortedKeys(f.morph) {
		switch {
		case name == "enabled":
			retired = append(retired, f.path+": morpheus.tasks.enabled")
		case !legacy[name]:
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: unknown key morpheus.tasks.%s is ignored", f.path, name))
		}
	}
	if exp, ok := f.top["experimental"]; ok {
		var m map[string]jsontext.Value
		if json.Unmarshal(exp, &m) == nil {
			if _, ok := m["task_system"]; ok {
				retired = append(retired, f.path+": experimental.task_system")
			}
		}
	}
	return retired
}

func sortedKeys(m map[string]jsontext.Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MaxFileBytes caps a config file: 1 MiB. A larger file is a config_error,
// refused before it is read.
const MaxFileBytes = 1 << 20

// readFile reads dir/matrixx.jsonc (or matrixx.json); nil when neither exists.
func readFile(dir string) (*file, error) {
	var path string
	var data []byte
	for _, name := range []string{FileName, "matrixx.json"} {
		p := filepath.Join(dir, name)
		// Links are followed (a config kept with the user's dotfiles);
		// the size is checked before reading and a FIFO is refused.
		b, err := safefile.ReadFile(p, MaxFileBytes, true)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.ConfigError, err, "reading %s", p)
		}
		path, data = p, b
		break
	}
	if path == "" {
		return nil, nil
	}
	f := &file{path: path}
	std, err := hujson.Standardize(data)
	if err != nil {
		if len(bytes.TrimSpace(stripComments(data))) == 0 {
			return f, nil // empty, or only comments: no settings
		}
		return nil, errcode.Wrap(errcode.ConfigError, err, "%s: not valid JSONC", path)
	}
	if err := json.Unmarshal(std, &f.top, jsontext.AllowDuplicateNames(false)); err != nil {
		return nil, errcode.Wrap(errcode.ConfigError, err, "%s: the top level must be an object without duplicate keys", path)
	}
	section := func(v jsontext.Value, name string) (map[string]jsontext.Value, error) {
		if v == nil {
			return nil, nil
		}
		if v.Kind() != '{' {
			return nil, errcode.New(errcode.ConfigError, "%s: %s: expected an object, got %s", path, name, input.KindName(v.Kind()))
		}
		var m map[string]jsontext.Value
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, errcode.New(errcode.ConfigError, "%s: %s: expected an object, got %s", path, name, input.KindName(v.Kind()))
		}
		return m, nil
	}
	if f.tasks, err = section(f.top["tasks"], "tasks"); err != nil {
		return nil, err
	}
	if f.task, err = section(f.top["task"], "task"); err != nil {
		return nil, err
	}
	morph, err := section(f.top["morpheus"], "morpheus")
	if err != nil {
		return nil, err
	}
	if f.morph, err = section(morph["tasks"], "morpheus.tasks"); err != nil {
		return nil, err
	}
	return f, nil
}

// stripComments drops // and /* */ comments (outside strings) so an
// all-comment file can be told from a broken one.
func stripComments(b []byte) []byte {
	v, err := hujson.Parse(append(append([]byte("["), b...), ']'))
	if err != nil {
		return b
	}
	v.Minimize()
	out := v.Pack()
	return bytes.TrimSuffix(bytes.TrimPrefix(out, []byte("[")), []byte("]"))
}
