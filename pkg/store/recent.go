package store

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/safefile"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The dedup index lets task-create find recently written tasks without
// stat-ing every file (the create-at-scale bar). It is a cache, never the
// truth:
//
//   - it lists the active tasks whose files were written within the dedup
//     window, with their trimmed subject, their plan item (task.PlanKey,
//     docs/design.md S21) and mtime;
//   - it records the task directory's mtime as it was after its writer
//     released .lock; any create, rename or unlink in the directory (by us
//     or by the original implementation) changes that mtime, so a mismatch
//     means "rebuild by scanning" (mtimes first, then only recent files);
//   - every hit is verified against the real file before it is used.
//
// It lives in a subdirectory (.index/recent.json) so writing it does not
// change the task directory's mtime, and it is written without fsync: a
// lost or torn index only costs one rescan. An index of another version
// (v1 had no plan keys) is rebuilt like a stale one.
const (
	indexDir  = ".index"
	indexFile = "recent.json"
	indexVer  = 2
)

type recentEntry struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`        // trimmed
	Plan    string `json:"plan,omitempty"` // Metadata.PlanKey
	MtimeNs int64  `json:"mtimeNs"`
}

// entryOf is t's index entry, written at mtime.
func entryOf(t *task.Task, mtime time.Time) recentEntry {
	return recentEntry{ID: t.ID, Subject: strings.TrimSpace(t.Subject), Plan: t.Metadata.PlanKey(), MtimeNs: mtime.UnixNano()}
}

type recentIndex struct {
	Version    int           `json:"v"`
	DirMtimeNs int64         `json:"dirMtimeNs"`
	Entries    []recentEntry `json:"entries"`
	changed    bool
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

// indexHandle is the dedup index's file, opened once per transaction for
// reading and, at its end, rewriting in place: no temp file, no rename
// (a new inode and a freed one per write, which a filesystem's inode
// allocator pays for), no directory checks. It is rewritten in place
// only when it is a plain file of ours: a regular file with one link
// below a .index that is not a symbolic link (S44: no write through
// links; a hard link would carry the write elsewhere). Anything else is
// replaced the careful way (save). Readers and writers of the index hold
// the lock, so a torn index only comes from a crash, or a writer without
// the kernel lock overlapping another: it then fails to parse (or carries
// an old directory mtime) and is rebuilt, like a stale one.
type indexHandle struct {
	fd   int // recent.json, read-write; -1 when it is not usable in place
	size int64
}

// openIndex opens <dir>/.index/recent.json (see indexHandle); it never
// fails: an index that cannot be opened in place has fd -1.
func openIndex(dir string) *indexHandle {
	f := &indexHandle{fd: -1}
	dfd, err := unix.Open(filepath.Join(dir, indexDir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return f
	}
	fd, err := unix.Openat(dfd, indexFile, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	unix.Close(dfd)
	if err != nil {
		return f
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || st.Size > MaxRecordBytes {
		unix.Close(fd)
		return f
	}
	f.fd, f.size = fd, st.Size
	return f
}

func (f *indexHandle) close() {
	if f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}

// load returns the index when it is valid for a directory whose mtime is
// dirMtimeNs, else nil.
func (f *indexHandle) load(dirMtimeNs int64) *recentIndex {
	if dirMtimeNs == 0 || f.fd < 0 {
		return nil
	}
	data := make([]byte, 0, f.size+1)
	for int64(len(data)) <= MaxRecordBytes {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := unix.Read(f.fd, data[len(data):cap(data)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
	}
	idx, err := decodeIndex(data)
	if err != nil || idx.Version != indexVer || idx.DirMtimeNs != dirMtimeNs {
		return nil
	}
	return idx
}

// rewrite replaces the file's content in place: the new content, then
// the end cut at its length (a crash in between leaves a document with a
// tail, which does not parse: a rebuild).
func (f *indexHandle) rewrite(data []byte) error {
	for off := 0; off < len(data); {
		n, err := unix.Pwrite(f.fd, data[off:], int64(off))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		off += n
	}
	return unix.Ftruncate(f.fd, int64(len(data)))
}

// rebuildRecent scans the directory, stat-ing every task file and reading
// only those written within the window.
func (s *Store) rebuildRecent(now time.Time) (*recentIndex, error) {
	snap, err := s.Scan(ScanOptions{Keep: func(m time.Time) bool { return now.Sub(m) <= DedupWindow }})
	if err != nil {
		return nil, err
	}
	idx := &recentIndex{Version: indexVer, changed: true}
	for _, e := range snap.Entries {
		if e.Task.Status.Active() {
			idx.Entries = append(idx.Entries, entryOf(e.Task, e.ModTime))
		}
	}
	return idx, nil
}

// candidates returns ids of indexed tasks with this trimmed subject and
// plan key written within the window, newest first.
func (idx *recentIndex) candidates(subject, plan string, now time.Time) []string {
	var ids []string
	for i := len(idx.Entries) - 1; i >= 0; i-- {
		e := idx.Entries[i]
		if e.Subject == subject && e.Plan == plan && now.Sub(time.Unix(0, e.MtimeNs)) <= DedupWindow {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// record notes that t was just written (or removes it when inactive).
func (idx *recentIndex) record(t *task.Task, mtime time.Time) {
	idx.remove(t.ID)
	if t.Status.Active() {
		idx.Entries = append(idx.Entries, entryOf(t, mtime))
	}
	idx.changed = true
}

func (idx *recentIndex) remove(id string) {
	for i, e := range idx.Entries {
		if e.ID == id {
			idx.Entries = append(idx.Entries[:i], idx.Entries[i+1:]...)
			idx.changed = true
			return
		}
	}
}

// save prunes expired entries and writes the index stamped with the
// directory's current mtime (fstat of dirfd, the lock's descriptor, after
// .index is made if it must be): call it after .lock is unlinked and while
// the kernel lock is still held. f is the index file
// opened for the transaction: rewritten in place when usable, else the
// index is written anew (the .index directory checked for links, a temp
// file renamed over whatever was there).
func (idx *recentIndex) save(dir string, f *indexHandle, dirfd int, now time.Time) error {
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if now.Sub(time.Unix(0, e.MtimeNs)) <= DedupWindow {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	if idx.Entries == nil {
		idx.Entries = []recentEntry{}
	}
	sub := filepath.Join(dir, indexDir)
	if f.fd < 0 {
		// Making .index changes the directory's mtime: stamp it after.
		if err := safefile.MkdirNoLinks(dir, sub); err != nil {
			return err // a link or a file named .index: the index is not kept
		}
	}
	idx.DirMtimeNs = fdMtime(dirfd)
	data, err := encodeIndex(idx)
	if err != nil {
		return err
	}
	if f.fd >= 0 {
		return f.rewrite(data)
	}
	return durable.WriteFile(filepath.Join(sub, indexFile), data, durable.Options{NoSync: true})
}

// encodeIndex is json.Marshal(idx) written out by hand: the index is read
// and written by every task-create and task-update, and the reflective
// encoder's per-process set-up of the two types cost more than the work.
func encodeIndex(idx *recentIndex) ([]byte, error) {
	b := make([]byte, 0, 64+len(idx.Entries)*160)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(idx.Version), 10)
	b = append(b, `,"dirMtimeNs":`...)
	b = strconv.AppendInt(b, idx.DirMtimeNs, 10)
	b = append(b, `,"entries":[`...)
	var err error
	for i, e := range idx.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		if b, err = jsontext.AppendQuote(b, e.ID); err != nil {
			return nil, err
		}
		b = append(b, `,"subject":`...)
		if b, err = jsontext.AppendQuote(b, e.Subject); err != nil {
			return nil, err
		}
		if e.Plan != "" {
			b = append(b, `,"plan":`...)
			if b, err = jsontext.AppendQuote(b, e.Plan); err != nil {
				return nil, err
			}
		}
		b = append(b, `,"mtimeNs":`...)
		b = strconv.AppendInt(b, e.MtimeNs, 10)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// decodeIndex is json.Unmarshal into a recentIndex, by tokens (see
// encodeIndex): unknown members are skipped, anything else unexpected
// is an error (the index is then rebuilt).
func decodeIndex(data []byte) (*recentIndex, error) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	idx := &recentIndex{}
	err := decodeObject(d, func(name string) error {
		var err error
		switch name {
		case "v":
			var v int64
			v, err = readInt(d)
			idx.Version = int(v)
		case "dirMtimeNs":
			idx.DirMtimeNs, err = readInt(d)
		case "entries":
			err = decodeEntries(d, idx)
		default:
			err = d.SkipValue()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, errors.New("the dedup index has data after its object")
	}
	return idx, nil
}

func decodeEntries(d *jsontext.Decoder, idx *recentIndex) error {
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' {
		return errors.New("the dedup index's entries are not an array")
	}
	for d.PeekKind() != ']' {
		var e recentEntry
		err := decodeObject(d, func(name string) error {
			var err error
			switch name {
			case "id":
				e.ID, err = readString(d)
			case "subject":
				e.Subject, err = readString(d)
			case "plan":
				e.Plan, err = readString(d)
			case "mtimeNs":
				e.MtimeNs, err = readInt(d)
			default:
				err = d.SkipValue()
			}
			return err
		})
		if err != nil {
			return err
		}
		idx.Entries = append(idx.Entries, e)
	}
	_, err := d.ReadToken()
	return err
}

// decodeObject reads one object, calling member for each name with the
// decoder at its value.
func decodeObject(d *jsontext.Decoder, member func(name string) error) error {
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return errors.New("the dedup index holds something that is not an object")
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		if err := member(tok.String()); err != nil {
			return err
		}
	}
	_, err := d.ReadToken()
	return err
}

func readString(d *jsontext.Decoder) (string, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return "", err
	}
	if tok.Kind() != '"' {
		return "", errors.New("the dedup index holds a non-string where a string belongs")
	}
	return tok.String(), nil
}

func readInt(d *jsontext.Decoder) (int64, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return 0, err
	}
	if tok.Kind() != '0' {
		return 0, errors.New("the dedup index holds a non-number where a number belongs")
	}
	return tok.Int()
}
