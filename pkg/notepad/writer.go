// Package notepad is task-notepad-writer: a plain-markdown notepad per
// task under <root>/.matrixx/notepads/<bucket>/<n>-<slug>.md, scaffolded when
// the task is created and stamped when it is completed.
//
// Layout: exactly two kinds of bucket, flat: the plan bucket
// .matrixx/notepads/<planName>/ (only when metadata.planName is a safe plan
// name and .matrixx/plans/<planName>.md exists) and .matrixx/notepads/adhoc/.
// <n> is the count of *.md files in the bucket at write time, <slug> comes
// from the subject (Slug). Idempotency lives in the files: a scaffold is
// skipped when a line "**Task ID**: <id>" exists in a candidate bucket, a
// stamp when the notepad has a "## Completion" line.
//
// Concurrency: the count and the creation happen under the bucket's lock
// (pkg/lock on the bucket directory), and the file appears through an
// exclusive link of a complete, synced temp file, so two writers never share
// an index and a reader never sees half a scaffold. An existing name is
// never overwritten: if <n>-<slug>.md exists (a file was removed from the
// bucket and the count points at a taken name), the next free index is used.
package notepad

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// DefaultLockTimeout is the budget for a bucket's lock: 5 s.
const DefaultLockTimeout = 5 * time.Second

// Writer writes notepads for one project.
type Writer struct {
	// Root is the project root; notepads live under Root/.matrixx/notepads
	// and plans under Root/.matrixx/plans.
	Root string
	// Now returns the current time (Started and completed_at); time.Now
	// when nil.
	Now func() time.Time
	// Lock tunes the bucket lock; Timeout defaults to DefaultLockTimeout.
	Lock lock.Options
}

// Action says what a call did.
type Action string

// The actions.
const (
	Wrote          Action = "wrote"           // a new scaffold
	Exists         Action = "exists"          // the task already has a notepad
	Stamped        Action = "stamped"         // the completion stamp was appended
	AlreadyStamped Action = "already-stamped" // the notepad already has ## Completion
	NoNotepad      Action = "no-notepad"      // completion of a task without a notepad
)

// Result describes one call: what happened, to which file (relative to the
// project root), in which bucket and why that bucket.
type Result struct {
	Action Action
	Path   string
	Bucket string
	Reason Reason
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w *Writer) rel(path string) string {
	if r, err := filepath.Rel(w.Root, path); err == nil {
		return r
	}
	return path
}

func (w *Writer) lock(dir string) (*lock.Lock, error) {
	opt := w.Lock
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultLockTimeout
	}
	return lock.Acquire(dir, opt)
}

// planName returns metadata.planName when it is a non-empty string.
func planName(t *task.Task) string {
	s, _ := t.MetadataString("planName")
	return s
}

// Create writes the scaffold for a newly created task t (as read from the
// store: subject, priority, status and metadata.planName), unless a
// notepad for t.ID already exists in a candidate bucket.
func (w *Writer) Create(t *task.Task) (Result, error) {
	if !task.ValidID(t.ID) {
		return Result{}, fmt.Errorf("%q is not a task id", t.ID)
	}
	name := planName(t)
	bucket, why := Resolve(w.Root, name)
	res := Result{Bucket: bucket, Reason: why}
	dir := filepath.Join(Dir(w.Root), bucket)
	if err := safefile.MkdirNoLinks(filepath.Join(w.Root, ".matrixx"), dir); err != nil {
		return res, err
	}
	l, err := w.lock(dir)
	if err != nil {
		return res, err
	}
	defer l.Release()
	hit, err := find(w.Root, candidates(name), t.ID)
	if err != nil {
		return res, err
	}
	if hit != nil {
		res.Action, res.Path, res.Bucket = Exists, w.rel(hit.path), hit.bucket
		return res, nil
	}
	names, err := notepads(dir)
	if err != nil {
		return res, err
	}
	data := Scaffold(t.Subject, t.ID, string(t.Priority), string(t.Status), w.now())
	path, err := createExclusive(dir, len(names), Slug(t.Subject, t.ID), data, l.Check)
	if err != nil {
		return res, err
	}
	res.Action, res.Path = Wrote, w.rel(path)
	return res, nil
}

// Complete appends the completion stamp to the notepad of t (a task whose
// status is completed), unless it already has one. planName is t's
// metadata.planName as known to the caller (the plan bucket is searched
// first, adhoc always).
func (w *Writer) Complete(t *task.Task) (Result, error) {
	if !task.ValidID(t.ID) {
		return Result{}, fmt.Errorf("%q is not a task id", t.ID)
	}
	hit, err := find(w.Root, candidates(planName(t)), t.ID)
	if err != nil {
		return Result{}, err
	}
	if hit == nil {
		return Result{Action: NoNotepad}, nil
	}
	res := Result{Path: w.rel(hit.path), Bucket: hit.bucket}
	if err := safefile.MkdirNoLinks(filepath.Join(w.Root, ".matrixx"), filepath.Dir(hit.path)); err != nil {
		return res, err
	}
	l, err := w.lock(filepath.Dir(hit.path))
	if err != nil {
		return res, err
	}
	defer l.Release()
	// Re-check under the lock: another hook may have stamped it meanwhile.
	ok, completed, err := scanFile(hit.path, MarkerPrefix+t.ID)
	if err != nil {
		return res, err
	}
	if !ok {
		return Result{Action: NoNotepad}, nil
	}
	if completed {
		res.Action = AlreadyStamped
		return res, nil
	}
	if err := appendStamp(hit.path, Stamp(w.now())); err != nil {
		return res, err
	}
	res.Action = Stamped
	return res, nil
}

// maxIndexProbe bounds the search for a free index past the count.
const maxIndexProbe = 10000

// createExclusive writes data as <dir>/<n>-<slug>.md for the first n >= from
// whose name is free. The content is written and synced to a temp file
// first and then hard-linked into place, which fails if the name exists, so
// the file appears whole and nothing is overwritten. Where hard links are
// unsupported it falls back to O_EXCL creation.
func createExclusive(dir string, from int, slug string, data []byte, check func() error) (string, error) {
	tmp, err := os.CreateTemp(dir, ".notepad"+durable.TempInfix+"*")
	if err != nil {
		return "", err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if err := check(); err != nil {
		return "", err
	}
	for n := from; n < from+maxIndexProbe; n++ {
		path := filepath.Join(dir, fmt.Sprintf("%d-%s.md", n, slug))
		err := os.Link(tmpName, path)
		if err == nil {
			return path, durable.SyncDir(dir)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links here: create the name exclusively and write it.
		f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(ferr, fs.ErrExist) {
			continue
		}
		if ferr != nil {
			return "", fmt.Errorf("creating %s: %w (link: %v)", path, ferr, err)
		}
		_, werr := f.Write(data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(path)
			return "", werr
		}
		return path, durable.SyncDir(dir)
	}
	return "", fmt.Errorf("no free notepad name in %s after %d tries", dir, maxIndexProbe)
}

// appendStamp appends one blank line and the stamp (after a line break when
// the file does not end with one) with a single O_APPEND write, so an agent
// editing the notepad at the same time loses nothing.
func appendStamp(path string, stamp []byte) error {
	// O_NOFOLLOW: a notepad replaced by a link is refused, never
	// appended to through it; O_NONBLOCK: a FIFO does not hang the hook.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; nothing was appended", path)
	}
	var block []byte
	if fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			block = append(block, '\n')
		}
	}
	block = append(block, '\n')
	block = append(block, stamp...)
	if _, err := f.Write(block); err != nil {
		return err
	}
	return f.Sync()
}
