package ops

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// whereEnv are the environment variables that change what a binary uses.
var whereEnv = []string{
	"MATRIXX_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "MATRIXX_SESSION_ID", "CLAUDE_CODE_SESSION_ID",
	"ULTRAWORK_TASK_LIST_ID", "OPENCODE_CONFIG_DIR", "XDG_CONFIG_HOME", "MATRIXX_LOCK_TIMEOUT_MS",
	"MATRIXX_NO_FLOCK", "MATRIXX_NO_LIST_INDEX", "MATRIXX_DEBUG", "CLAUDECODE", project.OwnStoreVar,
}

// Where answers the --where flag: what a command in this Env would use
// and why. It reads no stdin and writes nothing; config warnings go to
// Stderr.
func (o *Ops) Where() (*contract.WhereAnswer, error) {
	env := o.env.Proc
	root, rootFrom, err := project.RootSource(o.env.Dir, env)
	if err != nil {
		if errcode.Of(err) == errcode.InvalidArguments {
			return nil, err
		}
		return nil, errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	if rootFrom == "" {
		rootFrom = "the working directory: no .matrixx/ or .git in it or above it (a write creates a new store here)"
	}
	ans := &contract.WhereAnswer{ProjectRoot: contract.WhereValue{Path: root, From: rootFrom}, Settings: map[string]contract.WhereSetting{}, Env: map[string]string{}}

	ocDir := project.OpenCodeDir(env)
	ocFrom := "default: ~/.config/opencode"
	switch {
	case project.TrimJS(env.Getenv("OPENCODE_CONFIG_DIR")) != "":
		ocFrom = "OPENCODE_CONFIG_DIR"
	case env.Getenv("XDG_CONFIG_HOME") != "" && filepath.IsAbs(env.Getenv("XDG_CONFIG_HOME")):
		ocFrom = "XDG_CONFIG_HOME"
	}
	ans.OpenCodeDir = contract.WhereValue{Path: ocDir, From: ocFrom}

	for _, dir := range []string{filepath.Join(root, ".matrixx"), ocDir} {
		if dir == "" {
			continue
		}
		for _, name := range []string{config.FileName, "matrixx.json"} {
			p := filepath.Join(dir, name)
			_, err := os.Stat(p)
			ans.ConfigFiles = append(ans.ConfigFiles, contract.WhereFile{Path: p, Exists: err == nil})
		}
	}
	cfg, err := config.Load(ocDir, root)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		o.Warnf("warning: %s", w)
	}
	t := cfg.Tasks
	for k, v := range map[string]any{
		"tasks.scope": t.Scope, "tasks.storage_path": t.StoragePath, "tasks.task_list_id": t.TaskListID,
		"tasks.stale_after_hours": t.StaleAfterHours, "tasks.background_stale_after_hours": t.BackgroundStaleAfterHours,
		"tasks.session_scoped": t.SessionScoped, "tasks.plugin_schema": t.PluginSchema,
		"tasks.deny_host_task_tools": t.DenyHostTaskTools, "tasks.claim_lease": t.ClaimLease,
	} {
		from := cfg.Origins[k]
		if from == "" {
			from = "default"
		}
		ans.Settings[k] = contract.WhereSetting{Value: v, From: from}
	}
	if len(cfg.DisabledHooks) > 0 {
		ans.Settings["disabled_hooks"] = contract.WhereSetting{Value: cfg.DisabledHooks, From: "config files"}
	}

	envList := env.Getenv("ULTRAWORK_TASK_LIST_ID")
	if v := project.TrimJS(envList); v != "" {
		// The environment variable wins over the config key (store.Resolve):
		// show the value in effect and where it comes from.
		ans.Settings["tasks.task_list_id"] = contract.WhereSetting{Value: v, From: "ULTRAWORK_TASK_LIST_ID"}
	}
	layout := store.Resolve(root, t, envList, ocDir)
	ans.Store = contract.WhereStore{Dir: layout.Dir}
	if fi, err := os.Stat(layout.Dir); err == nil && fi.IsDir() {
		ans.Store.Exists = true
	}
	switch {
	case t.StoragePath != "":
		ans.Store.From = "tasks.storage_path (" + cfg.Origins["tasks.storage_path"] + ")"
	case layout.Own:
		ans.Store.From = "scope project: <projectRoot>/.matrixx/tasks"
	default:
		ans.Store.From = "scope global: <openCodeDir>/tasks/<listID>"
		ans.Store.ListID = layout.ListID
		switch {
		case project.TrimJS(envList) != "":
			ans.Store.ListIDFrom = "ULTRAWORK_TASK_LIST_ID"
		case t.TaskListID != "":
			ans.Store.ListIDFrom = "tasks.task_list_id (" + cfg.Origins["tasks.task_list_id"] + ")"
		default:
			ans.Store.ListIDFrom = "the project root's base name"
		}
	}
	id, from := project.SessionSource(o.env.Session, env)
	if from == "" {
		from = "default: no --session, MATRIXX_SESSION_ID or CLAUDE_CODE_SESSION_ID"
	}
	ans.Session = contract.WhereSession{ID: id, From: from}
	for _, k := range whereEnv {
		if v := env.Getenv(k); v != "" {
			ans.Env[k] = v
		}
	}
	return ans, nil
}

// StoreState notes, before a write, whether the store directory exists and
// whether the root had a marker, so NoteNewStore can say where a write
// created a new store.
type StoreState struct {
	kind    string // "task store", "plans directory"
	dir     string
	existed bool
	marker  bool
	root    string
}

func NewStoreState(kind, root, dir string) StoreState {
	s := StoreState{kind: kind, dir: dir, marker: project.Marker(root) != "", root: root}
	if !s.marker {
		// Only a store created where there is no marker is announced
		// (NoteNewStore): under one, whether it existed is not needed.
		_, err := os.Stat(dir)
		s.existed = err == nil
	}
	return s
}

// NoteNewStore prints, after a write, where it created a new store when
// there was neither .matrixx/ nor .git at the root (the working directory
// became the project root by default): a store the user may not expect.
func (o *Ops) NoteNewStore(s StoreState) {
	if s.existed || s.marker || s.dir == "" {
		return
	}
	if _, err := os.Stat(s.dir); err != nil {
		return
	}
	wd, _ := o.env.Proc.Getwd()
	o.Warnf("note: created a new %s at %s: no .matrixx/ or .git was found in %s or above it, so %s is the project root (give -C DIR, or run git init or mkdir .matrixx where you mean the project to be; --where shows what is used and why)",
		s.kind, s.dir, strings.TrimSuffix(wd, "/"), s.root)
}
