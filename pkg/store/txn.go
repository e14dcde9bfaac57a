package store

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// txn is the work done while holding the lock.
type txn struct {
	s      *Store
	l      *lock.Lock
	recent *recentIndex     // nil when the dedup index is stale
	ready  *readyIndex      // nil when the ready index is stale or absent
	index  *indexHandle     // the dedup index's files (nil outside transact)
	graph  task.Graph       // built on first need
	lost   error            // set once the lock was found lost
	match  *project.Matcher // which records are this project's, on first need

	refreshed time.Time // last time .lock's timestamp was renewed
	dirty     bool      // a write happened: sync the directory before answering
	failed    bool      // a record write failed (a full disk, an I/O error)

	// seen holds, by id, the bytes of each record as read under the lock
	// (nil for an id read as absent or about to be created): a write
	// replaces the file only if it still holds them (fencing,
	// docs/design/decisions.md "Fencing").
	seen map[string][]byte
	// prior holds, by id, what the dedup index needs to know of each
	// record as read under the lock (recentIndex.note).
	prior map[string]dedupPrior

	// owner is the owner the operation acts as, kind the history kind of
	// its writes when not derived from the change, undoes the event an
	// undo reverts (history.go).
	owner  string
	kind   history.Kind
	undoes string
	// primary is the id of the last event of a write of the command's
	// own task; mirroring says the writes are other ends of its edges
	// (their events name primary in Of).
	primary   string
	mirroring bool
	// staleLease names tasks whose lease index entries were found stale
	// under the lock (their claim ended): dropped at the next index write.
	staleLease map[string]bool
}

// get reads one record under the lock (see readRec).
func (tx *txn) get(id string) (*task.Task, error) {
	t, _, err := tx.readRec(id)
	return t, err
}

// readRec reads one record and its mtime under the lock and remembers its
// bytes, so that a write of it refuses to replace a file that changed
// since (a late write).
func (tx *txn) readRec(id string) (*task.Task, time.Time, error) {
	t, data, mtime, err := tx.s.readFull(id)
	if err != nil {
		return nil, time.Time{}, err
	}
	tx.remember(id, data)
	if t != nil {
		if tx.prior == nil {
			tx.prior = map[string]dedupPrior{}
		}
		tx.prior[id] = priorOf(t, mtime)
	}
	return t, mtime, nil
}

func (tx *txn) remember(id string, data []byte) {
	if tx.seen == nil {
		tx.seen = map[string][]byte{}
	}
	tx.seen[id] = data
}

// transact runs fn under the store's lock. The lock is released (and the
// dedup index saved) whatever fn returns.
func (s *Store) transact(fn func(tx *txn) error) error {
	var pre dirState
	opt := s.Lock
	if opt.Now == nil {
		opt.Now = s.Now
	}
	opt.BeforeCreate = func(fd int) { pre, _ = statDir(fd) }
	l, err := lock.Acquire(s.Dir, opt)
	if err != nil {
		return err
	}
	if s.LogDecisions {
		b, _ := json.Marshal(l.Stats)
		s.logf("debug: lock %s", b)
	}
	if l.Stats.Evicted > 0 {
		s.logf("recovered a stale lock in %s", s.Dir)
	}
	if s.Own {
		// The project's own store: its .matrixx/ keeps this machine's
		// state out of git status (one stat when the file is there).
		if _, err := project.EnsureGitIgnore(filepath.Dir(s.Dir)); err != nil {
			s.logf("writing %s: %v", filepath.Join(filepath.Dir(s.Dir), project.GitIgnoreName), err)
		}
	}
	index := openIndex(s.Dir)
	defer index.close()
	tx := &txn{s: s, l: l, recent: index.load(pre.mtime), index: index, refreshed: time.Now()}
	if l.Stats.Kernel {
		// The ready index is kept only under the kernel lock: its stamp is
		// written after .lock is gone, which only flock keeps exclusive.
		tx.ready = openReady(s.Dir, pre, s.Ready)
	}
	defer func() { tx.ready.close() }()
	ferr := fn(tx)
	if tx.dirty {
		// One directory fsync for every rename of the transaction, before
		// any success is reported, on the descriptor the lock holds.
		if err := durable.SyncFD(l.FD(), s.Dir); err != nil && ferr == nil {
			ferr = errcode.Wrap(errcode.InternalError, err, "syncing %s", s.Dir)
		}
	}
	uerr := l.Unlink()
	// The index is re-stamped after every transaction that kept it valid,
	// whether it wrote or not: the .lock made and removed here moved the
	// directory's mtime, and a transaction that writes no record (a create
	// that only finds duplicates, a refused update or claim) would
	// otherwise leave the next create a rebuild. Every record write keeps
	// tx.recent up to date, and a legacy migration drops it (nil). After
	// an internal error or a failed record write (a full disk, an I/O
	// error) nothing more is written: the next create rebuilds.
	if tx.recent != nil && uerr == nil && tx.lost == nil && !tx.failed && (ferr == nil || errcode.Of(ferr) != errcode.InternalError) {
		_ = tx.recent.save(s.Dir, index, l.FD(), s.now())
	}
	if tx.ready != nil && uerr == nil && tx.lost == nil && !tx.failed && (ferr == nil || errcode.Of(ferr) != errcode.InternalError) {
		if err := tx.ready.save(s.Dir, l.FD()); err != nil && s.LogDecisions {
			s.logf("debug: ready index not written: %v", err)
		}
	}
	l.Release()
	if ferr != nil {
		return ferr
	}
	if uerr != nil && tx.lost == nil {
		s.logf("releasing the lock: %v", uerr)
	}
	return nil
}

// held runs fn as a transaction under the lock l that the caller already
// holds and releases itself (ClaimLocked). The dedup index is left to be
// rebuilt on its next use (it is verified against the directory's mtime).
func (s *Store) held(l *lock.Lock, fn func(tx *txn) error) error {
	tx := &txn{s: s, l: l, refreshed: time.Now()}
	err := fn(tx)
	if tx.dirty {
		if serr := durable.SyncFD(l.FD(), s.Dir); serr != nil && err == nil {
			err = errcode.Wrap(errcode.InternalError, serr, "syncing %s", s.Dir)
		}
	}
	return err
}

// write stores t atomically and durably, re-checking lock ownership right
// before the rename.
func (tx *txn) write(t *task.Task) error {
	return tx.writeAt(t, time.Time{})
}

// writeKeep stores t like write but keeps mtime as the file's modification
// time: a bookkeeping write (a lease renewal, a mirror edge, a doctor
// repair) is not activity on the task, so it neither counts as progress
// for the Stop hook nor resets staleness (docs/claims.md). It leaves the
// dedup index alone.
func (tx *txn) writeKeep(t *task.Task, mtime time.Time) error {
	if mtime.IsZero() {
		return tx.write(t)
	}
	return tx.writeAt(t, mtime)
}

func (tx *txn) writeAt(t *task.Task, mtime time.Time) error {
	if err := tx.keepAlive(); err != nil {
		return err
	}
	data, err := task.EncodeAs(t, tx.s.PluginSchema)
	if err != nil {
		return err
	}
	if len(data) > MaxRecordBytes {
		return errcode.New(errcode.ValidationError, "the record would be %d bytes, over the %d-byte cap", len(data), MaxRecordBytes)
	}
	path := filepath.Join(tx.s.Dir, task.FileName(t.ID))
	// The file must still hold what this transaction read (or still be
	// absent for a new task): a writer paused between its ownership check
	// and the replace never overwrites the write of the one that evicted it.
	// A record written without having been read in this transaction (a
	// repair from a scan) is replaced as it is.
	var expect *durable.Expect
	replaced, read := tx.seen[t.ID]
	if !read && tx.s.History != nil {
		replaced, _ = os.ReadFile(path) // a repair from a scan: what it replaces, for the history
	}
	if old, ok := tx.seen[t.ID]; ok && old == nil {
		expect = &durable.Expect{Absent: true}
	} else if ok {
		expect = &durable.Expect{Data: old}
	}
	before := tx.l.Check
	if faultBuild {
		before = func() error {
			if err := tx.l.Check(); err != nil {
				return err
			}
			afterLockCheck()
			return nil
		}
	}
	if err := tx.syncLeases(t, true); err != nil {
		return err
	}
	err = tx.s.Record.WriteFile(path, data, durable.Options{BeforeRename: before, NoDirSync: true, ModTime: mtime, Expect: expect})
	if errors.Is(err, durable.ErrChanged) {
		err = errcode.New(errcode.TaskLockUnavailable, "%s changed after this process read it under the lock: the lock was taken over while this process was paused, and the other write stands; nothing was written, retry", task.FileName(t.ID))
	}
	if errcode.Of(err) == errcode.TaskLockUnavailable {
		tx.lost = err
		return err
	}
	if err != nil {
		tx.failed = true
		return errcode.Wrap(errcode.InternalError, err, "writing %s", task.FileName(t.ID))
	}
	tx.dirty = true
	if tx.recent != nil {
		var was *dedupPrior
		if p, ok := tx.prior[t.ID]; ok {
			was = &p
		}
		if tx.prior == nil {
			tx.prior = map[string]dedupPrior{}
		}
		tx.prior[t.ID] = tx.recent.note(t, mtime, was, tx.s.now())
	}
	if tx.ready != nil {
		tx.noteReady(t)
	}
	tx.remember(t.ID, data) // a second write in the same transaction replaces this one
	tx.recordHistory(t, replaced, data, !mtime.IsZero())
	return tx.syncLeases(t, false)
}

// keepAlive fails once the lock is lost and renews .lock's timestamp every
// 10 s, so a long transaction is not taken for a dead one.
func (tx *txn) keepAlive() error {
	if tx.lost != nil {
		return tx.lost
	}
	if time.Since(tx.refreshed) < lock.StaleAfter/3 {
		return nil
	}
	tx.refreshed = time.Now()
	if err := tx.l.Refresh(tx.s.now()); err != nil {
		if errcode.Of(err) == errcode.TaskLockUnavailable {
			tx.lost = err
		}
		return err
	}
	return nil
}

// ensureRecent makes tx.recent valid, rebuilding it by scan when stale.
func (tx *txn) ensureRecent() error {
	if tx.recent != nil {
		return nil
	}
	idx, n, err := tx.s.rebuildRecent(tx.s.now())
	if err != nil {
		return err
	}
	if tx.s.LogDecisions {
		tx.s.logf("debug: dedup index rebuilt (%d recent active tasks)", n)
	}
	idx.h = tx.index
	tx.recent = idx
	return nil
}

// dependencyGraph returns the graph of every readable task, built once.
// It needs only each task's blockedBy and blocks: a ListFields scan with
// Blocks reads them without keeping the rest of each record, and accepts
// and refuses the same files as a full scan.
func (tx *txn) dependencyGraph() (task.Graph, error) {
	if tx.graph != nil {
		return tx.graph, nil
	}
	snap, err := tx.s.Scan(ScanOptions{ListFields: true, Blocks: true})
	if err != nil {
		return nil, err
	}
	tasks := make([]*task.Task, len(snap.Entries))
	for i, e := range snap.Entries {
		tasks[i] = e.Task
	}
	tx.graph = task.NewGraph(tasks)
	return tx.graph, nil
}

// addEdges refuses edges that are self-edges or close a cycle and
// otherwise adds them to the transaction's graph.
func (tx *txn) addEdges(edges []task.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	g, err := tx.dependencyGraph()
	if err != nil {
		return err
	}
	trial := task.Graph{}
	for k, v := range g {
		trial[k] = v
	}
	if err := trial.Add(edges); err != nil {
		return err
	}
	tx.graph = trial
	return nil
}

// removeEdges drops edges from the transaction's graph (when built), so
// that edges added by the same request are checked without them.
func (tx *txn) removeEdges(edges []task.Edge) {
	if tx.graph == nil || len(edges) == 0 {
		return
	}
	g := task.Graph{}
	for k, v := range tx.graph {
		g[k] = v
	}
	for _, e := range edges {
		g[e.From] = task.RemoveIDs(g[e.From], []string{e.To})
	}
	tx.graph = g
}

// exists reports whether path names a directory entry of any kind (a
// dangling symlink included: it is reported as corrupt, not as missing).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}
