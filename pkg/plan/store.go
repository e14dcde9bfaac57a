package plan

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
)

// MaxBytes caps a plan file: 100 KiB (102400 bytes). A create or an edit
// whose result would be larger is refused with file_too_large and the file
// is left as it was.
const MaxBytes = 100 << 10

// MaxReadBytes caps what is read of a plan file written by other means:
// 4 MiB. Larger files are file_too_large even for reading.
const MaxReadBytes = 4 << 20

// tempAge is the age past which a temp file left in the plans directory by
// a killed writer is removed by the next write.
const tempAge = time.Hour

// DirOf returns the plans directory of a project: <root>/.matrixx/plans.
func DirOf(root string) string { return filepath.Join(root, ".matrixx", "plans") }

// Store is one project's plans directory.
//
// Reads never take the lock and never write. Writes (create, update,
// delete, check, sync) take the lock of package lock on the directory (the
// task store's protocol: .lock plus flock), re-read the plan under it, and
// replace the file with durable.WriteFile, which re-checks the lock right
// before its rename. So concurrent writers are serialized, each one
// validates its anchors against the content it is about to change, and no
// acknowledged edit is lost.
type Store struct {
	// Dir is the plans directory (DirOf).
	Dir string
	// Root is the project root; paths in messages are relative to it.
	Root string
	// Lock tunes lock acquisition.
	Lock lock.Options
	// Record, when set, records every write and removal of a plan in the
	// integrity ledger under the lock (docs/integrity.md).
	Record *integrity.Recorder
}

// Path returns the file of plan name (which must be valid).
func (s *Store) Path(name string) string { return filepath.Join(s.Dir, name+Ext) }

// rel returns path relative to the project root, for messages.
func (s *Store) rel(path string) string {
	if r, err := filepath.Rel(s.Root, path); err == nil && s.Root != "" {
		return r
	}
	return path
}

// Plan is one plan as read.
type Plan struct {
	Name string
	// Size is the file's size in bytes.
	Size int
	// Text is the content as lines.
	Text hashline.Text
}

// Items returns the plan's numbered checkbox items.
func (p *Plan) Items() []Item { return Items(p.Text.Lines) }

// Info is a plan's entry in plan list (and the head of most answers).
type Info struct {
	Name string `json:"name"`
	// Size is the file size in bytes.
	Size     int      `json:"size"`
	Progress Progress `json:"progress"`
}

// Info returns the plan's name, size and progress.
func (p *Plan) Info() Info {
	return Info{Name: p.Name, Size: p.Size, Progress: ProgressOf(p.Items())}
}

// Read reads plan name. Errors: invalid_file_path (bad name, a symbolic
// link or not a regular file), file_not_found, file_too_large (over
// MaxReadBytes), internal_error.
func (s *Store) Read(name string) (*Plan, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	data, err := s.readFile(name)
	if err != nil {
		return nil, err
	}
	return &Plan{Name: name, Size: len(data), Text: hashline.Split(string(data))}, nil
}

// readFile reads a plan file without following a symbolic link.
func (s *Store) readFile(name string) ([]byte, error) {
	path := s.Path(name)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, s.openError(name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "reading %s", s.rel(path))
	}
	if !fi.Mode().IsRegular() {
		return nil, errcode.New(errcode.InvalidFilePath, "%s is not a regular file; plans are plain files written by plan create", s.rel(path))
	}
	if fi.Size() > MaxReadBytes {
		return nil, errcode.New(errcode.FileTooLarge, "%s is %d bytes; plans are capped at %d bytes and files over %d are not read", s.rel(path), fi.Size(), MaxBytes, MaxReadBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "reading %s", s.rel(path))
	}
	if len(data) > MaxReadBytes {
		return nil, errcode.New(errcode.FileTooLarge, "%s grew past %d bytes while it was read", s.rel(path), MaxReadBytes)
	}
	return data, nil
}

func (s *Store) openError(name string, err error) error {
	path := s.Path(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errcode.New(errcode.FileNotFound, "plan %s does not exist (%s); plan list shows the plans, plan create makes one", name, s.rel(path))
	case errors.Is(err, syscall.ELOOP):
		return errcode.New(errcode.InvalidFilePath, "%s is a symbolic link; plans are plain files written by plan create", s.rel(path))
	case errors.Is(err, syscall.ENOTDIR):
		return errcode.New(errcode.InvalidFilePath, "%s: a part of the path is not a directory", s.rel(path))
	}
	return errcode.Wrap(errcode.InternalError, err, "opening %s", s.rel(path))
}

// exists reports whether plan name has a file (of any kind).
func (s *Store) exists(name string) (bool, error) {
	_, err := os.Lstat(s.Path(name))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, errcode.Wrap(errcode.InternalError, err, "checking %s", s.rel(s.Path(name)))
}

// locked runs fn holding the plans directory's lock (created with the
// directory when missing) and sweeps temp files left by killed writers.
func (s *Store) locked(fn func(l *lock.Lock) error) error {
	if _, err := os.Stat(s.Dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			return errcode.Wrap(errcode.InternalError, err, "creating %s", s.rel(s.Dir))
		}
		// make the new directories themselves durable
		for d := filepath.Dir(s.Dir); ; d = filepath.Dir(d) {
			_ = durable.SyncDir(d)
			if d == s.Root || d == filepath.Dir(d) || s.Root == "" {
				break
			}
		}
	}
	l, err := lock.Acquire(s.Dir, s.Lock)
	if err != nil {
		return err
	}
	defer l.Release()
	_, _ = durable.SweepTemps(s.Dir, tempAge, time.Now())
	return fn(l)
}

// write replaces plan name's file with data under the held lock l, after
// checking the size cap.
// expect, when set, is what the file must still hold (or that it must
// still be absent) at the replace: a writer that lost the lock while it
// was paused after its last check never overwrites its successor's plan.
func (s *Store) write(l *lock.Lock, name string, data []byte, expect *durable.Expect) error {
	if len(data) > MaxBytes {
		return tooLarge(len(data))
	}
	if err := s.Record.WriteFile(s.Path(name), data, durable.Options{BeforeRename: l.Check, Expect: expect}); err != nil {
		if errors.Is(err, durable.ErrChanged) {
			return errcode.New(errcode.TaskLockUnavailable, "%s changed after this process read it under the lock: the lock was taken over while this process was paused, and the other write stands; nothing was written, retry", s.rel(s.Path(name)))
		}
		if errcode.Of(err) != errcode.InternalError {
			return err
		}
		return errcode.Wrap(errcode.InternalError, err, "writing %s", s.rel(s.Path(name)))
	}
	return nil
}

func tooLarge(n int) error {
	return errcode.New(errcode.FileTooLarge, "the plan would be %d bytes; plans are capped at %d bytes (100 KiB); nothing was changed (split it into several plans)", n, MaxBytes)
}
