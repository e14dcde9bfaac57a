package integrity

import (
	"fmt"

	"errors"
	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Recorder records the writes of our binaries to one area, in the area's
// ledger, while the writer holds the area's lock. A nil *Recorder records
// nothing (the second line is not set up, e.g. in unit tests).
type Recorder struct {
	// Ledger is the area's ledger directory (Area.Ledger).
	Ledger string
	// ByPath names entries by absolute path (file areas such as the
	// config) instead of by base name (directory areas).
	ByPath bool
}

func (r *Recorder) name(path string) string {
	if r.ByPath {
		return path
	}
	return filepath.Base(path)
}

// Intent records, before the rename that makes it visible, that path is
// about to hold data with permissions perm: the content is kept as a blob
// and a P line is appended to the journal. An error means the write must
// not happen (the caller aborts it, so no write of ours is ever missing
// from the ledger). undo, for a rename that then failed, records the file
// as it really is.
func (r *Recorder) Intent(path string, data []byte, perm os.FileMode) (undo func(), err error) {
	return r.intent(path, data, Stat{Size: int64(len(data)), Mode: unix.S_IFREG | uint32(perm.Perm())})
}

// intent is Intent with the stat tuple the file will have: a P line with
// the temp file's mtime and inode, which its rename keeps, so that no S
// line is needed after the rename (the tuple is not settled either way:
// the next check hashes the file once and settles it).
func (r *Recorder) intent(path string, data []byte, st Stat) (undo func(), err error) {
	if r == nil {
		return func() {}, nil
	}
	sum := SumOf(data)
	if err := saveBlob(r.Ledger, sum, data); err != nil {
		return nil, err
	}
	e := &Entry{Sum: sum, Stat: st}
	if err := appendLines(r.Ledger, putLine(r.name(path), e)); err != nil {
		return nil, err
	}
	compactIfLong(r.Ledger) // the copies of older versions go (retention.go)
	return func() { r.Observe(path) }, nil
}

// Done records the stat tuple of path after its rename (best effort: a
// lost S line only costs one hash at the next check).
func (r *Recorder) Done(path string, data []byte) {
	if r == nil {
		return
	}
	st, err := lstat(path)
	if err != nil {
		return
	}
	_ = appendLines(r.Ledger, settleLine(r.name(path), &Entry{Sum: SumOf(data), Stat: st}))
}

// Removing records, before the removal, that path is about to be removed.
// undo, for a removal that then failed, records the file as it is.
func (r *Recorder) Removing(path string) (undo func(), err error) {
	if r == nil {
		return func() {}, nil
	}
	if err := appendLines(r.Ledger, deleteLine(r.name(path))); err != nil {
		return nil, err
	}
	return func() { r.Observe(path) }, nil
}

// Observe records path as it is now (a P line with its hash and stat, or
// a D line when it is missing). Used to undo an intent whose rename or
// removal failed; the caller holds the lock.
func (r *Recorder) Observe(path string) {
	if r == nil {
		return
	}
	st, err := lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		_ = appendLines(r.Ledger, deleteLine(r.name(path)))
		return
	}
	if err != nil || !st.regular() {
		return
	}
	data, err := readCapped(path, 64<<20)
	if err != nil {
		return
	}
	sum := SumOf(data)
	if saveBlob(r.Ledger, sum, data) != nil {
		return
	}
	_ = appendLines(r.Ledger, putLine(r.name(path), &Entry{Sum: sum, Stat: st}))
}

// WriteFile is durable.WriteFile recorded in r: opt.BeforeRename (the
// writer's lock check) runs first, then the intent is recorded, with the
// stat tuple of the temp file (its inode, mode and mtime survive the
// rename; its ctime does not, and the entry is not settled), so one
// journal line records the write. A nil r writes without recording.
func (r *Recorder) WriteFile(path string, data []byte, opt durable.Options) error {
	if r == nil {
		return durable.WriteFile(path, data, opt)
	}
	check := opt.BeforeRename
	written := opt.Written
	var st Stat
	opt.Written = func(ust *unix.Stat_t) {
		st = statOf(ust)
		if written != nil {
			written(ust)
		}
	}
	var undo func()
	opt.BeforeRename = func() error {
		if check != nil {
			if err := check(); err != nil {
				return err
			}
		}
		u, err := r.intent(path, data, st)
		if err != nil {
			return fmt.Errorf("recording the write in the integrity ledger %s (make it writable, set XDG_STATE_HOME, or list task-integrity-check in disabled_hooks): %w", r.Ledger, err)
		}
		undo = u
		return nil
	}
	err := durable.WriteFile(path, data, opt)
	if err != nil && undo != nil {
		undo()
	}
	return err
}

// Remove is os.Remove recorded in r (a nil r removes without recording).
func (r *Recorder) Remove(path string) error {
	if r == nil {
		return os.Remove(path)
	}
	undo, err := r.Removing(path)
	if err != nil {
		return fmt.Errorf("recording the removal in the integrity ledger %s (make it writable, set XDG_STATE_HOME, or list task-integrity-check in disabled_hooks): %w", r.Ledger, err)
	}
	if err := os.Remove(path); err != nil {
		undo()
		return err
	}
	return nil
}
