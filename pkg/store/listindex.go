package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The list index (docs/design/decisions.md) remembers, for every T-*.json file a
// listing decoded, the list fields task.DecodeListRecord keeps with the
// file's identity (inode, size, st_mode, mtime and ctime in ns). A scan
// with ListFields lists the directory and fstats each entry relative to
// the directory descriptor: an entry whose identity matches its row is
// served from the row; any other entry is read exactly as without the
// index, and the index rewritten (best effort, no lock, no fsync) when
// that added or dropped a row. ctime cannot be set by a user process, so a
// matching identity means the file was not written since the row was
// made; rows are only made for files whose ctime was the racy window
// (Store.ListRacyWindow, default 2 s) older than the start of the scan
// that read them, so a write in the same timestamp
// tick as the file's last one can never hide behind an unchanged ctime.
//
// The file lives outside the project, next to the integrity ledgers
// (ListIndexPath), is checked whole by a CRC-32C and carries a format
// version, the KeepMeta it was made for and the store directory: any
// mismatch, a torn or corrupt file, is the same as no index.

// listIndexMagic starts every list index file; listIndexVersion is its
// format (an index of any other version is ignored and rewritten). Version
// 2 rows also hold blocks (task-doctor's scan).
const (
	listIndexMagic   = "matrixx-list-index\n"
	listIndexVersion = 2
)

// defaultRacyWindow is how much older than the scan's start a file's ctime
// must be for its row to be kept (coarse timestamp ticks, clock steps),
// unless Store.ListRacyWindow says otherwise.
const defaultRacyWindow = 2 * time.Second

// racyWindow is the store's racy window: ListRacyWindow, or the default
// when it is zero.
func (s *Store) racyWindow() time.Duration {
	if s.ListRacyWindow != 0 {
		return s.ListRacyWindow
	}
	return defaultRacyWindow
}

// indexedFS reports whether a filesystem (statfs f_type) keeps ctime
// honestly and serves fresh attributes: local disk filesystems only. On
// network and FUSE filesystems (attribute caches, server clocks) the scan
// reads every file, and on tmpfs too, which never updates a file's times
// for a write through a shared mmap.
func indexedFS(typ int64) bool {
	switch uint32(typ) {
	case 0xEF53, // ext2/3/4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0xF2F52010, // f2fs
		0x2FC12FC1, // zfs
		0x794C7630, // overlayfs
		0xCA451A4E: // bcachefs
		return true
	}
	return false
}

// ListIndexFor is the list index a store in dir uses, given the
// integrity home of its project (home) and the project's own fallback home
// (projectHome, where the ledgers go when there is no state directory
// outside the project): ListIndexPath beside the ledgers, or "" (no index)
// when home is the fallback, so a listing writes nothing into the project,
// or when off (MATRIXX_NO_LIST_INDEX=1).
func ListIndexFor(home, projectHome, dir string, off bool) string {
	if off || home == projectHome {
		return ""
	}
	return ListIndexPath(home, dir)
}

// ListIndexPath is where the list index of the store directory dir lives,
// given the integrity home (integrity.Home): <home>/../index/list-<16 hex
// digits of SHA-256 of dir>, beside the ledgers and outside the project.
func ListIndexPath(home, dir string) string {
	h := sha256.Sum256([]byte("list\x00" + dir))
	return filepath.Join(filepath.Dir(home), "index", "list-"+hex.EncodeToString(h[:8]))
}

// fileID is the identity a row is valid for.
type fileID struct {
	ino                uint64
	size, mtime, ctime int64
	mode               uint32
}

func idOf(st *unix.Stat_t) fileID {
	return fileID{ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), mode: st.Mode}
}

// listIndex is a loaded index: rows are byte ranges of data.
type listIndex struct {
	data  []byte
	str   string // data as a string (shared memory, never modified)
	names []string
	// ranks[i] is row i's position in id order (a permutation).
	ranks []int32
	// row i is data[starts[i]:ends[i]] (after its length).
	starts, ends []int
	byName       map[string]int
}

// listIndexCap is the largest index file read for a directory of n
// entries: 1 MiB plus 2 KiB a file, at most 128 MiB. A bigger one (a sparse
// giant, rows of huge subjects) is not read: the files are.
func listIndexCap(n int) int64 {
	return min(1<<20+int64(n)*2<<10, 128<<20)
}

// loadListIndex reads the index at path made for dir and keepMeta, for a
// directory of entries entries; nil when there is none or it is not usable. It is
// read like every file the toolkit did not just write (safefile.ReadFile):
// without following a link, without blocking on a FIFO, and not at all
// when it is not a regular file or is over listIndexCap(n).
func loadListIndex(path, dir, keepMeta string, entries int) *listIndex {
	data, err := safefile.ReadFile(path, listIndexCap(entries), false)
	if err != nil || len(data) < len(listIndexMagic)+4 {
		return nil
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil
	}
	ix := &listIndex{data: body, str: unsafe.String(unsafe.SliceData(body), len(body))}
	r := rowReader{s: ix.str, p: len(listIndexMagic)}
	if !strings.HasPrefix(ix.str, listIndexMagic) || r.uvarint() != listIndexVersion || r.str() != keepMeta || r.str() != dir {
		return nil
	}
	n := r.uvarint()
	if r.bad || n > uint64(len(body)) {
		return nil
	}
	ix.names = make([]string, 0, n)
	ix.ranks = make([]int32, 0, n)
	seen := make([]bool, n)
	ix.starts = make([]int, 0, n)
	ix.ends = make([]int, 0, n)
	for range n {
		l := r.uvarint()
		rank := r.uvarint()
		if r.bad || rank >= n || seen[rank] {
			return nil
		}
		seen[rank] = true
		ix.ranks = append(ix.ranks, int32(rank))
		start := r.p
		name := r.str()
		if r.bad || l > uint64(len(body)-start) {
			return nil
		}
		ix.names = append(ix.names, name)
		ix.starts = append(ix.starts, start)
		r.p = start + int(l)
		ix.ends = append(ix.ends, r.p)
	}
	if r.p != len(body) {
		return nil
	}
	return ix
}

// It is made on first use: every binary that links the store (the hook
// before each tool call) would otherwise build it before main.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// match returns, for each listed name, the row made for it, or -1. Rows
// are kept in the order of the last listing, so an unchanged directory
// matches in one pass without a map.
func (ix *listIndex) match(ents []entry) []int32 {
	out := make([]int32, len(ents))
	j := 0
	for i, e := range ents {
		if j < len(ix.names) && ix.names[j] == e.name {
			out[i] = int32(j)
			j++
			continue
		}
		if ix.byName == nil {
			ix.byName = make(map[string]int, len(ix.names))
			for k, n := range ix.names {
				ix.byName[n] = k
			}
		}
		k, ok := ix.byName[e.name]
		if !ok {
			out[i] = -1
			continue
		}
		out[i] = int32(k)
		j = k + 1
	}
	return out
}

// row decodes row i if it was made for identity id, into t (whose
// BlockedBy, and Blocks when blocks is set, may be cut from *blocked).
// Without blocks, t.Blocks is left nil.
func (ix *listIndex) row(i int, id fileID, keepMeta string, blocks bool, t *task.Task, blocked *[]string) bool {
	r := rowReader{s: ix.str[:ix.ends[i]], p: ix.starts[i]}
	name := r.str()
	got := fileID{ino: r.u64(), size: r.varint(), mtime: r.varint(), ctime: r.varint(), mode: uint32(r.uvarint())}
	if r.bad || got != id {
		return false
	}
	*t = task.Task{ID: strings.TrimSuffix(name, ".json")}
	t.Subject = r.str()
	t.Status = task.Status(r.str())
	t.Owner = r.str()
	t.Priority = task.Priority(r.str())
	t.ParentID = r.str()
	t.ThreadID = r.str()
	flags := r.uvarint()
	if flags&1 != 0 {
		if t.BlockedBy = r.list(len(ix.str), blocked, true); r.bad {
			return false
		}
	}
	if flags&4 != 0 {
		if t.Blocks = r.list(len(ix.str), blocked, blocks); r.bad {
			return false
		}
	}
	if flags&2 != 0 {
		n := int(r.uvarint())
		if r.bad || n > ix.ends[i]-r.p {
			return false
		}
		t.Metadata = task.Metadata{keepMeta: jsontext.Value(ix.data[r.p : r.p+n : r.p+n])}
		r.p += n
	}
	return !r.bad && r.p == ix.ends[i]
}

// list reads a list of strings (its length, then each string), cut from
// *slab (grown in blocks of 1,024); with keep false it is read past and nil
// returned. A length over limit is bad.
func (r *rowReader) list(limit int, slab *[]string, keep bool) []string {
	n := int(r.uvarint())
	if r.bad || n > limit {
		r.bad = true
		return nil
	}
	if !keep {
		for range n {
			r.str()
		}
		return nil
	}
	if n == 0 {
		return []string{}
	}
	if cap(*slab)-len(*slab) < n {
		*slab = make([]string, 0, max(n, 1024))
	}
	b := *slab
	for range n {
		b = append(b, r.str())
	}
	out := b[len(*slab):len(b):len(b)]
	*slab = b
	return out
}

// raw is row i's bytes (name and identity included, length excluded).
func (ix *listIndex) raw(i int) []byte { return ix.data[ix.starts[i]:ix.ends[i]] }

// rowReader reads the index's fields; bad is set past the end or on a
// malformed number.
type rowReader struct {
	s   string
	p   int
	bad bool
}

func (r *rowReader) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if r.p >= len(r.s) {
			r.bad = true
			return 0
		}
		b := r.s[r.p]
		r.p++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	r.bad = true
	return 0
}

func (r *rowReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *rowReader) u64() uint64 {
	if len(r.s)-r.p < 8 {
		r.bad = true
		r.p = len(r.s)
		return 0
	}
	v := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(r.s[r.p:]), 8))
	r.p += 8
	return v
}

func (r *rowReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)-r.p) {
		r.bad = true
		r.p = len(r.s)
		return ""
	}
	s := r.s[r.p : r.p+int(n)]
	r.p += int(n)
	return s
}

// appendRow encodes a row (without its length) for a file named name with
// identity id decoded as t.
func appendRow(b []byte, name string, id fileID, t *task.Task, keepMeta string) []byte {
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	b = str(b, name)
	b = binary.LittleEndian.AppendUint64(b, id.ino)
	b = binary.AppendVarint(b, id.size)
	b = binary.AppendVarint(b, id.mtime)
	b = binary.AppendVarint(b, id.ctime)
	b = binary.AppendUvarint(b, uint64(id.mode))
	for _, s := range []string{t.Subject, string(t.Status), t.Owner, string(t.Priority), t.ParentID, t.ThreadID} {
		b = str(b, s)
	}
	var flags uint64
	if t.BlockedBy != nil {
		flags |= 1
	}
	meta, hasMeta := t.Metadata[keepMeta]
	if hasMeta && keepMeta != "" {
		flags |= 2
	}
	if t.Blocks != nil {
		flags |= 4
	}
	list := func(b []byte, l []string) []byte {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, s := range l {
			b = str(b, s)
		}
		return b
	}
	b = binary.AppendUvarint(b, flags)
	if flags&1 != 0 {
		b = list(b, t.BlockedBy)
	}
	if flags&4 != 0 {
		b = list(b, t.Blocks)
	}
	if flags&2 != 0 {
		b = str(b, string(meta))
	}
	return b
}

// freshRow is a row made by this scan: the file at listing position pos.
type freshRow struct {
	pos int
	id  fileID
	t   *task.Task
}

// writeListIndex writes the index for the listing ents: for each position
// the old row src[pos] (>= 0), else the fresh row made for it, else none.
// Best effort: a temp file in the index directory renamed over the old
// index, never fsynced (it is derived; losing it costs one full scan).
func writeListIndex(path, dir, keepMeta string, ents []entry, old *listIndex, src []int32, fresh []freshRow) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Temp files of listings killed while they wrote the index, once a
	// minute old (a listing writing right now keeps its own); the temp name
	// is durable's, so durable.SweepTemps knows it.
	_, _ = durable.SweepTemps(filepath.Dir(path), time.Minute, time.Now())
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s%s%d-%d", filepath.Base(path), durable.TempInfix, os.Getpid(), time.Now().UnixNano()))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	crc := crc32.New(castagnoli())
	w := bufio.NewWriterSize(f, 256<<10)
	out := func(b []byte) { w.Write(b); crc.Write(b) }
	slices.SortFunc(fresh, func(a, b freshRow) int { return a.pos - b.pos })
	n := len(fresh)
	for _, k := range src {
		if k >= 0 {
			n++
		}
	}
	hdr := []byte(listIndexMagic)
	hdr = binary.AppendUvarint(hdr, listIndexVersion)
	hdr = binary.AppendUvarint(hdr, uint64(len(keepMeta)))
	hdr = append(hdr, keepMeta...)
	hdr = binary.AppendUvarint(hdr, uint64(len(dir)))
	hdr = append(hdr, dir...)
	hdr = binary.AppendUvarint(hdr, uint64(n))
	out(hdr)
	// The rows in listing order, then their ranks in id order.
	type wrow struct {
		pos  int
		raw  []byte
		rank int
	}
	rows := make([]wrow, 0, n)
	fi := 0
	for pos := range ents {
		if src[pos] >= 0 {
			rows = append(rows, wrow{pos: pos, raw: old.raw(int(src[pos]))})
		} else if fi < len(fresh) && fresh[fi].pos == pos {
			rows = append(rows, wrow{pos: pos, raw: appendRow(nil, ents[pos].name, fresh[fi].id, fresh[fi].t, keepMeta)})
			fi++
		}
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return strings.Compare(strings.TrimSuffix(ents[rows[a].pos].name, ".json"), strings.TrimSuffix(ents[rows[b].pos].name, ".json"))
	})
	for r, i := range order {
		rows[i].rank = r
	}
	var l []byte
	for _, r := range rows {
		l = binary.AppendUvarint(l[:0], uint64(len(r.raw)))
		l = binary.AppendUvarint(l, uint64(r.rank))
		out(l)
		out(r.raw)
	}
	w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	ok = true
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// indexable reports whether dirfd's filesystem may be served by the index.
func indexable(dirfd int) bool {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(dirfd, &fs); err != nil {
		return false
	}
	return indexedFS(fs.Type)
}

// updateListIndex rewrites the index after a scan when it changed: a row
// was made, or the rows served (src, by listing position) are not all of
// the old index's rows in its order (a row went stale, a name went away,
// the listing's order moved). Failures are noted in debug mode only.
func (s *Store) updateListIndex(ix *listIndex, ents []entry, src []int32, fresh []freshRow, keepMeta string) {
	same := len(fresh) == 0
	if same {
		next := int32(0)
		for _, k := range src {
			if k < 0 {
				continue
			}
			if k != next {
				same = false
				break
			}
			next++
		}
		if ix != nil && int(next) != len(ix.names) {
			same = false
		}
	}
	if same {
		return
	}
	if err := writeListIndex(s.ListIndex, s.Dir, keepMeta, ents, ix, src, fresh); err != nil && s.LogDecisions {
		s.logf("debug: list index not written: %v", err)
	}
}

// ListIndexUsable reports whether listings of a store under dir can use
// the list index: dir is on a local disk filesystem (indexedFS).
func ListIndexUsable(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return indexable(fd)
}
