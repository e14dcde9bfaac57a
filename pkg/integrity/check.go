package integrity

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
)

// parallelFrom is the directory size (matching entries) from which a
// check stats its files from several goroutines.
const parallelFrom = 512

// Area is one covered set of files and its ledger.
type Area struct {
	// Name is the area's name in reports: tasks, plans, config, state.
	Name string
	// Dir is the directory of a directory area: every entry whose name
	// Match accepts is covered (whatever its type).
	Dir   string
	Match func(name string) bool
	// Files are the absolute paths of a file area (Dir empty); entries
	// are named by path.
	Files []string
	// Ledger is the ledger directory (see Ledger).
	Ledger string
	// LockDir is the directory whose lock (pkg/lock) the area's writers
	// hold: the task store, the plans directory, else the ledger itself.
	LockDir string
	// MaxBytes caps what is read of one file; larger files are changes
	// (never read whole).
	MaxBytes int64
	// Valid, when set, says whether content is a valid record of the
	// area (task records: the store's strict schema and a matching id).
	Valid func(name string, data []byte) bool
}

// Recorder returns the area's recorder for writers.
func (a *Area) Recorder() *Recorder {
	return &Recorder{Ledger: a.Ledger, ByPath: a.Dir == ""}
}

// Window says which changes happened during the agent's tool call.
type Window struct {
	// Start is the ctime (ns) of the tool call's marker: a change whose
	// ctime is at or after Start happened during the call.
	Start int64
	// All counts every unexplained change as the agent's (a PostToolUse
	// without a marker).
	All bool
	// None counts no change as the agent's (Stop with no open tool call,
	// accept): every change is adopted.
	None bool
	// AdoptValid adopts changes that are valid records even inside the
	// window (a task tool of another implementation sharing the store).
	AdoptValid bool
	// SharedValid adopts changes that are valid records made outside the
	// tool call's window even while a session is live: the store is
	// shared with writers that do not record their writes (the published
	// plugin; docs/compat.md).
	SharedValid bool
	// Live are the spans during which an agent session was live
	// (Sessions.Spans): a change made in one is never adopted, whether or
	// not a tool call was open (a background job, a write after Stop).
	Live []Span
}

// slack widens a live span's start by the coarse clock's lag: ctimes are
// stamped by the kernel's coarse clock, span starts by the fine one.
const slack = int64(20 * time.Millisecond)

// inCall reports whether ctime falls in the tool call's window (not
// counting the live spans).
func (w Window) inCall(ctime int64) bool {
	return !w.None && (w.All || ctime >= w.Start)
}

func (w Window) inside(ctime int64) bool {
	for _, sp := range w.Live {
		from := sp.From
		if from > math.MinInt64+slack {
			from -= slack
		}
		if ctime >= from && ctime <= sp.To {
			return true
		}
	}
	switch {
	case w.None:
		return false
	case w.All:
		return true
	}
	return ctime >= w.Start
}

// What a change was, and what the check did about it.
const (
	WhatChanged  = "changed"  // content differs from the last good one
	WhatMetadata = "metadata" // same content, other mtime or mode
	WhatDeleted  = "deleted"
	WhatCreated  = "created" // a file the ledger does not know
	WhatOdd      = "odd"     // not a regular file (link, FIFO, directory, …) or hard-linked

	ActRestored    = "restored"    // put back to its last good content and mtime
	ActQuarantined = "quarantined" // moved aside to the quarantine directory
	ActAdopted     = "adopted"     // recorded as the new good state (made outside a tool call)
	ActLost        = "lost"        // could not be put back (no good copy); reported
	ActPending     = "pending"     // the good copy could not be written back now (a full disk); kept, the next check puts it back
	ActKept        = "kept"        // left as it is and reported (it could not be moved)
)

// Change is one file that changed without our binaries.
type Change struct {
	Area       string `json:"area"`
	File       string `json:"file"`
	What       string `json:"what"`
	Action     string `json:"action"`
	Quarantine string `json:"quarantine,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Checker compares areas with their ledgers.
type Checker struct {
	// Quarantine is the directory changed files are moved to
	// (<root>/.matrixx/state/quarantine).
	Quarantine string
	// Fallback is used instead when Quarantine or one of its two parents
	// is a symbolic link (never write through links under .matrixx).
	Fallback string
	// Lock tunes taking an area's lock before anything is restored.
	Lock lock.Options
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

// Result is what one check of one area found.
type Result struct {
	// Checked counts the files compared.
	Checked int
	// Hashed counts the files whose content had to be read.
	Hashed int
	// FirstRun says the area had no ledger: everything was adopted.
	FirstRun bool
	Changes  []Change
	// dir is the directory's tuple observed before it was listed.
	dir *Entry
}

// suspect is a file whose state differs from its entry.
type suspect struct {
	name string
	what string
	st   Stat
	data []byte // content when read
	sum  Sum
}

// observation of one file against its entry.
func (a *Area) path(name string) string {
	if a.Dir == "" {
		return name
	}
	return filepath.Join(a.Dir, name)
}

// current lists the area's names present now with their stats. A missing
// directory lists nothing; a directory that is not one (a link, a file) is
// returned as dirOdd. dir is the directory's own tuple, observed before
// listing it (zero for file areas). With known set (the ledger) and its
// directory entry settled and equal to the directory now, the listing is
// skipped: only the known names are stat-ed.
func (a *Area) current(known *Ledger) (out map[string]Stat, dirOdd bool, dir Stat, err error) {
	out = map[string]Stat{}
	if a.Dir == "" {
		for _, p := range a.Files {
			st, err := lstat(p)
			if err == nil {
				out[p] = st
			} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.ENOTDIR) {
				return nil, false, dir, err
			}
		}
		return out, false, dir, nil
	}
	fd, err := unix.Open(a.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return out, false, dir, nil
		}
		if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return out, true, dir, nil
		}
		return nil, false, dir, &os.PathError{Op: "open", Path: a.Dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), a.Dir)
	defer f.Close()
	var dst unix.Stat_t
	if err := unix.Fstat(fd, &dst); err != nil {
		return nil, false, dir, &os.PathError{Op: "fstat", Path: a.Dir, Err: err}
	}
	dir = statOf(&dst)
	var names []string
	if known != nil && known.DirEntry != nil && known.DirEntry.Settled && sameTuple(dir, known.DirEntry.Stat) {
		names = make([]string, 0, len(known.Entries))
		for n := range known.Entries {
			names = append(names, n)
		}
	} else {
		names, err = f.Readdirnames(-1)
		if err != nil && err != io.EOF {
			return nil, false, dir, err
		}
	}
	keep := names[:0]
	for _, n := range names {
		if a.Match(n) {
			keep = append(keep, n)
		}
	}
	stats := make([]Stat, len(keep))
	ok := make([]bool, len(keep))
	// fstatat dominates the cost of a check: split a large directory
	// between a few goroutines (the kernel's path lookups run in parallel).
	workers := 1
	if len(keep) >= parallelFrom {
		workers = 4
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(keep); i += workers {
				if st, err := lstatAt(fd, keep[i]); err == nil {
					stats[i], ok[i] = st, true
				}
			}
		}()
	}
	wg.Wait()
	out = make(map[string]Stat, len(keep))
	for i, n := range keep {
		if ok[i] {
			out[n] = stats[i] // a name gone since the listing is skipped
		}
	}
	return out, false, dir, nil
}

// compare judges one present file against its entry (nil: unknown). It
// returns nil when the file is as recorded; settle is set when the
// entry's tuple should be refreshed (same content and mtime).
func (a *Area) compare(name string, st Stat, e *Entry, res *Result) (s *suspect, settle *Entry) {
	if !st.regular() || st.Nlink > 1 {
		return &suspect{name: name, what: WhatOdd, st: st}, nil
	}
	if e == nil {
		return &suspect{name: name, what: WhatCreated, st: st}, nil
	}
	if e.Settled && sameTuple(st, e.Stat) {
		return nil, nil
	}
	if st.Size != e.Stat.Size || st.Size > a.MaxBytes {
		return &suspect{name: name, what: WhatChanged, st: st}, nil
	}
	res.Hashed++
	data, err := readCapped(a.path(name), a.MaxBytes)
	if err != nil {
		return &suspect{name: name, what: WhatChanged, st: st}, nil
	}
	sum := SumOf(data)
	st2, err := lstat(a.path(name))
	if err != nil || !sameTuple(st, st2) {
		// Changing while read: judge it again under the lock.
		return &suspect{name: name, what: WhatChanged, st: st}, nil
	}
	if sum != e.Sum {
		return &suspect{name: name, what: WhatChanged, st: st, data: data, sum: sum}, nil
	}
	if (e.Stat.Mtime != 0 && st.Mtime != e.Stat.Mtime) || st.perm() != e.Stat.perm() {
		return &suspect{name: name, what: WhatMetadata, st: st, data: data, sum: sum}, nil
	}
	now, tick := coarseNow()
	ne := &Entry{Sum: sum, Stat: st, Settled: now >= st.Ctime+2*tick}
	if sameTuple(st, e.Stat) && ne.Settled == e.Settled {
		return nil, nil
	}
	return nil, ne
}

func sameTuple(a, b Stat) bool {
	return a.Size == b.Size && a.Mode == b.Mode && a.Mtime == b.Mtime && a.Ctime == b.Ctime && a.Ino == b.Ino
}

// scan compares the whole area with l.
func (a *Area) scan(l *Ledger, res *Result) ([]*suspect, map[string]*Entry, bool, error) {
	cur, dirOdd, dir, err := a.current(l)
	if err != nil {
		return nil, nil, false, err
	}
	if a.Dir != "" && !dirOdd && dir.Ino != 0 {
		now, tick := coarseNow()
		res.dir = &Entry{Stat: dir, Settled: now >= dir.Ctime+2*tick}
	}
	var sus []*suspect
	settle := map[string]*Entry{}
	for name, st := range cur {
		res.Checked++
		s, ne := a.compare(name, st, l.Entries[name], res)
		if s != nil {
			sus = append(sus, s)
		}
		if ne != nil {
			settle[name] = ne
		}
	}
	for name := range l.Entries {
		if _, ok := cur[name]; !ok {
			sus = append(sus, &suspect{name: name, what: WhatDeleted})
		}
	}
	sort.Slice(sus, func(i, j int) bool { return sus[i].name < sus[j].name })
	return sus, settle, dirOdd, nil
}

// Check compares area a with its ledger and deals with every change made
// without our binaries: inside the window it restores the last good
// content and mtime (moving the changed file to the quarantine first) or,
// without a good copy, quarantines; outside it adopts. Every change is
// confirmed under the area's lock first, so an acknowledged write of our
// binaries (recorded under that lock) is never reverted. With nothing
// changed it only stats (and hashes the files written since the last
// check) and takes no lock.
func (c *Checker) Check(a *Area, w Window) (*Result, error) {
	res := &Result{}
	l, err := Load(a.Ledger)
	if err != nil {
		return c.locked(a, res, func(l *Ledger) error { return c.brokenLedger(a, l, res) })
	}
	if l.Fresh {
		return c.locked(a, res, func(l *Ledger) error {
			if l.Fresh {
				res.FirstRun = true
				return c.adoptAll(a, l, res, nil)
			}
			return c.repair(a, l, w, res)
		})
	}
	sus, settle, dirOdd, err := a.scan(l, res)
	if err != nil {
		return res, err
	}
	if len(sus) == 0 && !dirOdd && !c.bookkeepingOdd(a) {
		var b strings.Builder
		for name, e := range settle {
			b.WriteString(settleLine(name, e))
		}
		if d := res.dir; d != nil && (l.DirEntry == nil || !sameTuple(d.Stat, l.DirEntry.Stat) || d.Settled != l.DirEntry.Settled) {
			// Observed before a listing that found everything as
			// recorded: a later entry change makes the tuple differ.
			b.WriteString(putLine(dirName, d))
		}
		if b.Len() > 0 {
			_ = appendLines(a.Ledger, b.String())
		}
		if l.JournalLines > compactAfter {
			return c.locked(a, res, func(l *Ledger) error { return l.compact() })
		}
		return res, nil
	}
	res.Checked, res.Hashed = 0, 0
	return c.locked(a, res, func(l *Ledger) error { return c.repair(a, l, w, res) })
}

// Baseline records an area no check has run on yet (no ledger at all, or
// only the journal lines our binaries wrote) as it is, and reports whether
// it did. It runs before an agent acts (the first event of a session whose
// start was not seen), so the check after its tool call compares with
// what was there before the call. Such a session counts as live since
// before every change: without a baseline, every file the journal does not
// know (a store cloned, copied or written before the toolkit was used
// here) would be taken for the call's and quarantined.
func (c *Checker) Baseline(a *Area) (bool, error) {
	if !unchecked(a.Ledger) {
		return false, nil
	}
	res := &Result{}
	_, err := c.locked(a, res, func(l *Ledger) error {
		if !l.Unchecked {
			return nil
		}
		res.FirstRun = true
		return c.adoptAll(a, l, res, nil)
	})
	return res.FirstRun, err
}

// unchecked reports whether the ledger directory has no base, so no check
// has run on its area yet (one stat).
func unchecked(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, baseFile))
	return errors.Is(err, os.ErrNotExist)
}

// Dirs puts the project's own directories right before the areas are
// checked: .matrixx and its tasks, plans, state and state/continuation
// must be real directories the owner can list, enter and write. One that
// is a symbolic link or not a directory is moved to the fallback
// quarantine (never written through: a link may point where the agent
// wants the restores to go); the areas' checks then restore their files
// into a new directory. One whose owner permission bits lack read, write
// or search gets them back.
func (c *Checker) Dirs(root string) []Change {
	var out []Change
	for _, rel := range []string{".matrixx", ".matrixx/tasks", ".matrixx/plans", ".matrixx/state", ".matrixx/state/continuation"} {
		p := filepath.Join(root, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		ch := Change{Area: "project", File: rel + "/", What: WhatOdd}
		switch {
		case !fi.IsDir():
			q, err := c.moveAside(p, "project", filepath.Base(rel))
			if err != nil {
				ch.Action, ch.Error = ActKept, err.Error()
			} else {
				ch.Action, ch.Quarantine = ActQuarantined, q
			}
			out = append(out, ch)
		case fi.Mode().Perm()&0o700 != 0o700:
			ch.What = WhatMetadata
			if err := os.Chmod(p, fi.Mode().Perm()|0o700); err != nil {
				ch.Action, ch.Error = ActKept, err.Error()
			} else {
				ch.Action = ActRestored
			}
			out = append(out, ch)
		}
	}
	return out
}

// moveAside moves path into the fallback quarantine (outside the
// project), else the quarantine.
func (c *Checker) moveAside(path, area, name string) (string, error) {
	fb := *c
	if fb.Fallback != "" {
		fb.Quarantine = fb.Fallback
	}
	return fb.quarantine(&Area{Name: area}, path, name)
}

// bookkeepingOdd reports whether the area's own bookkeeping was tampered
// with in a way only the locked path repairs: the ledger directory is not
// a directory, or the .lock of the area's lock directory is not a regular
// file (two stats).
func (c *Checker) bookkeepingOdd(a *Area) bool {
	if fi, err := os.Lstat(a.Ledger); err == nil && !fi.IsDir() {
		return true
	}
	dir := a.LockDir
	if dir == "" {
		dir = a.Ledger
	}
	st, err := lstat(filepath.Join(dir, lock.FileName))
	return err == nil && !st.regular()
}

// Accept records the area as it is now as its good state.
func (c *Checker) Accept(a *Area) (*Result, error) {
	res := &Result{}
	return c.locked(a, res, func(l *Ledger) error { return c.adoptAll(a, l, res, nil) })
}

// locked runs fn with the area's lock held and the ledger reloaded.
func (c *Checker) locked(a *Area, res *Result, fn func(l *Ledger) error) (*Result, error) {
	if fi, err := os.Lstat(a.Ledger); err == nil && !fi.IsDir() {
		// The ledger directory was replaced (by a file, a link): moved
		// aside and reported; the area starts over below.
		ch := Change{Area: a.Name, File: "(ledger)", What: WhatOdd, Error: "the integrity ledger was replaced by something that is not a directory; nothing could be compared or put back"}
		if q, err := c.quarantine(a, a.Ledger, "ledger"); err != nil {
			ch.Action, ch.Error = ActKept, ch.Error+": "+err.Error()
			res.Changes = append(res.Changes, ch)
			return res, err
		} else {
			ch.Action, ch.Quarantine = ActQuarantined, q
		}
		res.Changes = append(res.Changes, ch)
	}
	if err := os.MkdirAll(a.Ledger, 0o700); err != nil {
		return res, err
	}
	lockDir := a.LockDir
	if lockDir == "" {
		lockDir = a.Ledger
	}
	if fi, err := os.Lstat(lockDir); err != nil || !fi.IsDir() {
		// The area's directory is missing or not a directory: restore
		// under the ledger's own lock (our writers cannot write there
		// either until it is a directory again).
		lockDir = a.Ledger
	}
	c.oddLock(a, lockDir, res)
	opt := c.Lock
	if opt.Timeout == 0 {
		opt.Timeout = 3 * time.Second
	}
	lk, err := lock.Acquire(lockDir, opt)
	if err != nil && c.oddLock(a, lockDir, res) {
		lk, err = lock.Acquire(lockDir, opt) // one planted while we waited
	}
	if err != nil {
		return res, err
	}
	defer func() {
		_ = lk.Unlink()
		lk.Release()
	}()
	l, err := Load(a.Ledger)
	if err != nil {
		l = &Ledger{Dir: a.Ledger, Entries: map[string]*Entry{}, Fresh: true}
		if err := c.brokenLedger(a, l, res); err != nil {
			return res, err
		}
		return res, nil
	}
	if err := fn(l); err != nil {
		return res, err
	}
	return res, nil
}

// oddLock moves a .lock that is not a regular file (a FIFO, a directory, a
// symbolic link, a device: no implementation writes one, and the lock
// protocol would wait for it to grow stale) out of dir into the
// quarantine and reports it, so it never silences the check. It reports
// whether it moved one.
func (c *Checker) oddLock(a *Area, dir string, res *Result) bool {
	p := filepath.Join(dir, lock.FileName)
	st, err := lstat(p)
	if err != nil || st.regular() {
		return false
	}
	ch := Change{Area: a.Name, File: lock.FileName, What: WhatOdd}
	q, err := c.quarantine(a, p, lock.FileName)
	switch {
	case err != nil:
		ch.Action, ch.Error = ActKept, err.Error()
	case q != "":
		if moved, err := lstat(q); err == nil && moved.regular() {
			// A writer's real lock took the name meanwhile: put it back.
			if os.Link(q, p) == nil {
				_ = os.Remove(q)
			}
			return false
		}
		ch.Action, ch.Quarantine = ActQuarantined, q
	default:
		return false
	}
	res.Changes = append(res.Changes, ch)
	return true
}

// brokenLedger moves an unreadable ledger aside and adopts the area as
// it is, reporting it (nothing can be restored without the ledger).
func (c *Checker) brokenLedger(a *Area, l *Ledger, res *Result) error {
	q, _ := c.quarantine(a, filepath.Join(a.Ledger, baseFile), "ledger")
	res.Changes = append(res.Changes, Change{Area: a.Name, File: "(ledger)", What: WhatChanged, Action: ActQuarantined, Quarantine: q, Error: "the ledger was unreadable; the area was adopted as it is"})
	l.Entries = map[string]*Entry{}
	return c.adoptAll(a, l, res, nil)
}

// adoptAll records every regular file of the area as good; other files
// are reported (only is nil: all).
func (c *Checker) adoptAll(a *Area, l *Ledger, res *Result, only map[string]bool) error {
	l.DirEntry = nil // the next check lists the directory again
	cur, _, _, err := a.current(nil)
	if err != nil {
		return err
	}
	for name := range l.Entries {
		if _, ok := cur[name]; !ok {
			delete(l.Entries, name)
		}
	}
	for name, st := range cur {
		res.Checked++
		if !st.regular() {
			res.Changes = append(res.Changes, Change{Area: a.Name, File: name, What: WhatOdd, Action: ActKept, Error: "not a regular file: not recorded"})
			delete(l.Entries, name)
			continue
		}
		if e := l.Entries[name]; e != nil && e.Settled && sameTuple(st, e.Stat) {
			continue
		}
		if err := c.adoptFile(a, l, name); err != nil {
			res.Changes = append(res.Changes, Change{Area: a.Name, File: name, What: WhatChanged, Action: ActKept, Error: err.Error()})
		}
	}
	return l.compact()
}

// adoptFile records the file as it is now.
func (c *Checker) adoptFile(a *Area, l *Ledger, name string) error {
	p := a.path(name)
	st, err := lstat(p)
	if err != nil {
		return err
	}
	data, err := readCapped(p, a.MaxBytes)
	if err != nil {
		return err
	}
	st2, err := lstat(p)
	if err != nil || !sameTuple(st, st2) {
		return fmt.Errorf("%s changed while it was read", name)
	}
	sum := SumOf(data)
	if err := saveBlob(l.Dir, sum, data); err != nil {
		return err
	}
	now, tick := coarseNow()
	l.Entries[name] = &Entry{Sum: sum, Stat: st, Settled: now >= st.Ctime+2*tick}
	return nil
}

// repair re-judges the area under the lock and acts on each change.
func (c *Checker) repair(a *Area, l *Ledger, w Window, res *Result) error {
	l.DirEntry = nil // restores change the directory: list it next time
	if a.Dir != "" {
		if fi, err := os.Lstat(a.Dir); err == nil && !fi.IsDir() {
			// The directory itself was replaced (by a link, a file).
			ch := Change{Area: a.Name, File: filepath.Base(a.Dir) + "/", What: WhatOdd}
			if q, err := c.quarantine(a, a.Dir, ""); err != nil {
				ch.Action, ch.Error = ActKept, err.Error()
				res.Changes = append(res.Changes, ch)
				return nil
			} else {
				ch.Action, ch.Quarantine = ActQuarantined, q
			}
			res.Changes = append(res.Changes, ch)
		}
	}
	sus, settle, _, err := a.scan(l, res)
	if err != nil {
		return err
	}
	for name, e := range settle {
		l.Entries[name] = e
	}
	var dirCtime int64 = -1
	for _, s := range sus {
		inside := false
		if s.what == WhatDeleted {
			if dirCtime < 0 {
				dirCtime = 0
				d := a.Dir
				if d == "" {
					d = filepath.Dir(s.name)
				}
				if st, err := lstat(d); err == nil {
					dirCtime = st.Ctime
				} else {
					// The directory itself went away: dated now.
					dirCtime, _ = coarseNow()
				}
			}
			inside = w.inside(dirCtime)
		} else {
			inside = w.inside(s.st.Ctime)
		}
		res.Changes = append(res.Changes, c.act(a, l, w, s, inside))
	}
	return l.compact()
}

// act deals with one confirmed change.
func (c *Checker) act(a *Area, l *Ledger, w Window, s *suspect, inside bool) Change {
	ch := Change{Area: a.Name, File: s.name, What: s.what}
	p := a.path(s.name)
	if s.what == WhatOdd {
		// A link, FIFO, device, directory or extra hard link under a
		// covered name is never adopted: it is moved aside (and the last
		// good content put back).
		return c.replace(a, l, s, ch)
	}
	if !inside || s.what != WhatDeleted && (w.AdoptValid || w.SharedValid && !w.inCall(s.st.Ctime)) && c.valid(a, s) {
		if s.what == WhatDeleted {
			delete(l.Entries, s.name)
		} else if err := c.adoptFile(a, l, s.name); err != nil {
			ch.Action, ch.Error = ActKept, err.Error()
			return ch
		}
		ch.Action = ActAdopted
		return ch
	}
	switch s.what {
	case WhatMetadata:
		e := l.Entries[s.name]
		err := os.Chmod(p, e.Stat.perm())
		if err == nil && e.Stat.Mtime != 0 {
			err = setMtime(p, e.Stat.Mtime)
		}
		if err != nil {
			ch.Action, ch.Error = ActKept, err.Error()
			return ch
		}
		if st, err := lstat(p); err == nil {
			l.Entries[s.name] = &Entry{Sum: e.Sum, Stat: st}
		}
		ch.Action = ActRestored
		return ch
	case WhatCreated:
		q, err := c.quarantine(a, p, s.name)
		if err != nil {
			ch.Action, ch.Error = ActKept, err.Error()
			return ch
		}
		ch.Action, ch.Quarantine = ActQuarantined, q
		return ch
	}
	return c.replace(a, l, s, ch)
}

// valid reports whether the changed file is a valid record of the area.
func (c *Checker) valid(a *Area, s *suspect) bool {
	if a.Valid == nil || !s.st.regular() {
		return false
	}
	data := s.data
	if data == nil {
		var err error
		if data, err = readCapped(a.path(s.name), a.MaxBytes); err != nil {
			return false
		}
	}
	return a.Valid(s.name, data)
}

// replace moves the current file (if any) to the quarantine and puts the
// last good content back.
func (c *Checker) replace(a *Area, l *Ledger, s *suspect, ch Change) Change {
	p := a.path(s.name)
	if s.what != WhatDeleted {
		q, err := c.quarantine(a, p, s.name)
		if err != nil {
			ch.Action, ch.Error = ActKept, err.Error()
			return ch
		}
		ch.Quarantine = q
	}
	e := l.Entries[s.name]
	if e == nil {
		ch.Action = ActQuarantined
		return ch
	}
	data, err := readBlob(l.Dir, e.Sum, max(a.MaxBytes, e.Stat.Size))
	if err != nil {
		delete(l.Entries, s.name)
		ch.Action, ch.Error = ActLost, "no good copy to put back: "+err.Error()
		if ch.Quarantine != "" {
			ch.Action = ActQuarantined
		}
		return ch
	}
	st, err := c.restore(p, data, e.Stat)
	if err != nil {
		// The good copy is still in the ledger (its entry stays): the
		// next check finds the file changed or missing again and writes
		// it back then.
		ch.Action, ch.Error = ActPending, "not written back yet: the last good copy is kept and the next check puts it back ("+err.Error()+")"
		return ch
	}
	l.Entries[s.name] = &Entry{Sum: e.Sum, Stat: st}
	ch.Action = ActRestored
	return ch
}

// restore writes data to path durably with the mode and mtime of old.
func (c *Checker) restore(path string, data []byte, old Stat) (Stat, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stat{}, err
	}
	perm := old.perm()
	if perm == 0 {
		perm = 0o644
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+durable.TempInfix+"*")
	if err != nil {
		return Stat{}, err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return Stat{}, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return Stat{}, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return Stat{}, err
	}
	if err := f.Close(); err != nil {
		return Stat{}, err
	}
	if old.Mtime != 0 {
		if err := setMtime(tmp, old.Mtime); err != nil {
			return Stat{}, err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return Stat{}, err
	}
	ok = true
	_ = durable.SyncDir(dir)
	return lstat(path)
}

// quarantine moves path aside into the quarantine directory and returns
// its new path. Across filesystems a regular file or a link is copied
// and removed; other types (FIFOs, devices, sockets: no content) are
// removed; a directory that cannot be renamed is kept.
func (c *Checker) quarantine(a *Area, path, name string) (string, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	qdir := c.Quarantine
	for d, i := qdir, 0; i < 3 && c.Fallback != ""; d, i = filepath.Dir(d), i+1 {
		if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			qdir = c.Fallback
			break
		}
	}
	if err := os.MkdirAll(qdir, 0o700); err != nil {
		return "", err
	}
	if fi, err := os.Lstat(qdir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("the quarantine %s is not a directory", qdir)
	}
	base := filepath.Base(path)
	q := filepath.Join(qdir, fmt.Sprintf("%s-%s-%s", now().UTC().Format("20060102T150405.000000000"), a.Name, base))
	err := os.Rename(path, q)
	if err == nil {
		return q, nil
	}
	if !errors.Is(err, unix.EXDEV) {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	fi, lerr := os.Lstat(path)
	if lerr != nil {
		return "", lerr
	}
	switch {
	case fi.Mode().IsRegular():
		data, err := readCapped(path, 1<<30)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(q, data, 0o600); err != nil {
			return "", err
		}
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if err := os.Symlink(target, q); err != nil {
			return "", err
		}
	case fi.IsDir():
		return "", fmt.Errorf("%s is a directory on another filesystem than the quarantine; move it away by hand", path)
	default:
		q = ""
	}
	if err := os.Remove(path); err != nil {
		return q, err
	}
	return q, nil
}
