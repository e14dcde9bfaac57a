package feed

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Watcher keeps the last seen state of every record file of one task
// directory and reports what changed since the previous sweep. It reads
// only files whose stat tuple (inode, size, mtime, ctime) moved, so a sweep
// of an unchanged store of 10,000 tasks is one directory listing and
// 10,000 fstatat calls, no read. It never writes and never takes the lock.
//
// How a change is noticed (Poll): every write of the toolkit is a rename
// into the directory, and so is a git checkout's, so the directory's
// mtime moves with each; the watcher looks at it every Poll interval
// (one fstat) and sweeps when it moved, or when the last sweep started
// less than a second after it (a filesystem with coarse timestamps can
// hide a second change under the same stamp). A file edited in place (an editor that writes over the
// file, `echo >>`) does not move the directory: a full sweep runs at least
// every FullEvery for those. Polling works the same on every filesystem,
// network ones and containers' overlays included, and costs one fstat a
// tick while nothing changes; the kernel's reports (Notify) come on top of
// it, at once and naming the files, where the kernel can see the writes.
type Watcher struct {
	// Dir is the task directory.
	Dir string
	// Ledger, when set, is the integrity ledger directory of the store
	// (docs/integrity.md): a file whose content the ledger does not hold
	// was written outside the toolkit (Change.Outside).
	Ledger string

	// WakeDirs are directories whose changes wake the watcher without
	// being swept (the history's, so its events are read at once).
	WakeDirs []string

	files    map[string]*file
	n        *notifier // nil: polling only
	dirMtime int64
	swept    time.Time
	ledger   ledgerCache
}

// file is the watcher's view of one T-*.json entry.
type file struct {
	st      statKey
	t       *task.Task
	problem string
}

type statKey struct {
	ino                uint64
	size, mtime, ctime int64
}

// Change is one record file that differs from the previous sweep. Old is
// nil for a file that appeared (or was unreadable before), New for one
// that went away (or became unreadable: then Problem says why).
type Change struct {
	Name     string
	Old, New *task.Task
	Problem  string
	// Sum is history.Sum of the new file's bytes ("" when it is gone or
	// could not be read): a change the history recorded carries it.
	Sum string
	// Outside says the new content (or the removal) was not written by the
	// toolkit: the store's integrity ledger does not know it. Always false
	// without a ledger.
	Outside bool
}

// FullEvery is the longest time between two full sweeps; FullEveryNotified
// the same while the kernel reports changes (Notify): then a full sweep
// only catches what it cannot report (another machine's write to a
// network filesystem), and at 10,000 tasks it is the one costly look, so
// it runs less often and delays fewer reported changes.
const (
	FullEvery         = 2 * time.Second
	FullEveryNotified = 10 * time.Second
)

// checkNotifier goes back to polling alone once the kernel's reports
// stopped (the directory was removed or moved away, the read failed).
func (w *Watcher) checkNotifier() {
	if w.n != nil && w.n.stopped() {
		w.n.close()
		w.n = nil
	}
}

// full is the longest time between two full sweeps now.
func (w *Watcher) full() time.Duration {
	if w.n != nil {
		return FullEveryNotified
	}
	return FullEvery
}

// racy is how long after the directory's mtime a sweep must have started
// to have seen every change stamped with it: a filesystem's timestamps
// are coarser than a nanosecond (a kernel tick; a second on some), so a
// second change within the same tick leaves the mtime as it was.
const racy = time.Second

// Notify asks the kernel to report changes to the directory (inotify on
// Linux): the channel receives a value after each batch of them, and
// Sweep then looks at the files named instead of every file, with a full
// sweep still every FullEveryNotified. nil when the kernel cannot: the watcher
// polls as before. Close stops it.
func (w *Watcher) Notify() <-chan struct{} {
	if w.n == nil {
		w.n = startNotifier(w.Dir)
		if w.n == nil {
			return nil
		}
		for _, d := range w.WakeDirs {
			w.n.watchAlso(d)
		}
	}
	return w.n.wake
}

// Close stops Notify's reports.
func (w *Watcher) Close() {
	if w.n != nil {
		w.n.close()
		w.n = nil
	}
}

// Tasks returns the records as of the last sweep, by id (the map is the
// watcher's own: read it, do not keep it across sweeps).
func (w *Watcher) Tasks() map[string]*task.Task {
	out := make(map[string]*task.Task, len(w.files))
	for _, f := range w.files {
		if f.t != nil {
			out[f.t.ID] = f.t
		}
	}
	return out
}

// Problems returns the files that could not be read as tasks, by name.
func (w *Watcher) Problems() []store.Problem {
	var out []store.Problem
	for name, f := range w.files {
		if f.t == nil && f.problem != "" {
			out = append(out, store.Problem{File: name, Error: f.problem})
		}
	}
	return out
}

// Due reports whether a sweep should run now: the directory moved, is
// recent, or the last full sweep is FullEvery old. It costs one stat.
func (w *Watcher) Due(now time.Time) bool {
	w.checkNotifier()
	if w.files == nil || now.Sub(w.swept) >= w.full() {
		return true
	}
	if w.n != nil {
		return w.n.pending()
	}
	var st unix.Stat_t
	if err := unix.Stat(w.Dir, &st); err != nil {
		return w.dirMtime != 0
	}
	m := st.Mtim.Nano()
	return m != w.dirMtime || w.swept.UnixNano() < m+int64(racy)
}

// Sweep lists the directory and returns what changed since the previous
// sweep, in file-name order of discovery. The first sweep reports nothing
// and only records the store as it is. A missing directory is an empty
// store.
func (w *Watcher) Sweep(now time.Time) ([]Change, error) {
	w.checkNotifier()
	if w.n != nil && w.files != nil && now.Sub(w.swept) < w.full() {
		if names, all := w.n.take(); !all {
			return w.sweepNames(names)
		}
	}
	first := w.files == nil
	if first {
		w.files = map[string]*file{}
	}
	if w.n != nil {
		w.n.take() // this sweep looks at every file
		for _, d := range w.WakeDirs {
			w.n.watchAlso(d)
		}
	}
	w.swept = now
	var dst unix.Stat_t
	if err := unix.Stat(w.Dir, &dst); err == nil {
		w.dirMtime = dst.Mtim.Nano()
	} else {
		w.dirMtime = 0
	}
	names, err := listNames(w.Dir)
	if err != nil {
		return nil, err
	}
	var changes []Change
	seen := make(map[string]bool, len(names))
	dirfd, err := unix.Open(w.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return nil, err
	}
	if err == nil {
		defer unix.Close(dirfd)
	}
	for _, name := range names {
		seen[name] = true
		ch, ok := w.look(dirfd, name, first)
		if !ok {
			seen[name] = false // gone meanwhile: handled as removed below
			continue
		}
		if ch != nil {
			changes = append(changes, *ch)
		}
	}
	sortChanges(changes)
	for name, f := range w.files {
		if seen[name] {
			continue
		}
		delete(w.files, name)
		if f.t != nil && !first {
			changes = append(changes, Change{Name: name, Old: f.t, Outside: w.outside(name, nil)})
		}
	}
	return changes, nil
}

// sortChanges puts new files first (an edge's mirror on an existing task
// is written in the same transaction as the task that made it), then
// orders by name: ids sort by creation time.
func sortChanges(changes []Change) {
	slices.SortFunc(changes, func(a, b Change) int {
		if (a.Old == nil) != (b.Old == nil) {
			if a.Old == nil {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// look stats one entry and reads it when its stat tuple moved: the change
// it makes (nil when none), ok false when it is gone.
func (w *Watcher) look(dirfd int, name string, first bool) (*Change, bool) {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return nil, false
	}
	key := statKey{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
	old := w.files[name]
	if old != nil && old.st == key {
		return nil, true
	}
	nf := &file{st: key}
	data, rerr := safefile.ReadFile(filepath.Join(w.Dir, name), store.MaxRecordBytes, false)
	switch {
	case rerr != nil:
		nf.problem = rerr.Error()
	default:
		t, derr := task.DecodeRecord(data)
		switch {
		case derr != nil:
			nf.problem = derr.Error()
		case task.FileName(t.ID) != name:
			nf.problem = "id " + t.ID + " does not match the file name"
		default:
			nf.t = t
		}
	}
	w.files[name] = nf
	if first {
		return nil, true
	}
	var oldT *task.Task
	if old != nil {
		oldT = old.t
	}
	if oldT == nil && nf.t == nil {
		return nil, true
	}
	if oldT != nil && nf.t != nil && sameRecord(oldT, nf.t) {
		return nil, true
	}
	ch := &Change{Name: name, Old: oldT, New: nf.t, Problem: nf.problem}
	if rerr == nil {
		ch.Outside = w.outside(name, data)
		ch.Sum = history.Sum(data)
	}
	return ch, true
}

// sweepNames looks at the named entries only (those the notifier reported
// since the last sweep): what changed among them, in Sweep's order.
func (w *Watcher) sweepNames(names []string) ([]Change, error) {
	if len(names) == 0 {
		return nil, nil
	}
	dirfd, err := unix.Open(w.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		w.n.again() // looked at in full by the next sweep
		return nil, nil
	}
	defer unix.Close(dirfd)
	slices.Sort(names)
	var changes, removed []Change
	for _, name := range names {
		if !store.IsTaskFile(name) {
			continue
		}
		ch, ok := w.look(dirfd, name, false)
		if ok {
			if ch != nil {
				changes = append(changes, *ch)
			}
			continue
		}
		if f := w.files[name]; f != nil {
			delete(w.files, name)
			if f.t != nil {
				removed = append(removed, Change{Name: name, Old: f.t, Outside: w.outside(name, nil)})
			}
		}
	}
	sortChanges(changes)
	return append(changes, removed...), nil
}

// listNames returns the T-*.json names in dir; none when it is missing.
func listNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	all, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, n := range all {
		if store.IsTaskFile(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// sameRecord reports whether two records encode alike (a touch, a rewrite
// with the same content).
func sameRecord(a, b *task.Task) bool {
	ea, err1 := task.Encode(a)
	eb, err2 := task.Encode(b)
	return err1 == nil && err2 == nil && string(ea) == string(eb)
}

// ledgerCache is the integrity ledger, reloaded when its files change.
type ledgerCache struct {
	key [2]statKey
	l   *integrity.Ledger
}

// outside reports whether data (nil: a removal) of name is unknown to the
// ledger. Without a ledger, or with one that holds nothing yet (a store
// no check has adopted), nothing is outside.
func (w *Watcher) outside(name string, data []byte) bool {
	if w.Ledger == "" {
		return false
	}
	l := w.ledger.load(w.Ledger)
	if l == nil || l.Fresh {
		return false
	}
	e, ok := l.Entries[name]
	if data == nil {
		return ok
	}
	return !ok || e.Sum != sha256.Sum256(data)
}

func (c *ledgerCache) load(dir string) *integrity.Ledger {
	var key [2]statKey
	for i, n := range []string{"ledger", "journal"} {
		var st unix.Stat_t
		if unix.Stat(filepath.Join(dir, n), &st) == nil {
			key[i] = statKey{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
		}
	}
	if c.l != nil && key == c.key {
		return c.l
	}
	l, err := integrity.Load(dir)
	if err != nil {
		return nil
	}
	c.key, c.l = key, l
	return l
}
