// Package durable writes files atomically and durably (DESIGN D6, spec §5.2).
//
// WriteFile writes a temp file in the target's directory, fsyncs it, runs an
// optional last check, renames it over the target and fsyncs the directory,
// so a success answer means the new content survives a crash and readers
// only ever see the old or the new file whole. Temp names start with a dot
// and end in ".tmp-<random>", so they never match T-*.json or *.md globs.
package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempInfix marks temp files: ".<base>.tmp-<random>".
const TempInfix = ".tmp-"

// Options tune WriteFile.
type Options struct {
	// Perm is the file mode of the new file; 0644 when zero.
	Perm fs.FileMode
	// BeforeRename runs after the temp file is synced and before it replaces
	// the target; an error aborts the write and leaves the target untouched.
	// The store uses it to re-check lock ownership (D5).
	BeforeRename func() error
	// NoSync skips both fsyncs (for caches whose loss is harmless).
	NoSync bool
	// NoDirSync skips the directory fsync: the caller syncs the directory
	// once after a series of writes (SyncDir) before reporting success.
	NoDirSync bool
	// Expect, when set, makes the replace conditional (fencing): it
	// happens only if the target still holds Expect's content at that
	// moment, else WriteFile returns ErrChanged and the target keeps the
	// other writer's content (see replaceIf). The store passes what it
	// read under the lock, so a writer that lost the lock while paused
	// after its last ownership check cannot overwrite its successor.
	Expect *Expect
	// ModTime, when set, becomes the new file's modification time (set on
	// the temp file before it is synced and renamed): bookkeeping writes
	// such as lease renewals keep the record's old mtime (docs/claims.md).
	ModTime time.Time
}

// WriteFile replaces path with data. On any error the target is unchanged
// and the temp file is removed.
func WriteFile(path string, data []byte, opt Options) (err error) {
	perm := opt.Perm
	if perm == 0 {
		perm = 0o644
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+TempInfix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if !opt.ModTime.IsZero() {
		if err = os.Chtimes(tmp, opt.ModTime, opt.ModTime); err != nil {
			f.Close()
			return err
		}
	}
	if !opt.NoSync {
		if err = f.Sync(); err != nil {
			f.Close()
			return fmt.Errorf("syncing %s: %w", path, err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	if opt.BeforeRename != nil {
		if err = opt.BeforeRename(); err != nil {
			return err
		}
	}
	if opt.Expect != nil {
		err = replaceIf(tmp, path, data, opt.Expect)
	} else {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return err
	}
	if !opt.NoSync && !opt.NoDirSync {
		if err = SyncDir(dir); err != nil {
			return fmt.Errorf("syncing directory %s: %w", dir, err)
		}
	}
	return nil
}

// SyncDir fsyncs a directory so renames and unlinks in it are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// IsTemp reports whether name (a base name) is a temp file of WriteFile or of
// the original implementation ("<name>.tmp.<ms>", spec §5.2).
func IsTemp(name string) bool {
	if strings.HasPrefix(name, ".") && strings.Contains(name, TempInfix) {
		return true
	}
	i := strings.LastIndex(name, ".tmp.")
	if i <= 0 {
		return false
	}
	for _, r := range name[i+5:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return len(name) > i+5
}

// SweepTemps removes temp files in dir whose mtime is older than minAge and
// returns their names. Callers hold the directory's lock, so no live writer
// of ours owns them; minAge protects writers of other tools.
func SweepTemps(dir string, minAge time.Duration, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if e.IsDir() || !IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < minAge {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed, nil
}
