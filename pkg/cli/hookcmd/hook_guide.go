package hookcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
)

// The skill and the slash commands (hook.GuideFiles) live in the .claude
// directory that holds the settings file install writes: the project's for
// the default and --shared, ~/.claude for --user. Install writes each file
// that is missing or is ours and differs; a file of the same name without
// our marker is the user's and is left alone (with a warning). Uninstall
// removes only files that carry the marker, then the directories that this
// left empty (docs/hooks.md, "Onboarding").

// installGuide writes the guide files under dir (a .claude directory) and
// returns the paths it wrote.
func installGuide(a *app.App, dir string) ([]string, error) {
	var wrote []string
	for _, g := range hook.GuideFiles() {
		path := filepath.Join(dir, filepath.FromSlash(g.Path))
		old, err := readRegular(path)
		switch {
		case err != nil:
			return wrote, err
		case old != nil && !hook.IsOurGuide(old):
			a.Warnf("warning: %s exists and was not written by %s: left as it is", path, a.Name)
			continue
		case old != nil && bytes.Equal(old, []byte(g.Content)):
			continue
		}
		if err := writeSettings(path, []byte(g.Content), 0); err != nil {
			return wrote, err
		}
		wrote = append(wrote, path)
	}
	return wrote, nil
}

// uninstallGuide removes our guide files under dir and the directories
// emptied by it; it returns the paths it removed.
func uninstallGuide(dir string) ([]string, error) {
	var removed []string
	parents := map[string]bool{}
	for _, g := range hook.GuideFiles() {
		path := filepath.Join(dir, filepath.FromSlash(g.Path))
		old, err := readRegular(path)
		if err != nil {
			return removed, err
		}
		if old == nil || !hook.IsOurGuide(old) {
			continue
		}
		if err := os.Remove(path); err != nil {
			return removed, errcode.Wrap(errcode.InternalError, err, "removing %s", path)
		}
		removed = append(removed, path)
		for p := filepath.Dir(path); p != dir && len(p) > len(dir); p = filepath.Dir(p) {
			parents[p] = true
		}
	}
	// Deepest first: skills/matrixx-tasks before skills. Only empty
	// directories go (os.Remove refuses the others).
	for len(parents) > 0 {
		deepest := ""
		for p := range parents {
			if len(p) > len(deepest) {
				deepest = p
			}
		}
		delete(parents, deepest)
		_ = os.Remove(deepest)
	}
	return removed, nil
}

// readRegular reads a file that may be missing (nil); anything but a
// regular file there (a directory, a link to one, a FIFO) is an error.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "reading %s", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, errcode.New(errcode.ValidationError, "%s is not a regular file: move it away and run the command again", path)
	}
	data, err := safefile.ReadFile(path, maxUserFileBytes, true)
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "reading %s", path)
	}
	return data, nil
}

// snippet prints the task discipline as a CLAUDE.md / AGENTS.md section,
// for hosts without skills.
func snippet(a *app.App) error {
	_, err := fmt.Fprint(a.Stdout, hook.Snippet)
	return err
}
