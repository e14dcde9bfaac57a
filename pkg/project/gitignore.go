package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// GitIgnoreName is the ignore file written in a project's .matrixx/.
const GitIgnoreName = ".gitignore"

// GitIgnore is what .matrixx/.gitignore holds: the entries that are this
// machine's own state, so that they never show in git status. What is
// left (tasks/T-*.json, plans/*.md, matrixx.jsonc and this file) is the
// shared part: task-sync carries tasks and plans between machines on a
// branch of its own, and a project may commit them on its branches too
// (docs/sync.md, "What to commit").
const GitIgnore = `# Written by matrixx: this machine's own state, never committed.
# The rest (tasks/T-*.json, plans/*.md, matrixx.jsonc, this file) is shared:
# task-sync carries tasks and plans on a branch of its own (docs/sync.md).
/state/
/notepads/
/tasks/.index/
/tasks/.history/
/tasks/.lock*
/tasks/.legacy-migrated
/plans/.lock*
.*.tmp-*
`

// EnsureGitIgnore writes dir/.gitignore (dir is a project's .matrixx)
// when dir exists and holds none; an existing file, the user's or an
// earlier version, is never touched. It reports whether it wrote the file.
// The write is exclusive (O_EXCL): two writers racing write it once.
func EnsureGitIgnore(dir string) (bool, error) {
	path := filepath.Join(dir, GitIgnoreName)
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if !isDir(dir) {
		return false, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	_, werr := f.WriteString(GitIgnore)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return false, werr
	}
	return true, nil
}
