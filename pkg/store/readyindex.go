package store

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
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
//   - "base": a header "# <pending bytes> <held bytes> <parent bytes>",
//     then three sections: the lines of the pending tasks, sorted as
//     NextOrder sorts (priority rank, then id); the lines of the
//     in-progress tasks whose lease has an end, sorted by that end (then
//     rank, then id); and again the lines that name a parent, sorted by
//     parent, then id (the subtasks, found by a binary search; an
//     in-progress subtask without a lease end is only there). The header's byte counts give where each
//     section starts and the file's size (a file of another size is
//     torn). Written whole when a claim rebuilds the index from a scan or
//     compacts it. A claim reads each section from its front, a chunk at
//     a time (ReadyTuning.Chunk bytes first, then twice as much each time), and
//     only as far as it needs: the pending lines until its walk finds a
//     task, the held lines while their lease has ended, the parent lines
//     only when a candidate's subtasks are looked up;
//   - "log": lines appended by every transaction, one per record it wrote
//     or removed; the last line of an id (log over base) is its state;
//   - "stamp": "matrixx-ready 4 <ino> <ctimeNs> <mtimeNs>": the task
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
	readyVer       = 4
	// readyLogCap is the log size past which writers drop the stamp
	// instead of appending (the next claim rebuilds): a store whose tasks
	// are written and never claimed does not grow an index forever.
	readyLogCap = 16 << 20
)

// ReadyTuning sizes the ready index's reads and folds (Store.Ready); the
// zero value is the defaults, which every binary uses.
type ReadyTuning struct {
	// Chunk is the size in bytes of a claim's first read of a section of
	// the base; each further read doubles it. Default 32 KiB.
	Chunk int
	// FoldAt is the log size in bytes past which a claim folds the log
	// into the base, when the log is also over a readyCompactShare-th of
	// the base. Every claim parses the whole log, and a fold costs about
	// as much as reading, merging and writing the base once. Default
	// 64 KiB.
	FoldAt int
}

func (t ReadyTuning) chunk() int {
	if t.Chunk > 0 {
		return t.Chunk
	}
	return 32 << 10
}

func (t ReadyTuning) foldAt() int {
	if t.FoldAt > 0 {
		return t.FoldAt
	}
	return 64 << 10
}

const readyCompactShare = 32

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

func (l readyLine) String() string { return string(l.appendTo(nil)) }

// appendTo appends the line with its newline to b.
func (l readyLine) appendTo(b []byte) []byte {
	b = append(b, l.id...)
	b = append(b, ' ', l.class, ' ', byte('0'+l.rank), ' ')
	b = append(b, l.owner...)
	b = append(b, ' ')
	if l.exp >= 0 {
		b = strconv.AppendInt(b, l.exp, 10)
	} else {
		b = append(b, '-')
	}
	b = append(b, ' ')
	b = append(b, l.parent...)
	b = append(b, ' ')
	b = append(b, l.blockers...)
	return append(b, '\n')
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
	tune    ReadyTuning

	// What a claim loaded (load).
	loaded bool
	// The base's sections, read from baseFD as far as the claim needs:
	// the pending lines (NextOrder), the held lines (by lease end) and
	// the parent lines.
	baseFD                int
	baseSize              int64
	sorted, held, parents section
	log                   string
	latest                map[string]int // id → position of its last line in log
	// rewrite: write base anew from lines (a rebuild or a compaction)
	// and empty the log.
	rewrite bool
	// suspect: a line disagreed with its file (an in-place change the
	// stamp cannot see): a claim that finds nothing scans before it says
	// so.
	suspect bool
}

// openReady returns the ready index of a transaction whose lock saw the
// directory in state pre, or nil when there is none or it is stale.
func openReady(dir string, pre dirState, tune ReadyTuning) *readyIndex {
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
	return &readyIndex{dfd: dfd, baseFD: -1, tune: tune}
}

func (ix *readyIndex) close() {
	if ix == nil {
		return
	}
	ix.closeBase()
	if ix.dfd >= 0 {
		unix.Close(ix.dfd)
		ix.dfd = -1
	}
}

func (ix *readyIndex) closeBase() {
	if ix.baseFD >= 0 {
		unix.Close(ix.baseFD)
		ix.baseFD = -1
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

// load reads the log and opens the base (its header and first chunk);
// false when either does not parse or the base is not the size its header
// says.
func (ix *readyIndex) load() bool {
	ix.closeBase()
	ix.sorted, ix.held, ix.parents = section{}, section{}, section{}
	fd, err := openPlain(ix.dfd, readyLogFile, unix.O_RDONLY)
	switch {
	case errors.Is(err, unix.ENOENT):
		ix.log = ""
	case err != nil:
		return false
	default:
		data, err := readSized(fd)
		unix.Close(fd)
		if err != nil {
			return false
		}
		// The bytes are never changed: no copy.
		ix.log = unsafe.String(unsafe.SliceData(data), len(data))
	}
	if !ix.openBase() {
		return false
	}
	if ix.log != "" && !strings.HasSuffix(ix.log, "\n") {
		return false // torn
	}
	ix.latest = make(map[string]int, strings.Count(ix.log, "\n")+len(ix.pending))
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

// readSized reads a whole file of at most 1 GiB.
func readSized(fd int) ([]byte, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Size > 1<<30 {
		return nil, errors.New("too large")
	}
	return readAll(fd, make([]byte, 0, st.Size+1))
}

// openBase opens the base and reads its header and the first chunk of its
// pending lines; a missing base is an empty one.
func (ix *readyIndex) openBase() bool {
	fd, err := openPlain(ix.dfd, readyBaseFile, unix.O_RDONLY)
	if errors.Is(err, unix.ENOENT) {
		return true
	}
	if err != nil {
		return false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		unix.Close(fd)
		return false
	}
	ix.baseFD, ix.baseSize = fd, st.Size
	chunk := ix.tune.chunk()
	head := make([]byte, min(st.Size, int64(chunk)+64))
	n, err := preadFull(fd, head, 0)
	if err != nil || n != len(head) {
		return false
	}
	i := bytes.IndexByte(head, '\n')
	if i < 0 || i > 80 {
		return false
	}
	f := strings.Fields(string(head[:i]))
	if len(f) != 4 || f[0] != "#" {
		return false
	}
	var size [3]int64
	end := int64(i + 1)
	for k := range size {
		v, err := strconv.ParseInt(f[k+1], 10, 64)
		if err != nil || v < 0 || v > st.Size {
			return false
		}
		size[k] = v
		end += v
	}
	if end != st.Size {
		return false // torn, or not a base
	}
	at := int64(i + 1)
	ix.sorted = section{off: at, end: at + size[0], chunk: chunk}
	ix.held = section{off: at + size[0], end: at + size[0] + size[1], chunk: chunk}
	ix.parents = section{off: at + size[0] + size[1], end: st.Size, chunk: chunk}
	rest := head[i+1:]
	if int64(len(rest)) > size[0] {
		rest = rest[:size[0]]
	}
	ix.sorted.buf = append(make([]byte, 0, max(len(rest), chunk)), rest...)
	ix.sorted.off += int64(len(rest))
	return ix.sorted.grew() == nil
}

// section is one section of the base, read from its front a chunk at a
// time: text holds the whole lines read so far; the bytes from file
// offset off up to end are still unread.
type section struct {
	off, end int64
	buf      []byte
	text     string
	chunk    int // the first read's size (ReadyTuning.Chunk); 0: the default
}

// loadedSection makes a section of bytes already in memory.
func loadedSection(b []byte) section {
	// The bytes are never changed: no copy.
	return section{buf: b, text: unsafe.String(unsafe.SliceData(b), len(b))}
}

// grew makes text the whole lines of buf; an error when all is read and
// the last line has no newline.
func (c *section) grew() error {
	n := bytes.LastIndexByte(c.buf, '\n') + 1
	if c.off == c.end && n != len(c.buf) {
		return errors.New("torn ready base")
	}
	c.text = unsafe.String(unsafe.SliceData(c.buf), n)
	return nil
}

// more reads the next chunk of the section from fd (twice the bytes read
// so far); false when there is none.
func (c *section) more(fd int) (bool, error) {
	if c.off >= c.end {
		return false, nil
	}
	first := c.chunk
	if first <= 0 {
		first = ReadyTuning{}.chunk()
	}
	want := min(c.end-c.off, int64(max(len(c.buf), first)))
	// A new buffer: the strings already taken from buf stay valid.
	buf := make([]byte, len(c.buf), len(c.buf)+int(want))
	copy(buf, c.buf)
	n, err := preadFull(fd, buf[len(buf):cap(buf)], c.off)
	if err != nil {
		return false, err
	}
	if int64(n) != want {
		return false, errors.New("the ready base is shorter than its header says")
	}
	c.buf, c.off = buf[:len(buf)+n], c.off+int64(n)
	return true, c.grew()
}

// all reads the rest of the section.
func (c *section) all(fd int) error {
	for {
		ok, err := c.more(fd)
		if err != nil || !ok {
			return err
		}
	}
}

// next returns the line of the section at p and where the next one
// starts, reading more when p is at the end of what was read; false at
// the section's end.
func (c *section) next(fd, p int) (readyLine, int, bool, error) {
	for p == len(c.text) {
		// A chunk may end before the end of its first line: read on.
		more, err := c.more(fd)
		if err != nil || !more {
			return readyLine{}, p, false, err
		}
	}
	l, next, ok := lineAt(c.text, p)
	if !ok {
		return readyLine{}, p, false, errors.New("bad ready base line")
	}
	return l, next, true, nil
}

// readBase reads the rest of every section.
func (ix *readyIndex) readBase() error {
	for _, c := range []*section{&ix.sorted, &ix.held, &ix.parents} {
		if err := c.all(ix.baseFD); err != nil {
			return err
		}
	}
	return nil
}

// preadFull reads len(buf) bytes at off, fewer only at the end of the
// file.
func preadFull(fd int, buf []byte, off int64) (int, error) {
	done := 0
	for done < len(buf) {
		n, err := unix.Pread(fd, buf[done:], off+int64(done))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			break
		}
		done += n
	}
	return done, nil
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
	// The held lines whose lease ended (the front of their section, sorted
	// by lease end) join them: at the first pending candidate, those that
	// come before it; once that one is passed over, all of them. takeHeld
	// adds those from lo (inclusive) up to hi (exclusive), nil unbounded.
	takeHeld := func(lo, hi *readyLine) error {
		for p := 0; ; {
			l, next, ok, err := ix.held.next(ix.baseFD, p)
			if err != nil || !ok || l.exp > cutoff {
				slices.SortFunc(fromLog, cmpLine)
				return err
			}
			if l.class != 'p' || l.exp < 0 {
				return errors.New("bad ready base line")
			}
			p = next
			if lo != nil && cmpLine(l, *lo) < 0 || hi != nil && cmpLine(l, *hi) >= 0 {
				continue
			}
			if _, inLog := ix.latest[l.id]; !inLog {
				fromLog = append(fromLog, l)
			}
		}
	}
	var first *readyLine // the first pending candidate
	taken := false       // all the held lines whose lease ended were taken
	for p := 0; ; {
		l, next, ok, err := ix.sorted.next(ix.baseFD, p)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		p = next
		if _, inLog := ix.latest[l.id]; inLog || !eligible(&l) {
			continue
		}
		switch {
		case first == nil:
			first = &l
			err = takeHeld(nil, first)
		case !taken:
			taken = true
			err = takeHeld(first, nil)
		}
		if err != nil {
			return err
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
	if !taken {
		if err := takeHeld(first, nil); err != nil {
			return err
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

// cmpParent orders the parent lines: by parent, then id.
func cmpParent(a, b readyLine) int {
	if c := strings.Compare(a.parent, b.parent); c != 0 {
		return c
	}
	return strings.Compare(a.id, b.id)
}

// cmpHeld orders held lines by lease end, then as NextOrder.
func cmpHeld(a, b readyLine) int {
	if a.exp != b.exp {
		return cmp.Compare(a.exp, b.exp)
	}
	return cmpLine(a, b)
}

// part is the section a kept line belongs in besides the parent lines:
// 's' (pending, sorted as NextOrder), 'h' (held with a lease end, by that
// end) or 0 (none: an in-progress subtask without a lease end).
func (l *readyLine) part() byte {
	switch {
	case l.class == 'r' || l.class == 'b':
		return 's'
	case l.class == 'p' && l.exp >= 0:
		return 'h'
	}
	return 0
}

// children returns the ids whose latest line names parent and is active;
// false when the base's parent lines cannot be read.
func (ix *readyIndex) children(parent string) ([]string, bool) {
	base, err := ix.parentLines(parent)
	if err != nil {
		return nil, false
	}
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
	scan(base, false)
	scan(ix.log, true)
	return out, true
}

// parentLines returns whole lines of the base's parent section that hold
// every line naming parent. The section is sorted by parent, then id:
// unless it is in memory or no larger than a chunk, the first line naming
// parent is found by a binary search over the section's bytes, reading a
// few hundred bytes at each probe, and the lines are read from there.
func (ix *readyIndex) parentLines(parent string) (string, error) {
	c := &ix.parents
	if c.off >= c.end || c.end-c.off <= int64(ix.tune.chunk()) {
		return c.text, c.all(ix.baseFD)
	}
	start, end := c.off, c.end
	// lineFrom returns the first whole line starting at or after y (the
	// byte before start is the newline ending the previous section) and
	// where it starts; false at the section's end.
	lineFrom := func(y int64) (readyLine, int64, bool, error) {
		for window := int64(512); ; window *= 2 {
			buf := make([]byte, min(window, end-(y-1)))
			n, err := preadFull(ix.baseFD, buf, y-1)
			if err != nil || n != len(buf) {
				return readyLine{}, 0, false, errors.New("the ready base is shorter than its header says")
			}
			i := bytes.IndexByte(buf, '\n')
			if y == start && i != 0 {
				return readyLine{}, 0, false, errors.New("torn ready base")
			}
			if i < 0 || y+int64(i) >= end {
				if y-1+int64(n) >= end {
					return readyLine{}, end, false, nil
				}
				continue
			}
			j := bytes.IndexByte(buf[i+1:], '\n')
			if j < 0 {
				if y-1+int64(n) >= end {
					return readyLine{}, 0, false, errors.New("torn ready base")
				}
				continue
			}
			l, ok := parseReadyLine(string(buf[i+1 : i+1+j]))
			if !ok {
				return readyLine{}, 0, false, errors.New("bad ready base line")
			}
			return l, y + int64(i), true, nil
		}
	}
	var serr error
	k := sort.Search(int(end-start)+1, func(k int) bool {
		l, _, ok, err := lineFrom(start + int64(k))
		if err != nil {
			serr = err
			return true
		}
		return !ok || l.parent >= parent
	})
	if serr != nil {
		return "", serr
	}
	_, at, ok, err := lineFrom(start + int64(k))
	if err != nil || !ok {
		return "", err
	}
	from := section{off: at, end: end, chunk: c.chunk}
	for p := 0; ; {
		l, next, ok, err := from.next(ix.baseFD, p)
		if err != nil {
			return "", err
		}
		if !ok || l.parent != parent {
			return from.text[:p], nil
		}
		p = next
	}
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

// compacted folds the log into the base: each section's lines merged with
// the log's latest lines of that section, each blocked line without the
// blockers completed since, and the lines no claim needs dropped
// (keepLines). A base line the log does not change is kept as it is. The
// answer is the new sections and their count of lines.
func (ix *readyIndex) compacted() (sorted, held, parents []byte, n int, err error) {
	if err := ix.readBase(); err != nil {
		return nil, nil, nil, 0, err
	}
	// settle drops the completed blockers of a blocked line.
	settle := func(l *readyLine) bool {
		if l.class != 'b' {
			return false
		}
		var open []string
		for b := range strings.SplitSeq(l.blockers, ",") {
			if s, ok := ix.state(b); !ok || s.class != 'c' {
				open = append(open, b)
			}
		}
		if len(open) == 0 {
			l.class, l.blockers = 'r', "-"
			return true
		}
		if j := strings.Join(open, ","); j != l.blockers {
			l.blockers = j
			return true
		}
		return false
	}
	var logSorted, logHeld []readyLine
	for _, p := range ix.latest {
		l, _, ok := lineAt(ix.log, p)
		if !ok {
			return nil, nil, nil, 0, errors.New("bad ready log line")
		}
		settle(&l)
		logSorted = append(logSorted, l)
	}
	logSorted = keepLines(logSorted)
	var logParents []readyLine
	for _, l := range logSorted {
		if l.parent != "-" {
			logParents = append(logParents, l)
		}
		if l.part() == 'h' {
			logHeld = append(logHeld, l)
		}
	}
	slices.SortFunc(logParents, cmpParent)
	logSorted = slices.DeleteFunc(logSorted, func(l readyLine) bool { return l.part() != 's' })
	slices.SortFunc(logHeld, cmpHeld)
	// merge copies a section's lines the log does not change, with the
	// log's lines of that section, in the section's order.
	merge := func(c *section, fromLog []readyLine, part byte, order func(a, b readyLine) int) ([]byte, error) {
		out := make([]byte, 0, len(c.text)+len(fromLog)*100)
		var prev readyLine
		for p := 0; p < len(c.text); {
			l, next, ok := lineAt(c.text, p)
			if !ok || l.part() != part || p > 0 && order(prev, l) >= 0 {
				return nil, errors.New("bad ready base line")
			}
			raw := c.text[p:next]
			p, prev = next, l
			if _, inLog := ix.latest[l.id]; inLog {
				continue
			}
			for len(fromLog) > 0 && order(fromLog[0], l) < 0 {
				out = fromLog[0].appendTo(out)
				fromLog, n = fromLog[1:], n+1
			}
			if settle(&l) {
				out = l.appendTo(out)
			} else {
				out = append(out, raw...)
			}
			n++
		}
		for _, l := range fromLog {
			out = l.appendTo(out)
			n++
		}
		return out, nil
	}
	if sorted, err = merge(&ix.sorted, logSorted, 's', cmpLine); err != nil {
		return nil, nil, nil, 0, err
	}
	if held, err = merge(&ix.held, logHeld, 'h', cmpHeld); err != nil {
		return nil, nil, nil, 0, err
	}
	var prev readyLine
	for p := 0; p < len(ix.parents.text); {
		l, next, ok := lineAt(ix.parents.text, p)
		if !ok || l.parent == "-" || !l.active() || p > 0 && cmpParent(prev, l) >= 0 {
			return nil, nil, nil, 0, errors.New("bad ready base line")
		}
		raw := ix.parents.text[p:next]
		p, prev = next, l
		if _, inLog := ix.latest[l.id]; inLog {
			continue
		}
		for len(logParents) > 0 && cmpParent(logParents[0], l) < 0 {
			parents = logParents[0].appendTo(parents)
			logParents = logParents[1:]
		}
		parents = append(parents, raw...)
		if l.part() == 0 {
			n++ // only here
		}
	}
	for _, l := range logParents {
		parents = l.appendTo(parents)
	}
	return sorted, held, parents, n, nil
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
		head := fmt.Sprintf("# %d %d %d\n", len(ix.sorted.text), len(ix.held.text), len(ix.parents.text))
		if err := writeWhole(ix.dfd, readyBaseFile, []byte(head+ix.sorted.text+ix.held.text+ix.parents.text)); err != nil {
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
		if len(ix.log) > ix.tune.foldAt() && int64(len(ix.log)) > ix.baseSize/readyCompactShare {
			sorted, held, parents, n, err := ix.compacted()
			if err != nil {
				// A base that does not parse or is out of order.
				return tx.rebuildReady()
			}
			ix.rewrite = true
			ix.setText(sorted, held, parents)
			if tx.s.LogDecisions {
				tx.s.logf("debug: ready index compacted (%d lines)", n)
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
		tx.ready.closeBase()
	}
	ix := &readyIndex{dfd: dfd, baseFD: -1, rewrite: true, tune: tx.s.Ready}
	lines := buildReady(snap)
	ix.setLines(lines)
	tx.ready = ix
	if tx.s.LogDecisions {
		tx.s.logf("debug: ready index rebuilt (%d lines)", len(lines))
	}
	return ix, nil
}

// setLines makes lines the loaded view (base), with a log of the lines
// this transaction noted.
func (ix *readyIndex) setLines(lines []readyLine) {
	var sorted, held, parents []byte
	var byEnd, byParent []readyLine
	for _, l := range lines {
		switch l.part() {
		case 's':
			sorted = l.appendTo(sorted)
		case 'h':
			byEnd = append(byEnd, l)
		}
		if l.parent != "-" {
			byParent = append(byParent, l)
		}
	}
	slices.SortFunc(byEnd, cmpHeld)
	for _, l := range byEnd {
		held = l.appendTo(held)
	}
	slices.SortFunc(byParent, cmpParent)
	for _, l := range byParent {
		parents = l.appendTo(parents)
	}
	ix.setText(sorted, held, parents)
}

// setText makes the sections the loaded view (base), with a log of the
// lines this transaction noted.
func (ix *readyIndex) setText(sorted, held, parents []byte) {
	ix.closeBase()
	ix.sorted, ix.held, ix.parents = loadedSection(sorted), loadedSection(held), loadedSection(parents)
	ix.log, ix.latest, ix.loaded = "", map[string]int{}, true
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
	kids, ok := tx.indexedChildren(ix, id, true)
	if !ok {
		// Unknown: not claimed now; when nothing else is found the store
		// is scanned.
		ix.suspect = true
		return true
	}
	return len(kids) > 0
}

// indexedChildren returns the subtasks the index names for id that are
// active and still id's subtasks in their files (only the first one when
// first is set), sorted by id; false when the index's parent lines cannot
// be read. A named subtask whose file says otherwise gets its file's line.
func (tx *txn) indexedChildren(ix *readyIndex, id string, first bool) ([]string, bool) {
	named, ok := ix.children(id)
	if !ok {
		return nil, false
	}
	var kids []string
	for _, c := range named {
		ct, err := tx.s.Get(c)
		if err == nil && ct != nil && ct.ParentID == id {
			if c == id {
				continue // its own parent: not a subtask, and its line is right
			}
			if ct.Status.Active() {
				kids = append(kids, c)
				if first {
					break
				}
				continue
			}
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
	slices.Sort(kids)
	return slices.Compact(kids), true
}

// activeChildren returns id's subtasks that are pending or in_progress,
// sorted by id (the rule of task.ActiveChildren). Under the kernel lock
// the ready index answers: it names the tasks whose parent is id (rebuilt
// by a scan first when it is stale, as a claim does), and each one's file
// is read. Otherwise, or when its parent lines cannot be read, the store
// is scanned. What the index cannot see is the one thing a claim cannot
// either: a subtask attached to id by a program that rewrote its file in
// place, which the index learns at its next rebuild.
func (tx *txn) activeChildren(id string) ([]string, error) {
	if tx.l != nil && tx.l.Stats.Kernel {
		ix, err := tx.readyForClaim()
		if err != nil {
			return nil, err
		}
		if kids, ok := tx.indexedChildren(ix, id, false); ok {
			return kids, nil
		}
	}
	snap, err := tx.s.Scan(ScanOptions{ListFields: true})
	if err != nil {
		return nil, err
	}
	return task.ActiveChildren(snap.Tasks())[id], nil
}
