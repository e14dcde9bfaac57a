package tasksync

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// SyncConflict is the error code of a sync whose push was rejected more
// often than its budget allows: nothing is lost, the local changes are
// committed on the local ref and the next sync pushes them.
const SyncConflict errcode.Code = "sync_conflict"

// DefaultAttempts is the push budget of one sync: 8 fetch-merge-push rounds.
const DefaultAttempts = 8

// Options say what one sync moves and where.
type Options struct {
	// Root is the project root: the git repository's work tree (or any
	// directory inside it).
	Root string
	// TasksDir is the task store (store.Resolve); PlansDir the plans
	// directory (plan.DirOf).
	TasksDir, PlansDir string
	// StateDir receives the remote version of records that cannot be
	// merged (<root>/.matrixx/state).
	StateDir string
	// Remote is the git remote (default "origin").
	Remote string
	// Attempts is the push budget (DefaultAttempts when zero).
	Attempts int
	// Lock tunes the store and plans locks.
	Lock lock.Options
	// Log receives human notes (skipped files); may be nil.
	Log io.Writer
	// LogDecisions adds notes about internal decisions to Log ("debug:
	// …" lines; the binaries set it when MATRIXX_DEBUG is set).
	LogDecisions bool
	// NoPush fetches and merges but does not push (RemoteClaim's first
	// step does push; tests use it).
	NoPush bool
	// TasksRecord and PlansRecord record every write and removal the sync
	// (and Import) makes in the store and the plans in their integrity
	// ledgers (docs/integrity.md), as store.Store.Record and
	// plan.Store.Record do for the other binaries: without it the hook's
	// post-call check would undo a sync run inside an agent's tool call.
	// nil records nothing (the check is switched off).
	TasksRecord, PlansRecord *integrity.Recorder
}

func (o *Options) remote() string {
	if o.Remote == "" {
		return "origin"
	}
	return o.Remote
}

func (o *Options) debugf(format string, args ...any) {
	if o.LogDecisions {
		o.logf("debug: "+format, args...)
	}
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "task-sync: "+format+"\n", args...)
	}
}

// Sync fetches the remote's ref, merges it into the local store, commits
// and pushes, retrying a rejected push up to the budget (docs/sync.md).
// Errors: sync_conflict when the budget runs out (nothing lost; the
// contract.SyncResult still holds what the rounds did and decided, which the answer
// carries), git_failed, task_lock_unavailable, internal_error.
func Sync(o Options) (*contract.SyncResult, error) {
	res := &contract.SyncResult{Conflicts: []contract.SyncConflict{}}
	err := withRepo(o, func(r *repo) error { return syncLoop(r, &o, res, nil) })
	return res, err
}

func withRepo(o Options, fn func(r *repo) error) error {
	r, err := openRepo(o.Root, nil)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.ensureDriver(); err != nil {
		o.logf("warning: could not register the merge driver: %v", err)
	}
	return fn(r)
}

// syncLoop runs fetch, merge, push rounds. check, when set, runs under the
// locks after each merge and reports whether it wrote to the store, which
// is then committed before the push (RemoteClaim makes or verifies its
// claim there).
func syncLoop(r *repo, o *Options, res *contract.SyncResult, check func(tl *lock.Lock) (bool, error)) error {
	attempts := o.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	remote := o.remote()
	for i := 0; i < attempts; i++ {
		// The fetch runs while the store is looked at (without the lock):
		// a sync with nothing to do costs little more than the fetch.
		var found bool
		var err error
		fetched := make(chan struct{})
		go func() {
			found, err = r.fetch(remote)
			close(fetched)
		}()
		if i == 0 {
			r.presnapshot(o)
		}
		<-fetched
		if err != nil {
			return err
		}
		rtip := ""
		if found {
			if rtip, err = r.tip(trackingRef(remote)); err != nil {
				return err
			}
		}
		if i == 0 && check == nil && rtip != "" && rtip == r.pre.idleTip() {
			// Nothing to do (docs/sync.md, "Speed"): the store holds
			// exactly the files of the commit it was last synced to, and
			// both the local ref and the remote's still point at it. The
			// sync writes nothing, so it takes no lock.
			if lt, ok := r.readRef(Ref); ok && lt == rtip {
				r.pre = nil
				res.Tip = rtip
				o.debugf("nothing changed on either side since the last sync at %s", rtip)
				return nil
			}
		}
		tip, tree, err := r.step(o, res, rtip, check)
		if err != nil {
			return err
		}
		res.Tip = tip
		if tip == rtip || o.NoPush {
			return nil
		}
		err = r.push(remote, tip)
		if errors.Is(err, errRejected) {
			// Someone pushed first: back off a random while (growing with
			// each round) so racing machines do not collide again in step.
			time.Sleep(time.Duration(rand.Int64N(int64(20*time.Millisecond) << min(i, 4))))
			continue
		}
		if err != nil {
			return err
		}
		rtree := ""
		if rtip != "" {
			if _, rtree, err = r.commit(rtip); err != nil {
				return err
			}
		}
		rf, err := r.tree(rtree)
		if err != nil {
			return err
		}
		tf, err := r.tree(tree)
		if err != nil {
			return err
		}
		res.Pushed += countDiff(rf, tf, false)
		_ = r.updateRef(trackingRef(remote), tip, rtip)
		return nil
	}
	return errcode.New(SyncConflict, "the remote's %s moved %d times while this sync tried to push; nothing was lost (the local changes are committed on %s and the next task-sync pushes them); retry", Branch, attempts, Ref)
}

// countDiff counts the files that differ between a and b; without
// histories, only records and plans (a task's history travels with its
// record and is not counted apart in the answer).
func countDiff(a, b files, histories bool) int {
	n := 0
	for p, oid := range a {
		if b[p] != oid && (histories || !isHistory(p)) {
			n++
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok && (histories || !isHistory(p)) {
			n++
		}
	}
	return n
}

func isHistory(p string) bool { return strings.HasPrefix(p, "history/") }

// countRecords counts the paths that are records or plans.
func countRecords(paths []string) int {
	n := 0
	for _, p := range paths {
		if !isHistory(p) {
			n++
		}
	}
	return n
}

// step commits the local store on the local ref, merges the remote tip
// into it and writes the result into the store, all under the store's and
// the plans' locks. It returns the new local tip and its tree.
func (r *repo) step(o *Options, res *contract.SyncResult, rtip string, check func(tl *lock.Lock) (bool, error)) (string, string, error) {
	// The directories' mtimes right before .lock is created (the kernel
	// lock already held) say whether anything changed since the snapshot
	// taken during the fetch (preSnapshot).
	opt := o.Lock
	var seen [2]int64
	opt.BeforeCreate = func(int) { seen[0] = dirMtime(o.TasksDir) }
	tl, err := lock.Acquire(o.TasksDir, opt)
	if err != nil {
		return "", "", err
	}
	defer tl.Release()
	opt.BeforeCreate = func(int) { seen[1] = dirMtime(o.PlansDir) }
	pl, err := lock.Acquire(o.PlansDir, opt)
	if err != nil {
		return "", "", err
	}
	defer pl.Release()
	if r.pre != nil {
		r.pre.seen = seen
	}
	tip, tree, err := r.stepLocked(o, res, rtip, tl, pl, check)
	uerr := pl.Unlink()
	if e := tl.Unlink(); uerr == nil {
		uerr = e
	}
	if err == nil && uerr != nil {
		err = uerr
	}
	return tip, tree, err
}

// tip resolves a ref to its commit id ("" when absent), reading the ref
// files when it can (no git process).
func (r *repo) tip(ref string) (string, error) {
	if oid, ok := r.readRef(ref); ok {
		return oid, nil
	}
	oid, _, err := r.commit(ref)
	return oid, err
}

// local is the local side of one step: the ref's tip, tree and listing,
// the store's listing and what was read of it, and the stat cache.
type local struct {
	tip, tree string
	list      files
	read      map[string][]byte
	stats     map[string]statEntry
	cache     *statCache
}

// commitLocal commits the store's current content on the local ref when
// it differs from the ref's tree (or the ref does not exist yet).
func (r *repo) commitLocal(o *Options) (*local, error) {
	var c *statCache
	var cur files
	var stats map[string]statEntry
	var read map[string][]byte
	if pre := r.pre; pre != nil {
		r.pre = nil
		c = pre.decoded()
		cur, stats, read, _ = pre.locked()
	} else {
		c = r.loadCache(o)
	}
	lt, err := r.tip(Ref)
	if err != nil {
		return nil, err
	}
	l := &local{tip: lt, cache: c}
	if lt != "" && c.Tip == lt && c.List != nil {
		l.tree, l.list = c.Tree, c.List
	} else {
		if _, l.tree, err = r.commit(lt); err != nil {
			return nil, err
		}
		if l.list, err = r.tree(l.tree); err != nil {
			return nil, err
		}
	}
	if cur == nil {
		if cur, stats, read, err = r.snapshot(o, c); err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "reading the store")
		}
	}
	l.read, l.stats = read, stats
	if lt != "" && countDiff(cur, l.list, true) == 0 {
		return l, nil
	}
	changed := map[string][]byte{}
	for p, oid := range cur {
		if l.list[p] == oid {
			continue
		}
		data, ok := read[p]
		if !ok {
			if data, err = readRegular(filepath.Join(o.areaDir(p), filepath.Base(p)), history.MaxFileBytes); err != nil || r.hashBlob(data) != oid {
				delete(cur, p) // changed under us (a foreign writer): next sync
				continue
			}
			read[p] = data
		}
		changed[p] = data
	}
	if err := r.storeBlobs(changed); err != nil {
		return nil, err
	}
	t, err := r.writeTree(cur)
	if err != nil {
		return nil, err
	}
	if lt == "" || t != l.tree {
		host, _ := os.Hostname()
		cm, err := r.commitTree(t, "task-sync: local changes on "+host, lt)
		if err != nil {
			return nil, err
		}
		if err := r.updateRef(Ref, cm, lt); err != nil {
			return nil, err
		}
		l.tip, l.tree = cm, t
	}
	l.list = cur
	return l, nil
}

func (r *repo) stepLocked(o *Options, res *contract.SyncResult, rtip string, tl, pl *lock.Lock, check func(tl *lock.Lock) (bool, error)) (string, string, error) {
	tip, tree, err := r.mergeLocked(o, res, rtip, tl, pl)
	if err != nil || check == nil {
		return tip, tree, err
	}
	wrote, err := check(tl)
	if err != nil || !wrote {
		return tip, tree, err
	}
	l, err := r.commitLocal(o)
	if err != nil {
		return "", "", err
	}
	r.saveCache(o, l.cache, &statCache{Tip: l.tip, Tree: l.tree, List: l.list, Stats: keepStats(l.stats, time.Now())})
	return l.tip, l.tree, nil
}

func (r *repo) mergeLocked(o *Options, res *contract.SyncResult, rtip string, tl, pl *lock.Lock) (string, string, error) {
	l, err := r.commitLocal(o)
	if err != nil {
		return "", "", err
	}
	ltip, ltree, lfiles, local := l.tip, l.tree, l.list, l.read
	done := func(tip, tree string, list files) (string, string, error) {
		r.saveCache(o, l.cache, &statCache{Tip: tip, Tree: tree, List: list, Stats: keepStats(l.stats, time.Now())})
		return tip, tree, nil
	}
	rtree := ""
	if rtip == "" || rtip == ltip {
		return done(ltip, ltree, lfiles)
	}
	mb, err := r.mergeBase(ltip, rtip)
	if err != nil {
		return "", "", err
	}
	if mb == rtip {
		return done(ltip, ltree, lfiles) // the remote has nothing we lack
	}
	if _, rtree, err = r.commit(rtip); err != nil {
		return "", "", err
	}
	bfiles := files{}
	if mb != "" {
		_, btree, err := r.commit(mb)
		if err != nil {
			return "", "", err
		}
		if bfiles, err = r.tree(btree); err != nil {
			return "", "", err
		}
	}
	// The remote's files are input: what would come into the store is
	// checked like stdin, and a refused file is left out (remoteFiles).
	rfiles, refused, err := r.remoteFiles(rtree, lfiles, bfiles)
	if err != nil {
		return "", "", err
	}
	for _, f := range refused {
		o.logf("refused %s from %s/%s: %s; nothing of it was written", f.Path, o.remote(), Branch, f.Reason)
	}
	res.Refused = append(res.Refused, refused...)
	// A removal the remote brings is not always applied (keepRemoved).
	kept, err := r.keepRemoved(res, bfiles, lfiles, rfiles, local)
	if err != nil {
		return "", "", err
	}
	var target, ttree string
	var want files
	contents := map[string][]byte{}
	if mb == ltip && len(refused) == 0 && !kept {
		target, ttree, want = rtip, rtree, rfiles // fast-forward
	} else {
		// A merge commit (also in place of a fast-forward when files were
		// refused or a removal was not applied as it came): its tree holds what the store will hold, so the next
		// push replaces the refused files on the remote's branch.
		want, err = r.merge3(o, res, bfiles, lfiles, rfiles, local, contents)
		if err != nil {
			return "", "", err
		}
		if err := r.recordRemovals(lfiles, want, local, contents); err != nil {
			return "", "", err
		}
		if err := r.storeBlobs(contents); err != nil {
			return "", "", err
		}
		if ttree, err = r.writeTree(want); err != nil {
			return "", "", err
		}
		host, _ := os.Hostname()
		if target, err = r.commitTree(ttree, "task-sync: merge "+o.remote()+"/"+Branch+" on "+host, ltip, rtip); err != nil {
			return "", "", err
		}
	}
	// Write what changed into the store (it holds lfiles now).
	written, err := r.apply(o, lfiles, want, contents, tl, pl)
	res.Pulled += countRecords(written)
	if err != nil {
		return "", "", err
	}
	r.feedArrivals(o, written, lfiles, want, local, contents)
	if err := r.updateRef(Ref, target, ltip); err != nil {
		return "", "", err
	}
	restat(o, l.stats, want, written)
	return done(target, ttree, want)
}

// feedArrivals appends to this machine's history feed the events that the
// history files the sync wrote (written) brought: those of the new file
// (want) that the old one (have) lacked. The feed is a convenience for
// readers that follow it: a failure is a warning, the files stand.
func (r *repo) feedArrivals(o *Options, written []string, have, want files, local, contents map[string][]byte) {
	log := history.Open(o.TasksDir)
	content := func(p, oid string, known map[string][]byte) []byte {
		if oid == "" {
			return nil
		}
		if d, ok := known[p]; ok && r.hashBlob(d) == oid {
			return d
		}
		d, _ := r.blob(oid)
		return d
	}
	for _, p := range written {
		if !strings.HasPrefix(p, "history/") || want[p] == "" {
			continue
		}
		id := strings.TrimSuffix(filepath.Base(p), history.Ext)
		if err := log.Arrived(id, content(p, have[p], local), content(p, want[p], contents)); err != nil {
			o.logf("warning: the history feed was not told of %s's new events: %v", id, err)
		}
	}
}

// storeBlobs writes contents as blobs (through scratch files and one git
// hash-object) and checks git computed the ids we did.
func (r *repo) storeBlobs(contents map[string][]byte) error {
	if len(contents) == 0 {
		return nil
	}
	if r.scratch == "" {
		d, err := os.MkdirTemp(r.gitDir, "matrixx-sync-")
		if err != nil {
			return errcode.Wrap(GitFailed, err, "creating a scratch directory in %s", r.gitDir)
		}
		r.scratch = d
	}
	dir, err := os.MkdirTemp(r.scratch, "blobs-")
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "writing blobs")
	}
	defer os.RemoveAll(dir)
	var paths []string
	i := 0
	for _, data := range contents {
		p := filepath.Join(dir, fmt.Sprint(i))
		i++
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return errcode.Wrap(errcode.InternalError, err, "writing blobs")
		}
		paths = append(paths, p)
	}
	return r.writeBlobs(paths)
}

// apply makes the store hold want instead of have: it writes every
// changed file to a temp file (mode 0644, as every write of the toolkit),
// makes them all durable with one syncfs(2), renames each into place
// (re-checking the lock right before each rename, renewing it every 10 s,
// and recording the write in the area's integrity ledger between the check
// and the rename, so a write whose ledger line cannot be written does not
// happen) and syncs the directories; then removes the files want lacks
// (recorded the same way). It returns the paths it changed.
func (r *repo) apply(o *Options, have, want files, contents map[string][]byte, tl, pl *lock.Lock) ([]string, error) {
	type pending struct {
		p, tmp, target string
		data           []byte
	}
	var todo []pending
	defer func() {
		for _, t := range todo {
			os.Remove(t.tmp)
		}
	}()
	dirs := map[string]bool{}
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	dirOf := func(p string) (string, *lock.Lock, *integrity.Recorder) {
		switch {
		case strings.HasPrefix(p, "plans/"):
			return o.PlansDir, pl, o.PlansRecord
		case strings.HasPrefix(p, "history/"):
			// The history is a log, not a record: the integrity check
			// does not cover it (docs/history.md).
			return o.areaDir(p), tl, nil
		}
		return o.TasksDir, tl, o.TasksRecord
	}
	for _, p := range paths {
		oid := want[p]
		if have[p] == oid {
			continue
		}
		data, ok := contents[p]
		if !ok || r.hashBlob(data) != oid {
			var err error
			if data, err = r.blob(oid); err != nil {
				return nil, err
			}
		}
		dir, _, _ := dirOf(p)
		if strings.HasPrefix(p, "history/") {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, errcode.Wrap(errcode.InternalError, err, "writing into %s", dir)
			}
		}
		f, err := os.CreateTemp(dir, "."+filepath.Base(p)+durable.TempInfix+"*")
		if err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "writing into %s", dir)
		}
		todo = append(todo, pending{p, f.Name(), filepath.Join(dir, filepath.Base(p)), data})
		_, err = f.Write(data)
		if err == nil {
			err = f.Chmod(filePerm)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "writing into %s", dir)
		}
	}
	if len(todo) > 0 {
		if err := syncFS(o.TasksDir); err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "syncing %s", o.TasksDir)
		}
		if o.PlansDir != "" {
			_ = syncFS(o.PlansDir)
		}
	}
	var written []string
	refreshed := time.Now()
	for len(todo) > 0 {
		t := todo[0]
		_, l, rec := dirOf(t.p)
		if time.Since(refreshed) > lock.StaleAfter/3 {
			refreshed = time.Now()
			if err := tl.Refresh(time.Now()); err != nil {
				return written, err
			}
			if err := pl.Refresh(time.Now()); err != nil {
				return written, err
			}
		}
		if err := l.Check(); err != nil {
			return written, err
		}
		undo, err := rec.Intent(t.target, t.data, filePerm)
		if err != nil {
			return written, ledgerError(rec, err)
		}
		if err := os.Rename(t.tmp, t.target); err != nil {
			undo()
			return written, errcode.Wrap(errcode.InternalError, err, "writing %s", t.target)
		}
		rec.Done(t.target, t.data)
		todo = todo[1:]
		written = append(written, t.p)
		d, _, _ := dirOf(t.p)
		dirs[d] = true
	}
	for p := range have {
		if _, ok := want[p]; ok {
			continue
		}
		dir, l, rec := dirOf(p)
		if err := l.Check(); err != nil {
			return written, err
		}
		target := filepath.Join(dir, filepath.Base(p))
		undo, err := rec.Removing(target)
		if err != nil {
			return written, ledgerError(rec, err)
		}
		if err := os.Remove(target); err != nil && !errors.Is(err, os.ErrNotExist) {
			undo()
			return written, errcode.Wrap(errcode.InternalError, err, "removing %s", target)
		}
		dirs[dir] = true
		written = append(written, p)
	}
	for d := range dirs {
		if err := durable.SyncDir(d); err != nil {
			return written, errcode.Wrap(errcode.InternalError, err, "syncing %s", d)
		}
	}
	return written, nil
}

// filePerm is the mode of every file the sync and the import write: the
// same as durable.WriteFile's (the integrity check counts other permission
// bits as a change).
const filePerm = 0o644

// ledgerError is a write refused because its integrity ledger line could
// not be written (the write did not happen).
func ledgerError(rec *integrity.Recorder, err error) error {
	return errcode.Wrap(errcode.InternalError, err, "recording the write in the integrity ledger %s (make it writable, set XDG_STATE_HOME, or list task-integrity-check in disabled_hooks)", rec.Ledger)
}

// validPath reports whether a path of a store tree may be written into the
// store: tasks/<valid id>.json, plans/<valid name>.md or
// history/<valid id>.jsonl (a task's history, docs/history.md).
func validPath(p string) bool {
	dir, name, ok := strings.Cut(p, "/")
	return ok && validEntry(dir, name)
}

// validEntry reports whether name, an entry of the store's tasks or plans
// directory (dir), is a file the sync moves (validPath of dir/name).
func validEntry(dir, name string) bool {
	if strings.Contains(name, "/") {
		return false
	}
	switch dir {
	case "tasks":
		return store.IsTaskFile(name) && task.ValidID(strings.TrimSuffix(name, ".json"))
	case "plans":
		return strings.HasSuffix(name, plan.Ext) && plan.CheckName(strings.TrimSuffix(name, plan.Ext)) == nil
	case "history":
		return strings.HasSuffix(name, history.Ext) && task.ValidID(strings.TrimSuffix(name, history.Ext))
	}
	return false
}

// areaDir is the directory of the store path p: plans/ the plans
// directory, history/ the task store's history (<store>/.history), tasks/
// the task store.
func (o *Options) areaDir(p string) string {
	switch {
	case strings.HasPrefix(p, "plans/"):
		return o.PlansDir
	case strings.HasPrefix(p, "history/"):
		return filepath.Join(o.TasksDir, history.DirName)
	}
	return o.TasksDir
}

// readRegular reads a regular file without following a link or blocking
// on a FIFO, refusing files over max bytes before reading them.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, errors.New("a symbolic link (never followed)")
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%d bytes, over the %d-byte cap", fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("grew past the %d-byte cap while read", max)
	}
	return data, nil
}

// Setup registers the record merge driver in the repository holding root
// (ensureDriver). Errors: git_failed.
func Setup(root string) error {
	r, err := openRepo(root, nil)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.ensureDriver(); err != nil {
		return errcode.Wrap(GitFailed, err, "registering the merge driver")
	}
	return nil
}

// driverName is the merge driver's name in .git/config and attributes.
const driverName = "matrixx-task"

// ensureDriver registers the record merge driver in this repository only
// (.git/config and .git/info/attributes; nothing committed), so a plain
// `git merge` of the matrixx-tasks branch (or of a working branch that
// tracks .matrixx/tasks) merges records as task-sync does.
func (r *repo) ensureDriver() error {
	attr := filepath.Join(r.gitDir, "info", "attributes")
	line := "T-*.json merge=" + driverName
	b, _ := os.ReadFile(attr)
	cfg, _ := os.ReadFile(filepath.Join(r.gitDir, "config"))
	if strings.Contains(string(b), line+"\n") && strings.Contains(string(cfg), `[merge "`+driverName+`"]`) {
		return nil
	}
	exe := "task-sync"
	if _, err := exec.LookPath("task-sync"); err != nil {
		if p, err := os.Executable(); err == nil {
			exe = p
		}
	}
	if _, err := r.run(nil, nil, "config", "merge."+driverName+".name", "matrixx task record merge (task-sync merge-driver, docs/sync.md)"); err != nil {
		return err
	}
	if _, err := r.run(nil, nil, "config", "merge."+driverName+".driver", shellQuote(exe)+" merge-driver %O %A %B %P"); err != nil {
		return err
	}
	if err := appendLine(attr, line); err != nil {
		return err
	}
	// Keep the store untracked on the working branch unless the project
	// tracks it there (the opt-in of docs/sync.md): info/exclude is local.
	// Nothing under .matrixx/ tracked: all of it; only its .gitignore or
	// matrixx.jsonc tracked: the tasks and the plans.
	exclude := filepath.Join(r.gitDir, "info", "exclude")
	if out, err := r.run(nil, nil, "ls-files", "--", ".matrixx"); err == nil && len(out) == 0 {
		return appendLine(exclude, "/.matrixx/")
	}
	if out, err := r.run(nil, nil, "ls-files", "--", ".matrixx/tasks", ".matrixx/plans"); err == nil && len(out) == 0 {
		if err := appendLine(exclude, "/.matrixx/tasks/"); err != nil {
			return err
		}
		return appendLine(exclude, "/.matrixx/plans/")
	}
	return nil
}

// appendLine adds line to the file at path unless a line of it already
// says the same.
func appendLine(path, line string) error {
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == line {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	prefix := ""
	if len(b) > 0 && b[len(b)-1] != '\n' {
		prefix = "\n"
	}
	_, err = f.WriteString(prefix + line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func shellQuote(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
