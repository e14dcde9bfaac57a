// Package lock implements the task store's interoperable lock, the one
// the original implementation takes too.
//
// The lock is the file ".lock" in the locked directory, created exclusively
// and holding {"id":"<uuid>","timestamp":<ms epoch>} plus our own fields
// pid, host and flock. A lock is stale after 30 s and released only by the
// holder whose id it carries, so the original implementation and ours can
// share one directory.
//
// Among our own processes a kernel lock (flock(2) on the directory itself,
// which is never deleted) is taken first: waiters queue in the kernel, a
// holder that is paused keeps its lock (no one takes over from it), and a
// .lock marked "flock":true whose writer is dead (same host, pid gone) is
// evicted at once instead of after 30 s. Where flock is unsupported the
// package falls back to the plain .lock protocol.
//
// Eviction never deletes a live holder's lock: a stale .lock is claimed by
// renaming it to a unique name, and if what was claimed is not the file
// that was judged stale it is linked back.
package lock

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofrs/flock"
	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// FileName is the lock file's name inside the locked directory.
const FileName = ".lock"

// StaleAfter is the age past which a .lock may be evicted.
const StaleAfter = 30 * time.Second

// DefaultTimeout is the default budget for acquiring the lock: 10 s.
const DefaultTimeout = 10 * time.Second

// claimPrefix names a .lock claimed for eviction; it is a temp name
// (durable.IsTemp) so task-cleanup sweeps leftovers.
const claimPrefix = ".lock.tmp-evict-"

// Options tune Acquire.
type Options struct {
	// Timeout is the total budget for acquiring; DefaultTimeout when zero.
	Timeout time.Duration
	// Stale is the eviction age; StaleAfter when zero.
	Stale time.Duration
	// NoKernel skips flock and uses the plain .lock protocol only.
	NoKernel bool
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// BeforeCreate, when set, runs right before each attempt to create
	// .lock (with the kernel lock already held), given the descriptor of
	// the locked directory. The store uses it to read the directory's
	// mtime (fstat) for its dedup index.
	BeforeCreate func(dirfd int)
}

// Stats describe one acquisition, for traces and benchmarks. As JSON:
// {"waitedNs":<ns>,"attempts":N,"evicted":N,"kernel":bool}.
type Stats struct {
	Waited   time.Duration
	Attempts int
	Evicted  int
	Kernel   bool
}

type statsJSON struct {
	WaitedNs int64 `json:"waitedNs"`
	Attempts int   `json:"attempts"`
	Evicted  int   `json:"evicted"`
	Kernel   bool  `json:"kernel"`
}

// MarshalJSON encodes s with the wait in nanoseconds.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{int64(s.Waited), s.Attempts, s.Evicted, s.Kernel})
}

// UnmarshalJSON decodes the form MarshalJSON writes.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var v statsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Stats{Waited: time.Duration(v.WaitedNs), Attempts: v.Attempts, Evicted: v.Evicted, Kernel: v.Kernel}
	return nil
}

// record is the content of .lock. id and timestamp are the spec's; the rest
// are ours and ignored by the original implementation.
type record struct {
	ID        string  `json:"id"`
	Timestamp float64 `json:"timestamp"`
	PID       int     `json:"pid,omitzero"`
	Host      string  `json:"host,omitempty"`
	Flock     bool    `json:"flock,omitzero"`
}

// Lock is a held lock on one directory.
type Lock struct {
	dir string
	id  string
	// fd is the locked directory, open for the lock's whole life: the
	// store fstats and fsyncs it instead of opening the directory again (FD).
	fd int
	// kernel is the kernel lock on the same directory, nil when it is not
	// held (NoKernel, or a filesystem without flock).
	kernel   *flock.Flock
	host     string // hostname, looked up once
	mine     []byte // the .lock content we put in place last
	unlinked bool
	closed   bool
	Stats    Stats
}

// Acquire takes the lock on dir (created if missing), retrying with backoff
// until opt.Timeout. Errors: task_lock_unavailable when the budget runs out
// (the message says who holds it), internal_error for filesystem failures.
func Acquire(dir string, opt Options) (*Lock, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Stale <= 0 {
		opt.Stale = StaleAfter
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	start := time.Now()
	deadline := start.Add(opt.Timeout)
	fd, err := openDir(dir)
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "creating %s", dir)
	}
	l := &Lock{dir: dir, id: uuid.NewString(), fd: fd}
	if !opt.NoKernel {
		fl, err := kernelLock(dir, deadline)
		switch {
		case errors.Is(err, errTimeout):
			unix.Close(fd)
			return nil, errcode.New(errcode.TaskLockUnavailable,
				"another process of ours held the lock on %s for the whole %v budget; retry later or raise --lock-timeout", dir, opt.Timeout)
		case errors.Is(err, errUnsupported):
			// plain .lock protocol only
		case err != nil:
			unix.Close(fd)
			return nil, errcode.Wrap(errcode.InternalError, err, "locking %s", dir)
		default:
			l.kernel = fl
			l.Stats.Kernel = true
		}
	}
	path := filepath.Join(dir, FileName)
	backoff := 2 * time.Millisecond
	vanishedRun := 0
	for {
		l.Stats.Attempts++
		if opt.BeforeCreate != nil {
			opt.BeforeCreate(l.fd)
		}
		err := l.create(path, opt.Now())
		if err == nil {
			l.Stats.Waited = time.Since(start)
			return l, nil
		}
		if !errors.Is(err, os.ErrExist) {
			l.closeKernel()
			return nil, errcode.Wrap(errcode.InternalError, err, "creating %s", path)
		}
		next, holder := l.tryEvict(path, opt)
		switch next {
		case held:
			l.Stats.Evicted++
			l.Stats.Waited = time.Since(start)
			return l, nil
		case evicted:
			l.Stats.Evicted++
			if l.Stats.Evicted < 8 {
				continue
			}
		case vanished:
			// Gone between our create and our read: try again at once,
			// but never spin (a name that exists for link yet not for
			// open would): past a few in a row, back off and honour the
			// budget like any wait.
			if vanishedRun++; vanishedRun < 4 {
				continue
			}
			holder = "a .lock that keeps appearing and disappearing"
		}
		if next != vanished {
			vanishedRun = 0
		}
		now := time.Now()
		if !now.Before(deadline) {
			l.closeKernel()
			return nil, errcode.New(errcode.TaskLockUnavailable,
				"%s is held by %s and was not released within %v; retry later", path, holder, opt.Timeout)
		}
		sleep := backoff/2 + rand.N(backoff/2+1)
		if rest := deadline.Sub(now); sleep > rest {
			sleep = rest
		}
		time.Sleep(sleep)
		if backoff < 50*time.Millisecond {
			backoff *= 2
		}
	}
}

// content is our .lock record as of now, as json.Marshal(record) writes
// it (written out by hand: every write makes one, and the reflective
// encoder's set-up cost more than the work). It is remembered as mine once
// it is in place (create, Refresh, an eviction that swapped it in).
func (l *Lock) content(now time.Time) ([]byte, error) {
	if l.host == "" {
		l.host = hostname()
	}
	b := make([]byte, 0, 128)
	b = append(b, `{"id":`...)
	b, err := jsontext.AppendQuote(b, l.id)
	if err != nil {
		return nil, err
	}
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, now.UnixMilli(), 10)
	if pid := os.Getpid(); pid != 0 {
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
	}
	if l.host != "" {
		b = append(b, `,"host":`...)
		if b, err = jsontext.AppendQuote(b, l.host); err != nil {
			return nil, err
		}
	}
	if l.kernel != nil {
		b = append(b, `,"flock":true`...)
	}
	return append(b, '}'), nil
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// create makes .lock with its full content in one step, so a crash never
// leaves an empty or partial .lock: the content goes to an unnamed file
// (O_TMPFILE) that is then linked as .lock (linkat fails if .lock
// exists). Where unnamed files or /proc are unavailable the content goes
// to a named temp file that is hard-linked to .lock and removed; on
// filesystems without hard links it falls back to O_CREAT|O_EXCL.
func (l *Lock) create(path string, now time.Time) error {
	data, err := l.content(now)
	if err != nil {
		return err
	}
	if err, ok := l.createUnnamed(path, data); ok {
		if err == nil {
			l.mine = data
		}
		return err
	}
	tmp := filepath.Join(l.dir, ".lock.tmp-"+l.id)
	if err := writeNew(tmp, data, unix.O_TRUNC); err != nil {
		unix.Unlink(tmp) // a full disk leaves an empty file
		return err
	}
	defer unix.Unlink(tmp)
	err = os.Link(tmp, path)
	if err == nil {
		l.mine = data
	}
	if err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	if err := writeNew(path, data, unix.O_EXCL); err != nil {
		if !errors.Is(err, os.ErrExist) {
			unix.Unlink(path)
		}
		return err
	}
	l.mine = data
	return nil
}

// writeNew creates path (mode 0644, O_CREAT plus flag) holding data.
func writeNew(path string, data []byte, flag int) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC|flag, 0o644)
	if err != nil {
		if errors.Is(err, unix.EEXIST) {
			return &os.PathError{Op: "open", Path: path, Err: os.ErrExist}
		}
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	werr := durable.WriteAll(fd, data)
	cerr := unix.Close(fd)
	if werr != nil {
		return &os.PathError{Op: "write", Path: path, Err: werr}
	}
	return cerr
}

// evictOutcome says what tryEvict did.
type evictOutcome int

const (
	wait     evictOutcome = iota // the lock is live (or we lost a race): back off
	vanished                     // the lock disappeared: try to create it again
	evicted                      // a stale lock was removed: try to create it again
	held                         // a stale lock was replaced by ours: we hold the lock
)

// tryEvict judges the current .lock and evicts it when stale, returning
// what happened and a description of the holder.
//
// Where the filesystem can exchange two names atomically (Linux
// renameat2 RENAME_EXCHANGE), our own lock is swapped in for the stale one
// in one step: the name .lock never disappears, so no third contender can
// slip in, and if what we swapped out was not the lock we judged stale (a
// fresh lock that replaced it meanwhile) we swap it straight back. The
// displaced holder at worst sees its lock as lost for an instant and
// refuses its write (never a double holder). Elsewhere a stale lock is
// claimed by renaming it to a unique name and linked back if it was not
// the one judged; that fallback leaves a microsecond window in which a
// third contender can create .lock while the claim is undone.
func (l *Lock) tryEvict(path string, opt Options) (evictOutcome, string) {
	data, mtime, err := readLock(path)
	if errors.Is(err, os.ErrNotExist) {
		return vanished, ""
	}
	var odd *oddLock
	if errors.As(err, &odd) {
		if now := opt.Now(); now.Sub(odd.mtime) <= opt.Stale {
			return wait, fmt.Sprintf("%s named .lock (not a lock file; made %v ago, removed once older than %v)", odd.kind, now.Sub(odd.mtime).Round(time.Millisecond), opt.Stale)
		}
		return l.evictOdd(path, odd)
	}
	if err != nil {
		return wait, "an unreadable lock (" + err.Error() + ")"
	}
	rec, parsed := parse(data)
	now := opt.Now()
	holder := describe(rec, parsed, now, mtime)
	if !l.isStale(rec, parsed, now, mtime, opt.Stale) {
		return wait, holder
	}
	mine, err := l.content(now)
	if err != nil {
		return wait, holder
	}
	tmp := filepath.Join(l.dir, claimPrefix+l.id)
	if err := writeNew(tmp, mine, unix.O_TRUNC); err != nil {
		os.Remove(tmp)
		return wait, holder
	}
	defer os.Remove(tmp)
	if !sameFile(path, data) {
		return wait, holder // replaced since we read it: not the lock we judged
	}
	switch err := exchange(tmp, path); {
	case err == nil:
		got, _, rerr := readLock(tmp)
		if rerr == nil && bytes.Equal(got, data) {
			l.mine = mine
			return held, holder
		}
		// We swapped out a lock that is not the one judged stale: put it back.
		_ = exchange(tmp, path)
		return wait, holder
	case errors.Is(err, os.ErrNotExist):
		return vanished, holder
	case !errors.Is(err, errNoExchange):
		return wait, holder
	}
	claim := filepath.Join(l.dir, claimPrefix+uuid.NewString())
	if err := os.Rename(path, claim); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return vanished, holder
		}
		return wait, holder
	}
	got, _, err := readLock(claim)
	if err == nil && bytes.Equal(got, data) {
		os.Remove(claim)
		return evicted, holder
	}
	// Between our read and the rename the stale lock was replaced by a
	// fresh one: give that one back (link never overwrites).
	_ = os.Link(claim, path)
	os.Remove(claim)
	return wait, holder
}

// isStale applies the staleness rules in the package comment.
func (l *Lock) isStale(rec record, parsed bool, now, mtime time.Time, stale time.Duration) bool {
	if l.kernel != nil && parsed && rec.Flock && rec.Host == hostname() && !alive(rec.PID) {
		// Written by one of ours while holding the kernel lock, which we
		// hold now: its writer is dead.
		return true
	}
	mAge := now.Sub(mtime)
	if parsed && rec.Timestamp > 0 {
		tAge := now.Sub(time.UnixMilli(int64(rec.Timestamp)))
		if tAge >= -stale {
			// Both clocks must agree that it is old: guards against a
			// writer whose clock runs behind ours on a shared filesystem.
			return tAge > stale && mAge > stale
		}
		// A timestamp far in the future is not to be trusted (a clock
		// running ahead): the file's mtime decides alone.
	}
	return mAge > stale
}

func alive(pid int) bool {
	if pid <= 0 {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func describe(rec record, parsed bool, now, mtime time.Time) string {
	if !parsed {
		return fmt.Sprintf("an unparseable lock written %v ago", now.Sub(mtime).Round(time.Millisecond))
	}
	who := "another process"
	if rec.PID > 0 {
		who = "pid " + strconv.Itoa(rec.PID)
		if rec.Host != "" {
			who += " on " + rec.Host
		}
	}
	age := now.Sub(mtime)
	if rec.Timestamp > 0 {
		if a := now.Sub(time.UnixMilli(int64(rec.Timestamp))); a >= 0 {
			age = a
		}
	}
	return fmt.Sprintf("%s (lock %s, taken %v ago)", who, rec.ID, age.Round(time.Millisecond))
}

func readLock(path string) ([]byte, time.Time, error) {
	// No link is followed and the open never blocks: a symbolic link, a
	// FIFO or a directory named .lock is an oddLock, judged by its own
	// mtime (tryEvict), never a hang or a spin. Raw descriptors: this runs
	// before every write (Check), so no os.File and its poller set-up.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, time.Time{}, os.ErrNotExist
		}
		var st unix.Stat_t
		if lerr := unix.Lstat(path, &st); lerr == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
			return nil, time.Time{}, oddFrom(&st)
		}
		return nil, time.Time{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, time.Time{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, time.Time{}, oddFrom(&st)
	}
	data, err := readFD(fd, st.Size, maxLock)
	if err != nil {
		return nil, time.Time{}, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return data, changed(&st), nil
}

// changed is when a .lock was last written, as far as can be trusted: its
// mtime, or its ctime when that is earlier. No writer of a lock leaves an
// mtime later than the ctime (writing sets both to now); an mtime set into
// the future (touch -d, a clock running ahead) would otherwise keep the
// lock from ever looking stale until the clock caught up, and the ctime,
// which nothing but the clock sets, bounds it.
func changed(st *unix.Stat_t) time.Time {
	m, c := time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())
	if c.Before(m) {
		return c
	}
	return m
}

// readFD reads fd to its end (at most limit bytes), sized by its fstat
// size: usually one read of the content and one that sees the end.
func readFD(fd int, size int64, limit int) ([]byte, error) {
	buf := make([]byte, 0, min(int(max(size, 0))+1, limit))
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):min(cap(buf), limit)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}

// maxLock caps what is read of a .lock (ours are about 120 bytes).
const maxLock = 64 << 10

// oddLock is a .lock that is not a regular file: a symbolic link
// (dangling or not), a FIFO, a directory, a socket or a device. No
// implementation writes one; it is left by a crash of something else, a
// mistake or an attack. It is judged by its own mtime (lstat) like an
// unparseable lock: evicted once older than the stale age, and until then
// the writer waits and, at the end of its budget, says what it found.
type oddLock struct {
	kind  string
	mtime time.Time
	dev   uint64
	ino   uint64
	dir   bool
}

func (o *oddLock) Error() string { return ".lock is " + o.kind + ", not a lock file" }

func oddFrom(st *unix.Stat_t) *oddLock {
	o := &oddLock{mtime: changed(st), dev: uint64(st.Dev), ino: uint64(st.Ino)}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		o.kind = "a symbolic link"
	case unix.S_IFIFO:
		o.kind = "a FIFO"
	case unix.S_IFDIR:
		o.kind, o.dir = "a directory", true
	case unix.S_IFSOCK:
		o.kind = "a socket"
	default:
		o.kind = "a device"
	}
	return o
}

// evictOdd claims a stale odd .lock by renaming it to a unique name and
// removes it if what was claimed is the same file (device and inode) that
// was judged; otherwise it is put back. A directory is removed only when
// empty: one holding files is put back and reported (never destroyed).
func (l *Lock) evictOdd(path string, o *oddLock) (evictOutcome, string) {
	holder := o.kind + " named .lock (not a lock file"
	claim := filepath.Join(l.dir, claimPrefix+uuid.NewString())
	if err := os.Rename(path, claim); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return vanished, ""
		}
		return wait, holder + "; it could not be moved away: " + err.Error() + ")"
	}
	var st unix.Stat_t
	same := unix.Lstat(claim, &st) == nil && uint64(st.Dev) == o.dev && uint64(st.Ino) == o.ino
	if same && os.Remove(claim) == nil {
		return evicted, holder + ")"
	}
	// Not the file judged, or a directory that is not empty: put it back
	// (rename onto an absent name; if .lock was taken meanwhile the claim
	// stays under its temp name for task-cleanup or a person to judge).
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		_ = os.Rename(claim, path)
	}
	if o.dir {
		return wait, holder + "; it holds files, so it is not removed: move it away)"
	}
	return wait, holder + ")"
}

// sameFile reports whether path still holds exactly data (a cheap check
// that narrows, but cannot close, the window before an exchange).
func sameFile(path string, data []byte) bool {
	now, _, err := readLock(path)
	return err == nil && bytes.Equal(now, data)
}

func parse(data []byte) (record, bool) {
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil || rec.ID == "" {
		return record{}, false
	}
	return rec, true
}

// ID returns the holder id written into .lock.
func (l *Lock) ID() string { return l.id }

// Dir returns the locked directory.
func (l *Lock) Dir() string { return l.dir }

// Kernel reports whether the kernel lock is held as well.
func (l *Lock) Kernel() bool { return l.kernel != nil }

// FD is the locked directory, open until Release: a transaction fstats
// and fsyncs it rather than opening the directory again.
func (l *Lock) FD() int { return l.fd }

// Check verifies that .lock still carries our id; the store calls it right
// before the final rename of every write, so a holder that lost the
// lock (paused past the stale threshold and evicted by a process without
// the kernel lock) never overwrites its successor's work.
// Error: task_lock_unavailable.
func (l *Lock) Check() error {
	if l.ours() {
		return nil
	}
	return errcode.New(errcode.TaskLockUnavailable, "lost the lock on %s before writing (it was evicted as stale); nothing was written, retry", l.dir)
}

// Refresh rewrites .lock with a new timestamp (same id), so a long
// transaction (a big batch, a big cleanup) is never judged stale by a
// writer without the kernel lock. The new record is swapped in atomically
// and what came out is checked to be ours (swapped back otherwise), so a
// holder that lost the lock never overwrites its successor's. Error:
// task_lock_unavailable when the lock is no longer ours.
func (l *Lock) Refresh(now time.Time) error {
	if err := l.Check(); err != nil {
		return err
	}
	data, err := l.content(now)
	if err != nil {
		return err
	}
	path := filepath.Join(l.dir, FileName)
	tmp := filepath.Join(l.dir, ".lock.tmp-refresh-"+l.id)
	if err := writeNew(tmp, data, unix.O_TRUNC); err != nil {
		os.Remove(tmp)
		return err
	}
	defer os.Remove(tmp)
	switch err := exchange(tmp, path); {
	case err == nil:
		old, _, rerr := readLock(tmp)
		if rec, ok := parse(old); rerr == nil && ok && rec.ID == l.id {
			l.mine = data
			return nil
		}
		_ = exchange(tmp, path) // not ours: put the successor's lock back
		return errcode.New(errcode.TaskLockUnavailable, "lost the lock on %s (it was evicted as stale); nothing more is written, retry", l.dir)
	case errors.Is(err, errNoExchange):
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
		l.mine = data
		return nil
	default:
		return err
	}
}

// Unlink removes .lock if it still carries our id (the original's release rule). The
// kernel lock stays held until Release.
func (l *Lock) Unlink() error {
	if l.unlinked {
		return nil
	}
	l.unlinked = true
	if !l.ours() {
		return errors.New("the lock was taken over by another process")
	}
	return os.Remove(filepath.Join(l.dir, FileName))
}

// ours reports whether .lock carries our id. A contender without the
// kernel lock that evicts a stale lock may swap ours out for an instant
// (see tryEvict) and straight back, so a foreign record is re-read a few
// times over about 20 ms before it counts.
func (l *Lock) ours() bool {
	path := filepath.Join(l.dir, FileName)
	for _, pause := range []time.Duration{0, time.Millisecond, 4 * time.Millisecond, 16 * time.Millisecond} {
		time.Sleep(pause)
		data, _, err := readLock(path)
		if err != nil {
			continue
		}
		if bytes.Equal(data, l.mine) {
			return true // what we wrote (the usual case: no decoding)
		}
		if rec, ok := parse(data); ok && rec.ID == l.id {
			return true
		}
	}
	return false
}

// Release unlinks .lock (if Unlink has not) and drops the kernel lock.
// Releasing twice is a no-op.
func (l *Lock) Release() error {
	err := l.Unlink()
	l.closeKernel()
	return err
}

func (l *Lock) closeKernel() {
	if l.closed {
		return
	}
	l.closed = true
	if l.kernel != nil {
		_ = l.kernel.Close()
	}
	unix.Close(l.fd)
}
