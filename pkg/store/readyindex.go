package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The ready index lets task-claim without an id find the next ready task
// without reading the store (docs/design/decisions.md, "The ready index"). Like the
// dedup index it is a cache, never the truth: every task it offers is read
// and checked under the lock against its file, its blockers' files and the
// files of the subtasks the index names, before it is claimed.
//
// It lives in <taskdir>/.index/ready/ (writing it never changes the task
// directory), written without fsync:
//
//   - "base": one line per active task that a claim may need, sorted as
//     NextOrder sorts (priority rank, then id), then a line "#" and again
//     the lines that name a parent (the subtasks, searched by parent);
//     written whole when a claim rebuilds the index from a scan or
//     compacts it;
//   - "log": lines appended by every transaction, one per record it wrote
//     or removed; the last line of an id (log over base) is its state;
//   - "stamp": "matrixx-ready 1 <ino> <ctimeNs> <mtimeNs>": the task
//     directory's inode, ctime and mtime after the last writer that kept
//     the index released .lock. Any create, rename or unlink in the
//     directory (by us, by the original implementation, by git, by a copy:
//     a copy cannot carry the ctime) changes them; a mismatch means the
//     index is stale: the next claim rebuilds it by scanning, and writers
//     leave it alone until then.
//
// A line is "<id> <class> <rank> <owner> <expiry> <parent> <blockers>":
// class r (pending, no open blocker when written), b (pending with open
// blockers: <blockers> lists them, comma-separated), p (in_progress;
// <expiry> is its claim's lease end in Unix ms, "-" for none), c
// (completed), x (deleted or removed); rank is priorityRank; owner is the
// 16-hex-digit FNV-1a hash of the task's owner ("-" for none); parent is
// its parentID ("-" for none or not an id). A blocked line becomes ready
// once every blocker it lists has a later "c" line: writers never rewrite
// the lines of other tasks, so the index does not depend on blocks being
// mirrored. Subtasks are found by their parent field.
//
// What the stamp cannot see: a record rewritten in place (no rename, no
// directory change) by a program other than the toolkit's writers. A task
// such a write makes ready is found by the next rebuild; a task it makes
// unclaimable is refused by the check under the lock; only a subtask
// attached to a ready parent in place escapes the parent rule until then.
const (
	readyDir       = "ready"
	readyBaseFile  = "base"
	readyLogFile   = "log"
	readyStampFile = "stamp"
	readyMagic     = "matrixx-ready"
	readyVer       = 1
	// readyLogCap is the log size past which writers drop the stamp
	// instead of appending (the next claim rebuilds): a store whose tasks
	// are written and never claimed does not grow an index forever.
	readyLogCap = 16 << 20
)

// readyCompactMin is the log size past which a claim folds the log into
// the base (when the log is also over an eighth of the base). Tests lower
// it.
var readyCompactMin = 256 << 10

// dirState is what the stamp compares: the directory's inode, ctime and
// mtime.
type dirState struct {
	ino          uint64
	ctime, mtime int64
}

func statDir(fd int) (dirState, bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return dirState{}, false
	}
	return dirState{ino: st.Ino, ctime: st.Ctim.Nano(), mtime: st.Mtim.Nano()}, true
}

func (d dirState) stamp() string {
	return fmt.Sprintf("%s %d %d %d %d\n", readyMagic, readyVer, d.ino, d.ctime, d.mtime)
}

// readyLine is one parsed line.
type readyLine struct {
	id       string
	class    byte
	rank     int
	owner    string // hash, "-" for none
	exp      int64  // Unix ms, -1 for none
	parent   string // "-" for none
	blockers string // comma-separated, "-" for none
}

// ownerHash is the owner field of a line.
func ownerHash(owner string) string {
	if owner == "" {
		return "-"
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(owner); i++ {
		h = (h ^ uint64(owner[i])) * 1099511628211
	}
	return fmt.Sprintf("%016x", h)
}

func (l readyLine) String() string {
	exp := "-"
	if l.exp >= 0 {
		exp = strconv.FormatInt(l.exp, 10)
	}
	return fmt.Sprintf("%s %c %d %s %s %s %s\n", l.id, l.class, l.rank, l.owner, exp, l.parent, l.blockers)
}

// parseReadyLine parses one line (without its newline).
func parseReadyLine(s string) (readyLine, bool) {
	var f [7]string
	for i := range 6 {
		j := strings.IndexByte(s, ' ')
		if j < 0 {
			return readyLine{}, false
		}
		f[i], s = s[:j], s[j+1:]
	}
	f[6] = s
	if !task.ValidID(f[0]) || len(f[1]) != 1 || strings.IndexByte("rbpcx", f[1][0]) < 0 || len(f[2]) != 1 || f[2][0] < '0' || f[2][0] > '3' {
		return readyLine{}, false
	}
	l := readyLine{id: f[0], class: f[1][0], rank: int(f[2][0] - '0'), owner: f[3], exp: -1, parent: f[5], blockers: f[6]}
	if f[4] != "-" {
		v, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			return readyLine{}, false
		}
		l.exp = v
	}
	if l.owner != "-" && len(l.owner) != 16 || l.blockers == "" || l.parent == "" {
		return readyLine{}, false
	}
	return l, true
}

// active reports a line of a task that is pending or in progress.
func (l *readyLine) active() bool { return l.class == 'r' || l.class == 'b' || l.class == 'p' }

// lineOf is the line of t as written now; open lists its blockers that are
// not completed (nil when pending with none).
func lineOf(t *task.Task, open []string) readyLine {
	l := readyLine{id: t.ID, rank: priorityRank(t.Priority), owner: ownerHash(t.Owner), exp: -1, parent: "-", blockers: "-"}
	if t.ParentID != "" && t.ParentID != t.ID && task.ValidID(t.ParentID) {
		l.parent = t.ParentID
	}
	switch t.Status {
	case task.Pending:
		l.class = 'r'
		if len(open) > 0 {
			l.class = 'b'
			l.blockers = strings.Join(open, ",")
		}
	case task.InProgress:
		l.class = 'p'
		if exp, ok := claim.Of(t).Expiry(); ok {
			l.exp = exp.UnixMilli()
		}
	case task.Completed:
		l.class = 'c'
	default:
		l.class = 'x'
	}
	return l
}

// goneLine is the line of a removed record.
func goneLine(id string) readyLine {
	return readyLine{id: id, class: 'x', rank: 2, owner: "-", exp: -1, parent: "-", blockers: "-"}
}

// readyIndex is the ready index of one transaction: valid when it was
// loaded (its stamp matched the directory when the lock was taken).
type readyIndex struct {
	dfd     int      // .index/ready
	pending []string // lines to append at the end of the transaction

	// What a claim loaded (load).
	loaded  bool
	base    string // the sorted lines
	parents string // the lines that name a parent
	log     string
	latest  map[string]int // id → position of its last line in log
	// rewrite: write base anew from lines (a rebuild or a compaction)
	// and empty the log.
	rewrite bool
	lines   []readyLine
	// suspect: a line disagreed with its file (an in-place change the
	// stamp cannot see): a claim that finds nothing scans before it says
	// so.
	suspect bool
}

// openReady returns the ready index of a transaction whose lock saw the
// directory in state pre, or nil when there is none or it is stale.
func openReady(dir string, pre dirState) *readyIndex {
	if pre.ino == 0 {
		return nil
	}
	dfd, err := unix.Open(filepath.Join(dir, indexDir, readyDir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	fd, err := openPlain(dfd, readyStampFile, unix.O_RDONLY)
	if err != nil {
		unix.Close(dfd)
		return nil
	}
	data, err := preadAll(fd, 256)
	unix.Close(fd)
	if err != nil || string(data) != pre.stamp() {
		unix.Close(dfd)
		return nil
	}
	return &readyIndex{dfd: dfd}
}

func (ix *readyIndex) close() {
	if ix != nil && ix.dfd >= 0 {
		unix.Close(ix.dfd)
		ix.dfd = -1
	}
}

// note queues the line of a record this transaction wrote.
func (ix *readyIndex) note(l readyLine) {
	ix.pending = append(ix.pending, l.String())
	if ix.loaded {
		// A claim keeps walking its loaded view: fold the line in.
		ix.log += ix.pending[len(ix.pending)-1]
		ix.latest[l.id] = len(ix.log) - len(ix.pending[len(ix.pending)-1])
	}
}

// noteReady records t's state after a write (tx.ready must be set): its
// open blockers are read from their files.
func (tx *txn) noteReady(t *task.Task) {
	var open []string
	if t.Status == task.Pending {
		for _, b := range t.BlockedBy {
			if bt, err := tx.s.Get(b); err != nil || bt == nil || bt.Status != task.Completed {
				if task.ValidID(b) {
					open = append(open, b)
				} else {
					// Not an id: it can never be completed; the line
					// stays blocked.
					open = append(open, "T-invalid")
				}
			}
		}
	}
	tx.ready.note(lineOf(t, open))
}

// load reads the base and the log; false when either does not parse.
func (ix *readyIndex) load() bool {
	read := func(name string) (string, bool) {
		fd, err := openPlain(ix.dfd, name, unix.O_RDONLY)
		if errors.Is(err, unix.ENOENT) {
			return "", true
		}
		if err != nil {
			return "", false
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Size > 1<<30 {
			return "", false
		}
		buf := make([]byte, 0, st.Size+1)
		data, err := readAll(fd, buf)
		if err != nil {
			return "", false
		}
		// The bytes are never changed: no copy.
		return unsafe.String(unsafe.SliceData(data), len(data)), true
	}
	base, ok := read(readyBaseFile)
	if !ok {
		return false
	}
	if ix.log, ok = read(readyLogFile); !ok {
		return false
	}
	if base != "" {
		i := 0 // where the "#" line starts
		if !strings.HasPrefix(base, "#\n") {
			if i = strings.Index(base, "\n#\n") + 1; i == 0 {
				return false // torn
			}
		}
		if !strings.HasSuffix(base, "\n") {
			return false // torn
		}
		ix.base, ix.parents = base[:i], base[i+2:]
	}
	if ix.log != "" && !strings.HasSuffix(ix.log, "\n") {
		return false // torn
	}
	ix.latest = map[string]int{}
	for p := 0; p < len(ix.log); {
		e := p + strings.IndexByte(ix.log[p:], '\n')
		l, ok := parseReadyLine(ix.log[p:e])
		if !ok {
			return false
		}
		ix.latest[l.id] = p
		p = e + 1
	}
	for _, l := range ix.pending {
		ix.log += l
		ix.latest[l[:strings.IndexByte(l, ' ')]] = len(ix.log) - len(l)
	}
	ix.loaded = true
	return true
}

// lineAt parses the line of s starting at p.
func lineAt(s string, p int) (readyLine, int, bool) {
	e := strings.IndexByte(s[p:], '\n')
	if e < 0 {
		return readyLine{}, len(s), false
	}
	l, ok := parseReadyLine(s[p : p+e])
	return l, p + e + 1, ok
}

// state is the latest line of id in the log, if any.
func (ix *readyIndex) state(id string) (readyLine, bool) {
	p, ok := ix.latest[id]
	if !ok {
		return readyLine{}, false
	}
	l, _, ok := lineAt(ix.log, p)
	return l, ok
}

// unblocked reports whether a line's listed blockers all have a later
// completed line.
func (ix *readyIndex) unblocked(l *readyLine) bool {
	if l.class != 'b' {
		return l.class == 'r'
	}
	for b := range strings.SplitSeq(l.blockers, ",") {
		s, ok := ix.state(b)
		if !ok || s.class != 'c' {
			return false
		}
	}
	return true
}

// candidates returns, in NextOrder, the lines a claim by an owner with
// hash owner at cutoff (now minus the tolerated skew, Unix ms) may try:
// ready pending tasks with no owner or that owner, and in-progress ones
// whose lease ended, until yield returns false.
func (ix *readyIndex) candidates(owner string, cutoff int64, yield func(readyLine) bool) error {
	eligible := func(l *readyLine) bool {
		switch l.class {
		case 'r', 'b':
			return (l.owner == "-" || l.owner == owner) && ix.unblocked(l)
		case 'p':
			return l.exp >= 0 && l.exp <= cutoff
		}
		return false
	}
	// The log's latest lines, in NextOrder.
	var fromLog []readyLine
	for _, p := range ix.latest {
		l, _, ok := lineAt(ix.log, p)
		if !ok {
			return errors.New("bad ready log line")
		}
		if eligible(&l) {
			fromLog = append(fromLog, l)
		}
	}
	slices.SortFunc(fromLog, cmpLine)
	for p := 0; p < len(ix.base); {
		l, next, ok := lineAt(ix.base, p)
		if !ok {
			return errors.New("bad ready base line")
		}
		p = next
		if _, inLog := ix.latest[l.id]; inLog || !eligible(&l) {
			continue
		}
		for len(fromLog) > 0 && cmpLine(fromLog[0], l) < 0 {
			if !yield(fromLog[0]) {
				return nil
			}
			fromLog = fromLog[1:]
		}
		if !yield(l) {
			return nil
		}
	}
	for _, l := range fromLog {
		if !yield(l) {
			return nil
		}
	}
	return nil
}

func cmpLine(a, b readyLine) int {
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	return strings.Compare(a.id, b.id)
}

// children returns the ids whose latest line names parent and is active.
func (ix *readyIndex) children(parent string) []string {
	pat := " " + parent + " "
	var out []string
	scan := func(s string, fromLog bool) {
		for off := 0; ; {
			i := strings.Index(s[off:], pat)
			if i < 0 {
				return
			}
			i += off
			off = i + len(pat)
			start := strings.LastIndexByte(s[:i], '\n') + 1
			l, _, ok := lineAt(s, start)
			if !ok || l.parent != parent || !l.active() {
				continue
			}
			if p, inLog := ix.latest[l.id]; inLog && (!fromLog || p != start) {
				continue // a later line of the log is its state
			}
			out = append(out, l.id)
		}
	}
	scan(ix.parents, false)
	scan(ix.log, true)
	return out
}

// build makes the lines of a rebuilt index from a scan.
func buildReady(snap *Snapshot) []readyLine {
	status := make(map[string]task.Status, len(snap.Entries))
	for _, e := range snap.Entries {
		status[e.Task.ID] = e.Task.Status
	}
	var lines []readyLine
	for _, e := range snap.Entries {
		t := e.Task
		if !t.Status.Active() {
			continue
		}
		var open []string
		for _, b := range t.BlockedBy {
			if status[b] != task.Completed {
				if !task.ValidID(b) {
					b = "T-invalid"
				}
				open = append(open, b)
			}
		}
		lines = append(lines, lineOf(t, open))
	}
	return keepLines(lines)
}

// keepLines drops the lines no claim needs (in-progress tasks that can
// never be taken over and are nobody's subtask) and sorts the rest.
func keepLines(lines []readyLine) []readyLine {
	lines = slices.DeleteFunc(lines, func(l readyLine) bool {
		return !l.active() || l.class == 'p' && l.exp < 0 && l.parent == "-"
	})
	slices.SortFunc(lines, cmpLine)
	return lines
}

// compacted folds the log into the base's lines: each id's latest line,
// blocked lines without the blockers completed since.
func (ix *readyIndex) compacted() ([]readyLine, error) {
	var lines []readyLine
	for p := 0; p < len(ix.base); {
		l, next, ok := lineAt(ix.base, p)
		if !ok {
			return nil, errors.New("bad ready base line")
		}
		p = next
		if _, inLog := ix.latest[l.id]; !inLog {
			lines = append(lines, l)
		}
	}
	for _, p := range ix.latest {
		l, _, ok := lineAt(ix.log, p)
		if !ok {
			return nil, errors.New("bad ready log line")
		}
		lines = append(lines, l)
	}
	for i := range lines {
		l := &lines[i]
		if l.class != 'b' {
			continue
		}
		var open []string
		for b := range strings.SplitSeq(l.blockers, ",") {
			if s, ok := ix.state(b); !ok || s.class != 'c' {
				open = append(open, b)
			}
		}
		if len(open) == 0 {
			l.class, l.blockers = 'r', "-"
		} else {
			l.blockers = strings.Join(open, ",")
		}
	}
	return keepLines(lines), nil
}

// save writes what the transaction changed, then the stamp of the
// directory as it is now (fstat of dirfd, the lock's descriptor): call it
// after .lock is unlinked, while the kernel lock is still held. On failure
// the stamp is removed (the next claim rebuilds).
func (ix *readyIndex) save(dir string, dirfd int) error {
	if ix.dfd < 0 {
		if err := safefile.MkdirNoLinks(dir, filepath.Join(dir, indexDir, readyDir)); err != nil {
			return err
		}
		dfd, err := unix.Open(filepath.Join(dir, indexDir, readyDir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		ix.dfd = dfd
	}
	err := ix.write()
	if err == nil {
		st, ok := statDir(dirfd)
		if !ok {
			err = errors.New("cannot stat the task directory")
		} else {
			err = writeWhole(ix.dfd, readyStampFile, []byte(st.stamp()))
		}
	}
	if err != nil {
		_ = unix.Unlinkat(ix.dfd, readyStampFile, 0)
	}
	return err
}

func (ix *readyIndex) write() error {
	if ix.rewrite {
		if err := writeWhole(ix.dfd, readyBaseFile, []byte(ix.base+"#\n"+ix.parents)); err != nil {
			return err
		}
		return writeWhole(ix.dfd, readyLogFile, []byte(strings.Join(ix.pending, "")))
	}
	if len(ix.pending) == 0 {
		return nil
	}
	fd, err := openPlain(ix.dfd, readyLogFile, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Size > readyLogCap {
		return errors.New("the ready log is full")
	}
	return durable.WriteAll(fd, []byte(strings.Join(ix.pending, "")))
}

// writeWhole replaces name below dfd: a temp file renamed over it (a
// reader never sees half a base).
func writeWhole(dfd int, name string, data []byte) error {
	tmp := fmt.Sprintf(".%s.tmp-%d-%d", name, unix.Getpid(), time.Now().UnixNano())
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	for off := 0; off < len(data); {
		n, err := unix.Write(fd, data[off:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			unix.Close(fd)
			unix.Unlinkat(dfd, tmp, 0)
			return err
		}
		off += n
	}
	if err := unix.Close(fd); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return err
	}
	if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return err
	}
	return nil
}

// readyForClaim returns the transaction's ready index loaded, rebuilding
// it from a scan under the lock when it is stale, missing or does not
// parse, and folding a long log into the base.
func (tx *txn) readyForClaim() (*readyIndex, error) {
	ix := tx.ready
	if ix != nil && ix.load() {
		if len(ix.log) > readyCompactMin && len(ix.log) > len(ix.base)/8 {
			lines, err := ix.compacted()
			if err == nil {
				ix.rewrite = true
				ix.setLines(lines)
				if tx.s.LogDecisions {
					tx.s.logf("debug: ready index compacted (%d lines)", len(lines))
				}
			}
		}
		return ix, nil
	}
	return tx.rebuildReady()
}

// rebuildReady scans the store under the lock and makes a new index.
func (tx *txn) rebuildReady() (*readyIndex, error) {
	snap, err := tx.s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		return nil, err
	}
	dfd := -1
	if tx.ready != nil {
		dfd = tx.ready.dfd
	}
	ix := &readyIndex{dfd: dfd, rewrite: true}
	ix.setLines(buildReady(snap))
	tx.ready = ix
	if tx.s.LogDecisions {
		tx.s.logf("debug: ready index rebuilt (%d lines)", len(ix.lines))
	}
	return ix, nil
}

// setLines makes lines the loaded view (base), with a log of the lines
// this transaction noted.
func (ix *readyIndex) setLines(lines []readyLine) {
	var b, par strings.Builder
	for _, l := range lines {
		b.WriteString(l.String())
		if l.parent != "-" {
			par.WriteString(l.String())
		}
	}
	ix.lines, ix.base, ix.parents, ix.log, ix.latest, ix.loaded = lines, b.String(), par.String(), "", map[string]int{}, true
	for _, l := range ix.pending {
		ix.log += l
		ix.latest[l[:strings.IndexByte(l, ' ')]] = len(ix.log) - len(l)
	}
}

// sameState reports whether a line still describes t's file (the fields a
// claim decides by; blockers are checked from their files).
func sameState(l readyLine, t *task.Task) bool {
	now := lineOf(t, nil)
	if now.class == 'r' && l.class == 'b' {
		now.class = 'b'
	}
	return l.class == now.class && l.owner == now.owner && l.exp == now.exp && l.parent == now.parent && l.rank == now.rank
}

// dropReady forgets the ready index for the rest of the transaction: it
// is not stamped, so the next claim rebuilds it.
func (tx *txn) dropReady() {
	tx.ready.close()
	tx.ready = nil
}

// claimNextIndexed is a claim without id served by the ready index, all
// under the lock: candidates in NextOrder from the index, each checked
// against its file, its blockers' files and its subtasks' files before
// it is claimed. A stale or unreadable index is rebuilt by scanning
// first; when a line disagreed with its file and nothing was found, the
// store is scanned again before the answer is "nothing ready".
func (s *Store) claimNextIndexed(req ClaimRequest) (*task.Task, error) {
	var out *task.Task
	err := s.transact(func(tx *txn) error {
		ix, err := tx.readyForClaim()
		if err != nil {
			return err
		}
		found, err := tx.walkReady(ix, req, &out)
		if err != nil || found || !ix.suspect {
			return err
		}
		if ix, err = tx.rebuildReady(); err != nil {
			return err
		}
		_, err = tx.walkReady(ix, req, &out)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkReady claims the first candidate of ix that passes the checks of a
// claim without id; false when none does.
func (tx *txn) walkReady(ix *readyIndex, req ClaimRequest, out **task.Task) (bool, error) {
	s := tx.s
	owner := ownerHash(req.Owner)
	cutoff := s.now().Add(-req.Skew).UnixMilli()
	found := false
	var ferr error
	err := ix.candidates(owner, cutoff, func(l readyLine) bool {
		t, mtime, err := tx.readRec(l.id)
		if err != nil || t == nil {
			// Gone or broken: the line was not the file's state.
			ix.suspect = true
			if err == nil {
				ix.note(goneLine(l.id))
			}
			return true
		}
		if !sameState(l, t) {
			ix.suspect = true
			tx.noteReady(t)
			return true
		}
		now := s.now()
		if err := tx.claimable(t, req.Owner, now, req.Skew); err != nil {
			if errcode.Of(err) == errcode.TaskBlocked {
				tx.noteReady(t) // a blocker was reopened: the line lists it now
			}
			return true
		}
		if !nextEligible(t, req.Owner, now.Add(-req.Skew)) {
			return true
		}
		if t.Status == task.Pending && tx.activeChild(ix, t.ID) {
			return true
		}
		tx.owner = req.Owner
		if err := tx.takeClaim(t, mtime, req, now); err != nil {
			if errcode.Of(err) == errcode.LeaseConflict {
				return true // its paths are leased to another task: try the next one
			}
			ferr = err
			return false
		}
		*out, found = t, true
		return false
	})
	if ferr != nil {
		return false, ferr
	}
	if err != nil {
		// A line that does not parse: the index is rebuilt and walked
		// once more.
		ix, rerr := tx.rebuildReady()
		if rerr != nil {
			return false, rerr
		}
		return tx.walkReady(ix, req, out)
	}
	return found, nil
}

// activeChild reports whether a subtask the index names for id is active
// and still id's subtask in its file.
func (tx *txn) activeChild(ix *readyIndex, id string) bool {
	for _, c := range ix.children(id) {
		ct, err := tx.s.Get(c)
		if err == nil && ct != nil && ct.ParentID == id && ct.Status.Active() {
			return true
		}
		ix.suspect = true
		switch {
		case err != nil:
		case ct == nil:
			ix.note(goneLine(c))
		default:
			tx.noteReady(ct)
		}
	}
	return false
}
