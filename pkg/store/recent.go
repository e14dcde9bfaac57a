package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The dedup index lets task-create find the tasks it may deduplicate
// against without stat-ing every file, and costs a create or an update the
// same few bytes whatever the size and age of the store (docs/design/decisions.md,
// the dedup index). It is a cache, never the truth: every candidate it names is read
// and checked against its file before it is used, so a wrong index can
// cost at most a missed dedup, never a wrong answer.
//
// It lives in <taskdir>/.index/dedup/ (a subdirectory: writing it never
// changes the task directory's mtime), written without fsync:
//
//   - 64 shard files "00" … "63": the shard of a task is chosen by the
//     hash of its dedup key (its trimmed subject and its plan key,
//     task.Metadata.PlanKey). A shard is a line "# N" (N: the entries the
//     last compaction kept) and one line "<16 hex digits of the key's
//     64-bit FNV-1a hash> <id>" a task, appended as tasks are written.
//     A create reads one shard and appends one line.
//   - "stamp": "matrixx-dedup 3 <dirMtimeNs> <baseNs>": the task
//     directory's mtime after the index's last writer released .lock, and
//     the index's base time B. Any create, rename or unlink in the
//     directory (by us, by the original implementation, by git) changes
//     that mtime; a mismatch means "rebuild by scanning" (mtimes first,
//     then only the files inside the window).
//
// The rule that keeps it right: every active task whose file mtime is at
// or after B − DedupWindow is listed in the shard of its current key
// (extra entries are allowed). A lookup at time now ≥ B needs only tasks
// written within the window, so it finds every candidate. A write keeps the
// rule by appending a line unless the task was already listed under the
// same key (it was active with that key and its previous mtime was at or
// after B − DedupWindow): an update that changes neither subject, plan
// key nor activity, of a task written since B − DedupWindow, does not
// touch the index at all. A rebuild sets B to now; each transaction moves
// B up to an hour behind the present (moving B later only drops
// obligations), so a shard's compaction can drop the entries whose files
// are gone or older than B − DedupWindow.
//
// The stamp is written last, after every shard: a crash in between leaves
// a stamp that no longer matches the directory (the dead writer's .lock
// moved its mtime), and the next create rebuilds.
const (
	indexDir     = ".index"
	dedupDir     = "dedup"
	stampFile    = "stamp"
	oldIndexFile = "recent.json" // the single-file index of earlier versions
	dedupShards  = 64
	dedupVer     = 3
	stampMagic   = "matrixx-dedup"
	// dedupBaseLag is how far behind the present each transaction moves B.
	dedupBaseLag = time.Hour
)

// dedupKey is the 64-bit FNV-1a hash of a task's trimmed subject and plan
// key: the index's key (a hash collision only costs a candidate read).
func dedupKey(subject, plan string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(subject); i++ {
		h = (h ^ uint64(subject[i])) * 1099511628211
	}
	h = (h ^ 0) * 1099511628211
	for i := 0; i < len(plan); i++ {
		h = (h ^ uint64(plan[i])) * 1099511628211
	}
	return h
}

func keyOfTask(t *task.Task) uint64 {
	return dedupKey(strings.TrimSpace(t.Subject), t.Metadata.PlanKey())
}

func shardOf(key uint64) int { return int(key % dedupShards) }

func shardName(i int) string { return fmt.Sprintf("%02d", i) }

type dedupEntry struct {
	key uint64
	id  string
}

// shard is one shard file as loaded (entries), plus this transaction's
// additions.
type shard struct {
	loaded  bool
	entries []dedupEntry
	kept    int // the header's N
	added   []dedupEntry
	rewrite bool // write whole (a rebuild)
}

// recentIndex is the dedup index of one transaction.
type recentIndex struct {
	base   int64 // B, ns
	h      *indexHandle
	shards [dedupShards]shard
}

// dedupPrior is what a transaction read of a record, for deciding whether
// its write must be added to the index: its key, whether it was active,
// its mtime.
type dedupPrior struct {
	key     uint64
	active  bool
	mtimeNs int64
}

func priorOf(t *task.Task, mtime time.Time) dedupPrior {
	return dedupPrior{key: keyOfTask(t), active: t.Status.Active(), mtimeNs: mtime.UnixNano()}
}

// fdMtime is the mtime of an open directory (the lock's descriptor), 0
// when unknown.
func fdMtime(fd int) int64 {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	return st.Mtim.Nano()
}

// indexHandle holds .index/dedup and its stamp open for a transaction.
// Files in it are read and written only when they are plain files of ours:
// regular, one link, opened O_NOFOLLOW below directories opened
// O_NOFOLLOW|O_DIRECTORY (no write through links; a hard link would
// carry the write elsewhere). Anything else in a shard's place is removed
// and written anew; a link in place of .index or .index/dedup means no
// index (every create rescans).
type indexHandle struct {
	dfd   int // .index/dedup; -1 when absent or not usable
	stamp int // the stamp, read-write; -1 when absent or not usable
}

// openIndex opens <dir>/.index/dedup and its stamp; it never fails (what
// cannot be opened is -1).
func openIndex(dir string) *indexHandle {
	h := &indexHandle{dfd: -1, stamp: -1}
	ifd, err := unix.Open(filepath.Join(dir, indexDir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return h
	}
	h.dfd, err = unix.Openat(ifd, dedupDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	unix.Close(ifd)
	if err != nil {
		h.dfd = -1
		return h
	}
	h.stamp, _ = openPlain(h.dfd, stampFile, unix.O_RDWR)
	return h
}

// openPlain opens name below dfd without following a link and without
// blocking on a FIFO; -1 and an error unless it is a regular file with one
// link.
func openPlain(dfd int, name string, flags int) (int, error) {
	fd, err := unix.Openat(dfd, name, flags|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		unix.Close(fd)
		return -1, errors.New("not a plain file")
	}
	return fd, nil
}

func (h *indexHandle) close() {
	for _, fd := range []*int{&h.stamp, &h.dfd} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

// preadAll reads fd from offset 0, at most max bytes (an error beyond).
func preadAll(fd int, max int) ([]byte, error) {
	data := make([]byte, 0, 512)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := unix.Pread(fd, data[len(data):cap(data)], int64(len(data)))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return data, nil
		}
		data = data[:len(data)+n]
		if len(data) > max {
			return nil, errors.New("too large")
		}
	}
}

// load returns the index when its stamp is valid for a directory whose
// mtime is dirMtimeNs, else nil. Shards are read when first needed.
func (h *indexHandle) load(dirMtimeNs int64) *recentIndex {
	if dirMtimeNs == 0 || h.stamp < 0 {
		return nil
	}
	data, err := preadAll(h.stamp, 256)
	if err != nil {
		return nil
	}
	f := strings.Fields(string(data))
	if len(f) != 4 || f[0] != stampMagic || f[1] != strconv.Itoa(dedupVer) || !strings.HasSuffix(string(data), "\n") {
		return nil
	}
	m, err1 := strconv.ParseInt(f[2], 10, 64)
	b, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || m != dirMtimeNs {
		return nil
	}
	return &recentIndex{base: b, h: h}
}

// shard returns shard i, reading it on first use; an error when the file
// is not a valid shard (the index must then be rebuilt).
func (idx *recentIndex) shard(i int) (*shard, error) {
	s := &idx.shards[i]
	if s.loaded {
		return s, nil
	}
	if idx.h == nil || idx.h.dfd < 0 {
		return nil, errors.New("no dedup index directory")
	}
	fd, err := openPlain(idx.h.dfd, shardName(i), unix.O_RDONLY)
	if errors.Is(err, unix.ENOENT) {
		s.loaded = true
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := preadAll(fd, MaxRecordBytes)
	unix.Close(fd)
	if err != nil {
		return nil, err
	}
	if s.kept, s.entries, err = parseShard(data); err != nil {
		return nil, err
	}
	s.loaded = true
	return s, nil
}

// parseShard parses a shard file (see the package comment above).
func parseShard(data []byte) (int, []dedupEntry, error) {
	text := string(data)
	head, rest, ok := strings.Cut(text, "\n")
	if !ok || !strings.HasPrefix(head, "# ") {
		return 0, nil, errors.New("no header")
	}
	kept, err := strconv.Atoi(head[2:])
	if err != nil || kept < 0 {
		return 0, nil, errors.New("bad header")
	}
	var entries []dedupEntry
	for rest != "" {
		line, more, ok := strings.Cut(rest, "\n")
		if !ok || len(line) < 18 || line[16] != ' ' {
			return 0, nil, errors.New("torn or bad line")
		}
		key, err := strconv.ParseUint(line[:16], 16, 64)
		id := line[17:]
		if err != nil || !task.ValidID(id) {
			return 0, nil, errors.New("bad line")
		}
		entries = append(entries, dedupEntry{key: key, id: id})
		rest = more
	}
	return kept, entries, nil
}

func appendShardLines(b []byte, entries []dedupEntry) []byte {
	for _, e := range entries {
		b = append(b, fmt.Sprintf("%016x", e.key)...)
		b = append(b, ' ')
		b = append(b, e.id...)
		b = append(b, '\n')
	}
	return b
}

// candidates returns the ids listed under this trimmed subject and plan
// key, the most recently added first, each once.
func (idx *recentIndex) candidates(subject, plan string) ([]string, error) {
	key := dedupKey(subject, plan)
	s, err := idx.shard(shardOf(key))
	if err != nil {
		return nil, err
	}
	var ids []string
	seen := map[string]bool{}
	for _, list := range [][]dedupEntry{s.added, s.entries} {
		for i := len(list) - 1; i >= 0; i-- {
			if e := list[i]; e.key == key && !seen[e.id] {
				seen[e.id] = true
				ids = append(ids, e.id)
			}
		}
	}
	return ids, nil
}

// note keeps the index's rule for a write of t: mtime is the file's new
// mtime (zero: now), prior what this transaction read of it (nil: not
// read, or absent). It returns what the next write of t in this
// transaction counts as prior.
func (idx *recentIndex) note(t *task.Task, mtime time.Time, prior *dedupPrior, now time.Time) dedupPrior {
	mt := mtime
	if mt.IsZero() {
		mt = now
	}
	p := priorOf(t, mt)
	if !p.active {
		return p // an inactive task is never a candidate; its line, if any, goes at compaction
	}
	floor := idx.base - int64(DedupWindow)
	if !mtime.IsZero() && p.mtimeNs < floor {
		return p // a kept old mtime: not in the window the index answers for
	}
	if prior != nil && prior.active && prior.key == p.key && prior.mtimeNs >= floor {
		return p // already listed under this key
	}
	s := &idx.shards[shardOf(p.key)]
	s.added = append(s.added, dedupEntry{key: p.key, id: t.ID})
	return p
}

// rebuildRecent scans the directory, stat-ing every task file and reading
// only those written within the window, and returns an index of them with
// B = now, every shard to be written whole.
func (s *Store) rebuildRecent(now time.Time) (*recentIndex, int, error) {
	snap, err := s.Scan(ScanOptions{Keep: func(m time.Time) bool { return now.Sub(m) <= DedupWindow }})
	if err != nil {
		return nil, 0, err
	}
	idx := &recentIndex{base: now.UnixNano()}
	for i := range idx.shards {
		idx.shards[i].loaded, idx.shards[i].rewrite = true, true
	}
	n := 0
	for _, e := range snap.Entries {
		if e.Task.Status.Active() {
			k := keyOfTask(e.Task)
			sh := &idx.shards[shardOf(k)]
			sh.entries = append(sh.entries, dedupEntry{key: k, id: e.Task.ID})
			n++
		}
	}
	return idx, n, nil
}

// save writes the shards this transaction changed, then the stamp with
// the directory's current mtime (fstat of dirfd, the lock's descriptor,
// after .index/dedup is made if it must be) and B moved up to
// dedupBaseLag behind now: call it after .lock is unlinked and while the
// kernel lock is still held. On any failure the stamp is emptied, so the
// next create rebuilds.
func (idx *recentIndex) save(dir string, h *indexHandle, dirfd int, now time.Time) error {
	if h.dfd < 0 {
		// Making .index changes the directory's mtime: stamp it after.
		if err := safefile.MkdirNoLinks(dir, filepath.Join(dir, indexDir, dedupDir)); err != nil {
			return err // a link or a file in the way: the index is not kept
		}
		*h = *openIndex(dir)
		if h.dfd < 0 {
			return errors.New("cannot open the dedup index directory")
		}
	}
	err := idx.writeShards(h.dfd, dirfd, now)
	if err == nil {
		idx.base = max(idx.base, now.Add(-dedupBaseLag).UnixNano())
		err = writeStamp(h, fmt.Sprintf("%s %d %d %d\n", stampMagic, dedupVer, fdMtime(dirfd), idx.base))
	}
	if err != nil && h.stamp >= 0 {
		_ = unix.Ftruncate(h.stamp, 0)
	}
	return err
}

func (idx *recentIndex) writeShards(dfd, dirfd int, now time.Time) error {
	rebuilt := false
	for i := range idx.shards {
		s := &idx.shards[i]
		switch {
		case s.rewrite:
			rebuilt = true
			all := append(s.entries, s.added...)
			if err := writeShard(dfd, i, len(all), all); err != nil {
				return err
			}
		case len(s.added) == 0:
		case s.loaded && len(s.entries)+len(s.added) > 2*s.kept+64:
			kept := append(idx.compact(dirfd, s.entries, s.added), s.added...)
			if err := writeShard(dfd, i, len(kept), kept); err != nil {
				return err
			}
		default:
			if err := appendShard(dfd, i, s.added); err != nil {
				return err
			}
		}
	}
	if rebuilt {
		// The index of earlier versions is not kept up to date any more.
		if ifd, err := unix.Openat(dfd, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			_ = unix.Unlinkat(ifd, oldIndexFile, 0)
			unix.Close(ifd)
		}
	}
	return nil
}

// compact returns the entries that stay beside this transaction's
// additions (which all stay): it drops the entries whose files are gone or
// older than B − DedupWindow, and repeated lines (an id listed again under
// the same key).
func (idx *recentIndex) compact(dirfd int, all, added []dedupEntry) []dedupEntry {
	floor := idx.base - int64(DedupWindow)
	last := map[dedupEntry]int{}
	for i, e := range all {
		last[e] = i
	}
	for _, e := range added {
		last[e] = -1
	}
	var kept []dedupEntry
	for i, e := range all {
		if last[e] != i {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(dirfd, task.FileName(e.id), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mtim.Nano() < floor {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// writeShard replaces shard i's content in place with a header of kept
// and entries (a file that is not plain is removed and made anew).
func writeShard(dfd, i int, kept int, entries []dedupEntry) error {
	b := make([]byte, 0, 16+len(entries)*56)
	b = append(b, "# "...)
	b = strconv.AppendInt(b, int64(kept), 10)
	b = append(b, '\n')
	b = appendShardLines(b, entries)
	fd, err := openPlain(dfd, shardName(i), unix.O_RDWR|unix.O_CREAT)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		if err := unix.Unlinkat(dfd, shardName(i), 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
		fd, err = openPlain(dfd, shardName(i), unix.O_RDWR|unix.O_CREAT|unix.O_EXCL)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return rewriteFD(fd, b)
}

// appendShard adds lines at the end of shard i (made with a header when
// it does not exist).
func appendShard(dfd, i int, entries []dedupEntry) error {
	fd, err := openPlain(dfd, shardName(i), unix.O_WRONLY|unix.O_APPEND)
	if err != nil {
		return writeShard(dfd, i, 0, entries)
	}
	defer unix.Close(fd)
	return durable.WriteAll(fd, appendShardLines(nil, entries))
}

// writeStamp replaces the stamp's content (made when absent).
func writeStamp(h *indexHandle, content string) error {
	if h.stamp < 0 {
		fd, err := openPlain(h.dfd, stampFile, unix.O_RDWR|unix.O_CREAT)
		if err != nil {
			if uerr := unix.Unlinkat(h.dfd, stampFile, 0); uerr != nil && !errors.Is(uerr, unix.ENOENT) {
				return err
			}
			if fd, err = openPlain(h.dfd, stampFile, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL); err != nil {
				return err
			}
		}
		h.stamp = fd
	}
	return rewriteFD(h.stamp, []byte(content))
}

// rewriteFD replaces a file's content in place: the new content, then the
// end cut at its length (a crash in between leaves a tail that does not
// parse, or a stamp that does not match: a rebuild).
func rewriteFD(fd int, data []byte) error {
	for off := 0; off < len(data); {
		n, err := unix.Pwrite(fd, data[off:], int64(off))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		off += n
	}
	return unix.Ftruncate(fd, int64(len(data)))
}
