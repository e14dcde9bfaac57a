package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// settingsFlags choose the Claude Code settings file (DESIGN D16).
type settingsFlags struct {
	Dir    string `short:"C" name:"dir" placeholder:"DIR" help:"Project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor holding .matrixx/ or .git)."`
	Shared bool   `xor:"where" help:"Use the project's shared .claude/settings.json (to commit), with the command matrixx-hook looked up on PATH."`
	User   bool   `xor:"where" help:"Use your user settings, ~/.claude/settings.json (every project)."`
	Print  bool   `help:"Print the resulting settings file instead of writing it."`
}

type installCmd struct {
	sub
	settingsFlags
	Command string `placeholder:"CMD" help:"The command the hooks run (default: this binary's absolute path; \"matrixx-hook\" with --shared)."`
}

type uninstallCmd struct {
	sub
	settingsFlags
}

func (c *installCmd) setRoot(h *hookCmd)   { c.root, c.self = h, c }
func (c *installCmd) BeforeApply() error   { c.choose(); return nil }
func (c *uninstallCmd) setRoot(h *hookCmd) { c.root, c.self = h, c }
func (c *uninstallCmd) BeforeApply() error { c.choose(); return nil }

// file returns the settings file the flags name.
func (f *settingsFlags) file(a *app) (string, error) {
	if f.User {
		home, err := a.env.Home()
		if err != nil || home == "" {
			return "", errcode.New(errcode.InternalError, "cannot find your home directory for --user")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	root, err := project.Root(f.Dir, a.env)
	if err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	name := "settings.local.json"
	if f.Shared {
		name = "settings.json"
	}
	return filepath.Join(root, ".claude", name), nil
}

// hookCommand is what the settings run: --command, else matrixx-hook for a
// shared file, else this binary's absolute path (the PATH entry when
// matrixx-hook on PATH is this very binary, so a symlinked install keeps
// its stable path).
func (c *installCmd) hookCommand() (string, error) {
	if c.Command != "" {
		return c.Command, nil
	}
	if c.Shared {
		return hook.Binary, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "finding this binary's path (use --command)")
	}
	path := self
	if onPath, err := exec.LookPath(hook.Binary); err == nil {
		if abs, err := filepath.Abs(onPath); err == nil && sameFile(abs, self) {
			path = abs
		}
	}
	return hook.Command(path)
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func (c *installCmd) run(a *app) error {
	path, err := c.file(a)
	if err != nil {
		return err
	}
	command, err := c.hookCommand()
	if err != nil {
		return err
	}
	if !hook.IsOurs(command) && c.Command == "" {
		return errcode.New(errcode.InvalidArguments, "this binary (%s) is not named %s, so uninstall could not recognise its entries: install it under that name, or use --command", command, hook.Binary)
	}
	if !hook.IsOurs(command) {
		return errcode.New(errcode.InvalidArguments, "--command %q does not run %s without arguments, so uninstall could not recognise it", command, hook.Binary)
	}
	orig, mode, err := readSettings(path)
	if err != nil {
		return err
	}
	res, err := hook.Install(orig, command)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; fix the file and run install again (nothing was written)", path, err)
	}
	if c.Print {
		_, _ = a.stdout.Write(res.Data)
		return nil
	}
	var events []string
	for _, e := range hook.Entries {
		events = append(events, e.Event)
	}
	if !res.Changed {
		fmt.Fprintf(a.stdout, "%s: already installed in %s (command %s)\n", a.name, path, command)
		return nil
	}
	if err := writeSettings(path, res.Data, mode); err != nil {
		return err
	}
	if res.DroppedComments {
		a.warnf("note: %s had comments; the rewritten file is plain JSON without them", path)
	}
	fmt.Fprintf(a.stdout, "%s: installed in %s: %s run %s\n", a.name, path, strings.Join(events, ", "), command)
	if c.Shared {
		fmt.Fprintf(a.stdout, "%s: commit %s; everyone using it needs %s on PATH\n", a.name, path, hook.Binary)
	}
	return nil
}

func (c *uninstallCmd) run(a *app) error {
	path, err := c.file(a)
	if err != nil {
		return err
	}
	orig, mode, err := readSettings(path)
	if err != nil {
		return err
	}
	if orig == nil && !c.Print {
		fmt.Fprintf(a.stdout, "%s: nothing to remove: %s does not exist\n", a.name, path)
		return nil
	}
	res, err := hook.Uninstall(orig)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; nothing was changed", path, err)
	}
	if c.Print {
		_, _ = a.stdout.Write(res.Data)
		return nil
	}
	if !res.Changed {
		fmt.Fprintf(a.stdout, "%s: nothing to remove in %s\n", a.name, path)
		return nil
	}
	if err := writeSettings(path, res.Data, mode); err != nil {
		return err
	}
	if res.DroppedComments {
		a.warnf("note: %s had comments; the rewritten file is plain JSON without them", path)
	}
	fmt.Fprintf(a.stdout, "%s: removed its hooks from %s\n", a.name, path)
	return nil
}

// readSettings reads a settings file; a missing file is nil with mode 0.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, errcode.Wrap(errcode.InternalError, err, "reading %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, errcode.Wrap(errcode.InternalError, err, "reading %s", path)
	}
	return data, fi.Mode().Perm(), nil
}

// writeSettings replaces the file atomically (pkg/durable), keeping an
// existing file's mode.
func writeSettings(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return errcode.Wrap(errcode.InternalError, err, "creating %s", filepath.Dir(path))
	}
	if err := durable.WriteFile(path, data, durable.Options{Perm: mode}); err != nil {
		return errcode.Wrap(errcode.InternalError, err, "writing %s", path)
	}
	return nil
}
