package hookcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/natefinch/atomic"
)

// installCmd runs matrixx-hook install (commands.HookInstall).
type installCmd commands.HookInstall

// uninstallCmd runs matrixx-hook uninstall (commands.HookUninstall).
type uninstallCmd commands.HookUninstall

// settingsFile is one of the settings files Claude Code merges: where it
// is, and the flag that selects it.
type settingsFile struct {
	path, flag string
}

// files returns the settings file the flags name and the other settings
// files whose hooks Claude Code runs together with it: the user settings,
// and the project's shared and local settings (those of the project found
// from the working directory, or -C, when installing with --user).
func settingsFiles(a *app.App, f *commands.HookSettingsFlags) (settingsFile, []settingsFile, error) {
	var all []settingsFile
	home, herr := a.Env.Home()
	if herr == nil && home != "" {
		all = append(all, settingsFile{filepath.Join(home, ".claude", "settings.json"), "--user"})
	}
	root, err := project.CheckoutRoot(f.Dir, a.Env)
	if err != nil && !f.User {
		return settingsFile{}, nil, errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	if err == nil {
		all = append(all,
			settingsFile{filepath.Join(root, ".claude", "settings.json"), "--shared"},
			settingsFile{filepath.Join(root, ".claude", "settings.local.json"), ""})
	}
	want := ""
	switch {
	case f.User:
		if herr != nil || home == "" {
			return settingsFile{}, nil, errcode.New(errcode.InternalError, "cannot find your home directory for --user")
		}
		want = "--user"
	case f.Shared:
		want = "--shared"
	}
	var target settingsFile
	var others []settingsFile
	for _, sf := range all {
		if sf.flag == want && target.path == "" {
			target = sf
			continue
		}
		others = append(others, sf)
	}
	// The same file under two names (the project is the home directory,
	// or a link): not an other file.
	kept := others[:0]
	for _, o := range others {
		if !samePath(o.path, target.path) {
			kept = append(kept, o)
		}
	}
	return target, kept, nil
}

// samePath reports whether two settings paths name the same file (after
// links), or the same path when they do not exist.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	return sameFile(a, b)
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

func (c *installCmd) run(a *app.App) error {
	if h, ok := otherHost(c.HookHostFlag); ok {
		return c.installHost(a, h)
	}
	target, others, err := settingsFiles(a, &c.HookSettingsFlags)
	if err != nil {
		return err
	}
	path := target.path
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
	file, orig, mode, err := loadSettings(path)
	if err != nil {
		return err
	}
	res, err := hook.Install(orig, command)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; fix the file and run install again (nothing was written)", path, err)
	}
	if err := c.installMCPSettings(&res, path); err != nil {
		return err
	}
	if err := c.checkMCPJSON(a); err != nil {
		return err
	}
	if c.Print {
		_, _ = a.Stdout.Write(res.Data)
		return nil
	}
	if err := c.checkOthers(a, others, command, res.Changed); err != nil {
		return err
	}
	where := path
	if file != path {
		where = path + " (a link to " + file + ")"
	}
	if err := saveInstall(a, file, where, command, hook.Entries, res, mode, claudeDroppedNote(path)); err != nil {
		return err
	}
	if res.Changed && c.Shared {
		fmt.Fprintf(a.Stdout, "%s: commit %s with the skill and commands next to it (.claude/skills, .claude/commands); everyone using it needs %s on PATH\n", a.Name, path, hook.Binary)
	}
	if res.HooksDisabled {
		a.Warnf("warning: %s sets \"disableAllHooks\": true: Claude Code runs no hooks while it is set", path)
	}
	wrote, err := installGuide(a, filepath.Dir(path))
	for _, w := range wrote {
		fmt.Fprintf(a.Stdout, "%s: wrote %s\n", a.Name, w)
	}
	if err != nil {
		return err
	}
	return c.installMCPJSON(a)
}

// checkOthers looks for our entries in the other settings files Claude
// Code merges with the target. One with another command would make every
// hook run twice (two blocks per stop, two guards, two notepad writers):
// refused unless --force (when the target already has our entry, nothing
// is written and the double run is only warned about). The same command is
// only noted (Claude Code runs identical commands once). A file that cannot
// be read is skipped.
func (c *installCmd) checkOthers(a *app.App, others []settingsFile, command string, changing bool) error {
	for _, o := range others {
		data, _, err := readSettings(o.path)
		if err != nil || data == nil {
			continue
		}
		in, err := hook.Inspect(data)
		if err != nil {
			continue
		}
		if in.HooksDisabled {
			a.Warnf("warning: %s sets \"disableAllHooks\": true: Claude Code runs no hooks while it is set", o.path)
		}
		differs := ""
		for _, oc := range in.Commands {
			if oc != command {
				differs = oc
				break
			}
		}
		uninstall := strings.TrimSpace(a.Name + " uninstall " + o.flag)
		switch {
		case differs != "" && !c.Force && changing:
			return errcode.New(errcode.ValidationError,
				"%s already runs %s (command %s); installing here too with the command %s would run every hook twice: remove that entry first (%s), or pass --force (nothing was written)",
				o.path, hook.Binary, differs, command, uninstall)
		case differs != "":
			a.Warnf("warning: %s also runs %s (command %s): every hook runs twice until you run %s", o.path, hook.Binary, differs, uninstall)
		case len(in.Commands) > 0:
			a.Warnf("note: %s also runs %s with the same command; Claude Code runs identical commands once, but keep one place (%s removes the other)", o.path, command, uninstall)
		}
	}
	return nil
}

// runSettings removes the hooks from the settings file (run: and then the
// MCP server of install --mcp).
func (c *uninstallCmd) runSettings(a *app.App) error {
	target, others, err := settingsFiles(a, &c.HookSettingsFlags)
	if err != nil {
		return err
	}
	path := target.path
	file, orig, mode, err := loadSettings(path)
	if err != nil {
		return err
	}
	if orig == nil {
		if c.Print {
			// Nothing to print: there is no file, and uninstall makes none.
			a.Warnf("%s does not exist: nothing to remove, no file would be written", path)
			return nil
		}
		fmt.Fprintf(a.Stdout, "%s: nothing to remove: %s does not exist\n", a.Name, path)
		removed, err := uninstallGuide(filepath.Dir(path))
		for _, r := range removed {
			fmt.Fprintf(a.Stdout, "%s: removed %s\n", a.Name, r)
		}
		return err
	}
	res, err := hook.Uninstall(orig)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; nothing was changed", path, err)
	}
	if err := c.uninstallMCPSettings(a, &res); err != nil {
		return err
	}
	if printed, err := saveUninstall(a, c.Print, path, file, res, mode, claudeDroppedNote(path)); err != nil || printed {
		return err
	}
	removed, err := uninstallGuide(filepath.Dir(path))
	for _, r := range removed {
		fmt.Fprintf(a.Stdout, "%s: removed %s\n", a.Name, r)
	}
	if err != nil {
		return err
	}
	for _, o := range others {
		data, _, err := readSettings(o.path)
		if err != nil || data == nil {
			continue
		}
		if in, err := hook.Inspect(data); err == nil && len(in.Commands) > 0 {
			a.Warnf("note: %s still runs %s (%s removes it)", o.path, hook.Binary, strings.TrimSpace(a.Name+" uninstall "+o.flag))
		}
	}
	return nil
}

// loadSettings resolves path (resolveSettings) and reads the file it
// names (readSettings): the file to write, its content (nil when it does
// not exist) and its mode.
func loadSettings(path string) (string, []byte, fs.FileMode, error) {
	file, err := resolveSettings(path)
	if err != nil {
		return "", nil, 0, err
	}
	orig, mode, err := readSettings(file)
	if err != nil {
		return "", nil, 0, err
	}
	return file, orig, mode, nil
}

// claudeDroppedNote is the warning when rewriting Claude Code's settings
// file at path dropped its comments.
func claudeDroppedNote(path string) string {
	return "note: " + path + " had comments (or trailing commas), which Claude Code does not accept in settings files (it ignores the whole file); the rewritten file is plain JSON without them"
}

// saveInstall writes the installed settings res to file (unless nothing
// changed) and says so on stdout: "already installed in WHERE (command
// COMMAND)", or "installed in WHERE: EVENTS run COMMAND" with the events
// of entries; droppedNote is warned when the rewrite dropped comments.
func saveInstall(a *app.App, file, where, command string, entries []hook.Entry, res hook.SettingsResult, mode fs.FileMode, droppedNote string) error {
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "%s: already installed in %s (command %s)\n", a.Name, where, command)
		return nil
	}
	if err := writeSettings(file, res.Data, mode); err != nil {
		return err
	}
	if res.DroppedComments {
		a.Warnf("%s", droppedNote)
	}
	var events []string
	for _, e := range entries {
		events = append(events, e.Event)
	}
	fmt.Fprintf(a.Stdout, "%s: installed in %s: %s run %s\n", a.Name, where, strings.Join(events, ", "), command)
	return nil
}

// saveUninstall applies the uninstalled settings res to path (file, where
// path is a link to it). With print it only shows what the file would be:
// its content, or, when uninstall would delete it, nothing (and a note
// saying so); printed is then true. Otherwise: nothing when res did not
// change; the file removed when nothing but our hooks was in it (rather
// than an empty {} left behind; a linked file is the user's own: written,
// never removed); else the file rewritten, warning droppedNote (when not
// empty) if that dropped comments.
func saveUninstall(a *app.App, print bool, path, file string, res hook.SettingsResult, mode fs.FileMode, droppedNote string) (printed bool, err error) {
	removes := res.Changed && res.Empty && file == path
	if print {
		if removes {
			a.Warnf("%s holds nothing but its hooks: uninstall would remove the file", path)
			return true, nil
		}
		_, _ = a.Stdout.Write(res.Data)
		return true, nil
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(a.Stdout, "%s: nothing to remove in %s\n", a.Name, path)
	case removes:
		if err := os.Remove(path); err != nil {
			return false, errcode.Wrap(errcode.InternalError, err, "removing %s", path)
		}
		fmt.Fprintf(a.Stdout, "%s: removed its hooks from %s; nothing else was in it, so the file is gone\n", a.Name, path)
	default:
		if err := writeSettings(file, res.Data, mode); err != nil {
			return false, err
		}
		if res.DroppedComments && droppedNote != "" {
			a.Warnf("%s", droppedNote)
		}
		fmt.Fprintf(a.Stdout, "%s: removed its hooks from %s\n", a.Name, path)
	}
	return false, nil
}

// resolveSettings returns the file to read and write for a settings path:
// the path itself, or, when it is a symbolic link (settings kept in a
// dotfiles repository), the file it points to, so that the link stays a
// link. A link whose target cannot be resolved is refused.
func resolveSettings(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", errcode.New(errcode.ValidationError, "%s is a symbolic link whose target cannot be resolved (%v): fix the link, or remove it (nothing was written)", path, err)
	}
	if fi, err := os.Stat(real); err == nil && !fi.Mode().IsRegular() {
		return "", errcode.New(errcode.ValidationError, "%s is a symbolic link to %s, which is not a regular file (nothing was written)", path, real)
	}
	return real, nil
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
	data, err := safefile.ReadFile(path, maxUserFileBytes, true)
	if err != nil {
		return nil, 0, errcode.Wrap(errcode.InternalError, err, "reading %s", path)
	}
	return data, fi.Mode().Perm(), nil
}

// writeSettings replaces the file atomically, keeping an existing file's
// mode (0644 for a new one). A host's settings file needs no fencing and
// no content-conditional replace (install runs by hand, not under the
// store's lock), so the design card's natefinch/atomic does it: a
// temporary file next to it, fsynced, renamed over it.
func writeSettings(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return errcode.Wrap(errcode.InternalError, err, "creating %s", filepath.Dir(path))
	}
	if err := atomic.WriteFile(path, bytes.NewReader(data)); err != nil {
		return errcode.Wrap(errcode.InternalError, err, "writing %s", path)
	}
	// natefinch/atomic keeps an existing file's mode; a new file is
	// created 0600 and is opened to 0644 like any settings file.
	if mode == 0 {
		if err := os.Chmod(path, 0o644); err != nil {
			return errcode.Wrap(errcode.InternalError, err, "writing %s", path)
		}
	}
	return nil
}

// maxUserFileBytes caps a settings or guide file that install reads: 16 MiB,
// checked before reading (a sparse giant is refused, not read whole).
const maxUserFileBytes = 16 << 20
