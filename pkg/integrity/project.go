package integrity

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Size caps of what a check reads of one file (larger files are changes,
// never read whole): task records 16 MiB (the store's cap), plans 4 MiB
// (plan's read cap), config and hook state 1 MiB.
const (
	maxTask   = 16 << 20
	maxPlan   = 4 << 20
	maxConfig = 1 << 20
)

// Home returns the directory holding every ledger and tool-call marker:
// $XDG_STATE_HOME/matrixx/integrity when XDG_STATE_HOME is absolute, else
// <home>/.local/state/matrixx/integrity, else (no home)
// <root>/.matrixx/state/integrity. It lives outside the project on purpose:
// a command that removes .matrixx (rm -rf, git clean -fdx) does not take
// the last good copies with it.
func Home(getenv func(string) string, home func() (string, error), root string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "matrixx", "integrity")
	}
	if home != nil {
		if h, err := home(); err == nil && h != "" && filepath.IsAbs(h) {
			return filepath.Join(h, ".local", "state", "matrixx", "integrity")
		}
	}
	return ProjectHome(root)
}

// ProjectHome is Home's last resort, inside the project: root's
// .matrixx/state/integrity (no XDG_STATE_HOME and no home directory).
func ProjectHome(root string) string {
	return filepath.Join(root, ".matrixx", "state", "integrity")
}

// key names a ledger: the area's name and a hash of what it covers.
func key(name, what string) string {
	h := sha256.Sum256([]byte(name + "\x00" + what))
	return name + "-" + hex.EncodeToString(h[:8])
}

// Project is what the second line covers in one project.
type Project struct {
	// Root is the project root.
	Root string
	// Home is the integrity state directory (Home).
	Home string
	// StoreDir is the task store (it may be shared by several projects:
	// its ledger is keyed by the directory alone).
	StoreDir string
	// PlansDir is <root>/.matrixx/plans.
	PlansDir string
	// ConfigFiles are the config files the binaries read (project and
	// user, .jsonc and .json).
	ConfigFiles []string
	// StateDir is the hooks' own state (<root>/.matrixx/state/continuation).
	StateDir string
}

// Quarantine is where changed files are moved: <root>/.matrixx/state/quarantine.
func (p *Project) Quarantine() string {
	return filepath.Join(p.Root, ".matrixx", "state", "quarantine")
}

// Fallback is the quarantine used when .matrixx/state/quarantine (or a
// parent) is a symbolic link: <Home>/quarantine/<project key>.
func (p *Project) Fallback() string {
	return filepath.Join(p.Home, "quarantine", key("quarantine", p.Root))
}

// Tasks is the task store's area: every T-*.json entry, under the store's
// lock.
func (p *Project) Tasks() *Area {
	return &Area{
		Name: "tasks", Dir: p.StoreDir, Match: IsTaskName,
		Ledger: filepath.Join(p.Home, key("tasks", p.StoreDir)), LockDir: p.StoreDir,
		MaxBytes: maxTask, Valid: ValidTask,
	}
}

// Plans is the plans' area: every *.md entry not starting with a dot,
// under the plans' lock.
func (p *Project) Plans() *Area {
	return &Area{
		Name: "plans", Dir: p.PlansDir,
		Match:  func(n string) bool { return strings.HasSuffix(n, ".md") && !strings.HasPrefix(n, ".") },
		Ledger: filepath.Join(p.Home, key("plans", p.PlansDir)), LockDir: p.PlansDir,
		MaxBytes: maxPlan,
	}
}

// Config is the config files' area (no writer of ours: every change is
// either adopted or restored).
func (p *Project) Config() *Area {
	return &Area{
		Name: "config", Files: p.ConfigFiles,
		Ledger:   filepath.Join(p.Home, key("config", p.Root)),
		MaxBytes: maxConfig,
	}
}

// State is the hooks' own state: the continuation counters.
func (p *Project) State() *Area {
	return &Area{
		Name: "state", Dir: p.StateDir,
		Match:    func(n string) bool { return strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") },
		Ledger:   filepath.Join(p.Home, key("state", p.StateDir)),
		MaxBytes: maxConfig,
	}
}

// IsTaskName reports whether a directory entry name is in the T-*.json
// glob the task store reads.
func IsTaskName(name string) bool {
	return strings.HasPrefix(name, "T-") && strings.HasSuffix(name, ".json") && len(name) > len("T-.json")
}

// ValidTask reports whether data is a valid task record stored under its
// own name.
func ValidTask(name string, data []byte) bool {
	t, err := task.DecodeRecord(data)
	return err == nil && task.FileName(t.ID) == name
}

// NewProject describes what the second line covers for the project at
// root whose task store is storeDir: the store, <root>/.matrixx/plans, the
// config files (<root>/.matrixx/matrixx.jsonc and .json, and the same in
// openCodeDir when set) and <root>/.matrixx/state/continuation. home is
// Home's answer.
func NewProject(root, storeDir, openCodeDir, home string) *Project {
	p := &Project{
		Root:     root,
		Home:     home,
		StoreDir: storeDir,
		PlansDir: filepath.Join(root, ".matrixx", "plans"),
		StateDir: filepath.Join(root, ".matrixx", "state", "continuation"),
	}
	for _, d := range []string{filepath.Join(root, ".matrixx"), openCodeDir} {
		if d != "" {
			p.ConfigFiles = append(p.ConfigFiles, filepath.Join(d, "matrixx.jsonc"), filepath.Join(d, "matrixx.json"))
		}
	}
	return p
}
