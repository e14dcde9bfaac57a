package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

var sprintf = fmt.Sprintf

// Entry is one valid record with its file's modification time (zero unless
// the scan asked for mtimes).
type Entry struct {
	Task    *task.Task
	ModTime time.Time
}

// Problem reports a T-*.json file that could not be read as a task
// (corrupt, foreign, empty, too large, a symlink, …). Commands keep going
// and report it.
type Problem struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// Snapshot is the result of reading the whole directory.
type Snapshot struct {
	Entries  []Entry
	Problems []Problem
}

// Tasks returns the snapshot's tasks in its order.
func (s *Snapshot) Tasks() []*task.Task {
	out := make([]*task.Task, len(s.Entries))
	for i, e := range s.Entries {
		out[i] = e.Task
	}
	return out
}

// ScanOptions tune Scan.
type ScanOptions struct {
	// Mtime asks for each file's modification time.
	Mtime bool
	// Keep, when set, is asked with each file's mtime before the file is
	// read; files it rejects are skipped unread (implies Mtime).
	Keep func(mtime time.Time) bool
	// ListFields decodes only what task-list prints
	// (task.DecodeListRecord, keeping metadata[KeepMeta]): the same
	// records are accepted and refused with the same errors, but
	// description, metadata and the other members are not kept.
	ListFields bool
	KeepMeta   string
	// Blocks keeps blocks too in a ListFields scan (task-doctor). A
	// ListFields scan without it may leave Blocks nil.
	Blocks bool
}

// IsTaskFile reports whether a directory entry name is in the T-*.json glob.
func IsTaskFile(name string) bool {
	return strings.HasPrefix(name, "T-") && strings.HasSuffix(name, ".json") && len(name) > len("T-.json")
}

// Get reads one task. It returns (nil, nil) when the file does not exist and
// task_corrupt when it exists but is not a valid record.
func (s *Store) Get(id string) (*task.Task, error) {
	t, _, err := s.read(id)
	return t, err
}

func (s *Store) read(id string) (*task.Task, time.Time, error) {
	t, _, mtime, err := s.readFull(id)
	return t, mtime, err
}

// readFull is read with the record's bytes (nil when absent).
func (s *Store) readFull(id string) (*task.Task, []byte, time.Time, error) {
	name := task.FileName(id)
	data, mtime, err := readRecordFile(filepath.Join(s.Dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, time.Time{}, nil
	}
	if errors.Is(err, unix.ENOTDIR) {
		// The store itself is broken, not this record: the same code as
		// task-list, task-create, task-update and task-cleanup answer.
		return nil, nil, time.Time{}, errcode.Wrap(errcode.InternalError, err, "reading %s: the task store is not a directory", s.Dir)
	}
	if err != nil {
		return nil, nil, time.Time{}, errcode.Wrap(errcode.TaskCorrupt, err, "%s", name)
	}
	t, err := decodeNamed(name, data)
	if err != nil {
		return nil, nil, time.Time{}, errcode.New(errcode.TaskCorrupt, "%s is not a valid task record (%s); it was left as it is", name, errcode.As(err).Message)
	}
	return t, data, mtime, nil
}

// readRecordFile reads a record without following symlinks, up to
// MaxRecordBytes. The open never blocks (O_NONBLOCK): a FIFO named like a
// record is refused as not a regular file instead of waiting for a writer.
func readRecordFile(path string) ([]byte, time.Time, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, time.Time{}, openError(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, time.Time{}, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		// The same words as task-list's problems (typeProblem).
		typ := os.ModeIrregular
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			typ = os.ModeDir
		}
		return nil, time.Time{}, typeProblem(typ)
	}
	if st.Size > MaxRecordBytes {
		// Checked before reading: a sparse giant costs one fstat.
		return nil, time.Time{}, fmt.Errorf("%d bytes, larger than the %d-byte cap", st.Size, MaxRecordBytes)
	}
	data, err := readAll(fd, make([]byte, 0, st.Size+1))
	return data, time.Unix(st.Mtim.Unix()), err
}

func openError(err error) error {
	switch {
	case errors.Is(err, unix.ENOENT):
		return os.ErrNotExist
	case errors.Is(err, unix.ELOOP):
		return errors.New("is a symlink (records are never read through links)")
	}
	return err
}

// readAll reads fd to EOF into buf (reusing its capacity), refusing files
// past MaxRecordBytes.
func readAll(fd int, buf []byte) ([]byte, error) {
	return readRest(fd, buf[:0])
}

// readRest reads fd to EOF, appending to buf, refusing files past
// MaxRecordBytes.
func readRest(fd int, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			if cap(buf) > MaxRecordBytes {
				return nil, fmt.Errorf("larger than the %d-byte cap", MaxRecordBytes)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if len(buf) > MaxRecordBytes {
				return nil, fmt.Errorf("larger than the %d-byte cap", MaxRecordBytes)
			}
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// decodeNamed decodes a record and checks that its id matches its file name.
func decodeNamed(name string, data []byte) (*task.Task, error) {
	return decodeNamedAs(name, data, nil)
}

// decodeNamedAs is decodeNamed with the scan's options (ListFields).
func decodeNamedAs(name string, data []byte, opt *ScanOptions) (*task.Task, error) {
	if len(data) == 0 {
		return nil, errcode.New(errcode.ValidationError, "empty file")
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		// JSON.parse refuses it too: the record stays corrupt, and the
		// problem says why in words.
		return nil, errcode.New(errcode.ValidationError, "starts with a byte-order mark (EF BB BF): a task file is UTF-8 JSON without one; remove its first 3 bytes")
	}
	var t *task.Task
	var err error
	if opt != nil && opt.ListFields {
		t, err = task.DecodeListRecord(data, opt.KeepMeta)
	} else {
		t, err = task.DecodeRecord(data)
	}
	if err != nil {
		return nil, err
	}
	if task.FileName(t.ID) != name {
		return nil, errcode.New(errcode.ValidationError, "id %q does not match the file name", t.ID)
	}
	return t, nil
}

// names returns the T-*.json names in the directory, unsorted. A missing
// directory has none.
func (s *Store) names() ([]string, error) {
	ents, err := s.entries()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.name
	}
	return out, nil
}

// entry is one T-*.json directory entry with its type from the listing
// (d_type; the os package falls back to lstat where the filesystem does not
// report it).
type entry struct {
	name string
	typ  os.FileMode
}

// entries lists the T-*.json entries of the directory, unsorted. A missing
// directory has none. It reads the directory with getdents64 in 256 KiB
// batches (os.ReadDir's 8 KiB take 400 calls at 50,000 tasks) and keeps
// each name a substring of its batch.
func (s *Store) entries() ([]entry, error) {
	fd, err := unix.Open(s.Dir, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, &os.PathError{Op: "open", Path: s.Dir, Err: err}, "opening %s", s.Dir)
	}
	defer unix.Close(fd)
	var out []entry
	buf := make([]byte, 256<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.InternalError, &os.PathError{Op: "readdirent", Path: s.Dir, Err: err}, "listing %s", s.Dir)
		}
		if n <= 0 {
			return out, nil
		}
		batch := string(buf[:n])
		for p := 0; p+19 <= len(batch); {
			reclen := int(batch[p+16]) | int(batch[p+17])<<8
			if reclen < 19 || p+reclen > len(batch) {
				break
			}
			name := batch[p+19 : p+reclen]
			if i := strings.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			dt := batch[p+18]
			p += reclen
			if !IsTaskFile(name) {
				continue
			}
			typ, ok, err := direntType(fd, name, dt)
			if err != nil {
				return nil, errcode.Wrap(errcode.InternalError, &os.PathError{Op: "lstat", Path: filepath.Join(s.Dir, name), Err: err}, "listing %s", s.Dir)
			}
			if ok {
				out = append(out, entry{name: name, typ: typ})
			}
		}
	}
}

// direntType is a directory entry's type as os.ReadDir reports it: from
// d_type, else (DT_UNKNOWN) from lstat; ok is false for an entry removed
// since the listing.
func direntType(dirfd int, name string, dt byte) (os.FileMode, bool, error) {
	if dt != unix.DT_UNKNOWN {
		// d_type is the S_IFMT of the inode, shifted: DT_x == S_IFx >> 12.
		return modeType(uint32(dt) << 12), true, nil
	}
	var st unix.Stat_t
	for {
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if errors.Is(err, unix.ENOENT) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		return modeType(st.Mode), true, nil
	}
}

// modeType is the os.FileMode type bits of an st_mode, as os.Lstat gives
// them (0 for a regular file, os.ModeIrregular for an unknown type).
func modeType(mode uint32) os.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return os.ModeDir
	case unix.S_IFLNK:
		return os.ModeSymlink
	case unix.S_IFIFO:
		return os.ModeNamedPipe
	case unix.S_IFSOCK:
		return os.ModeSocket
	case unix.S_IFBLK:
		return os.ModeDevice
	case unix.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice
	}
	return os.ModeIrregular
}

// typeProblem returns why an entry that is not a regular file cannot be a
// record, or nil for a regular file.
func typeProblem(typ os.FileMode) error {
	switch {
	case typ.IsRegular():
		return nil
	case typ&os.ModeSymlink != 0:
		return openError(unix.ELOOP)
	case typ.IsDir():
		return errors.New("is a directory")
	}
	return errors.New("not a regular file")
}

// Scan reads every T-*.json file in parallel, strictly validating each.
// Files that fail are reported in Problems; Entries are sorted by id.
// A missing directory yields an empty snapshot.
func (s *Store) Scan(opt ScanOptions) (*Snapshot, error) {
	names, err := s.entries()
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Entries: []Entry{}, Problems: []Problem{}}
	if len(names) == 0 {
		return snap, nil
	}
	dirfd, err := unix.Open(s.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "opening %s", s.Dir)
	}
	defer unix.Close(dirfd)

	// The list index (listindex.go) serves ListFields scans.
	var ix *listIndex
	var src []int32
	indexed := s.ListIndex != "" && opt.ListFields && opt.Keep == nil && indexable(dirfd)
	if indexed {
		if ix = loadListIndex(s.ListIndex, s.Dir, opt.KeepMeta, len(names)); ix != nil {
			src = ix.match(names)
		} else {
			src = make([]int32, len(names))
			for i := range src {
				src[i] = -1
			}
		}
	}
	// Rows served go to their rank: when every row is served and no
	// other entry is, the entries come out sorted.
	var placed []Entry
	if ix != nil {
		placed = make([]Entry, len(ix.names))
	}
	// Rows are made only for files whose ctime is the racy window older
	// than this, taken before any file is read.
	settled := time.Now().Add(-s.racyWindow()).UnixNano()

	workers := runtime.GOMAXPROCS(0)
	if max := len(names)/64 + 1; workers > max {
		workers = max
	}
	type result struct {
		entries  []Entry
		problems []Problem
		fresh    []freshRow
		served   int
	}
	results := make([]result, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			buf := make([]byte, 0, 16<<10)
			var slab []task.Task
			var blocked []string
			for i := w; i < len(names); i += workers {
				if indexed {
					k := src[i]
					src[i] = -1
					var id fileID
					var st unix.Stat_t
					statted := names[i].typ.IsRegular() && unix.Fstatat(dirfd, names[i].name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG
					if statted {
						id = idOf(&st)
						if k >= 0 {
							if len(slab) == 0 {
								slab = make([]task.Task, min(256, (len(names)-i)/workers+1))
							}
							if ix.row(int(k), id, opt.KeepMeta, opt.Blocks, &slab[0], &blocked) {
								placed[ix.ranks[k]] = Entry{Task: &slab[0]}
								if opt.Mtime {
									// The row is valid for this very stat.
									placed[ix.ranks[k]].ModTime = time.Unix(0, id.mtime)
								}
								r.served++
								slab = slab[1:]
								src[i] = k
								continue
							}
						}
					}
					// Read as without the index.
					e, p, skip := readAt(dirfd, names[i], opt, &buf)
					switch {
					case skip:
					case p != nil:
						r.problems = append(r.problems, *p)
					default:
						r.entries = append(r.entries, e)
						if statted && id.ctime < settled {
							r.fresh = append(r.fresh, freshRow{pos: i, id: id, t: e.Task})
						}
					}
					continue
				}
				e, p, skip := readAt(dirfd, names[i], opt, &buf)
				switch {
				case skip:
				case p != nil:
					r.problems = append(r.problems, *p)
				default:
					r.entries = append(r.entries, e)
				}
			}
		}()
	}
	wg.Wait()
	var fresh []freshRow
	served := 0
	for _, r := range results {
		served += r.served
	}
	if indexed && s.LogDecisions {
		s.logf("debug: list index served %d of %d records", served, len(names))
	}
	sorted := false
	if served > 0 && served == len(placed) && served == len(names) {
		snap.Entries, sorted = placed, true
		for i := 1; i < len(placed) && sorted; i++ {
			sorted = placed[i-1].Task.ID < placed[i].Task.ID
		}
	} else if served > 0 {
		snap.Entries = slices.Grow(snap.Entries, len(names))
		for _, e := range placed {
			if e.Task != nil {
				snap.Entries = append(snap.Entries, e)
			}
		}
	}
	for _, r := range results {
		snap.Entries = append(snap.Entries, r.entries...)
		snap.Problems = append(snap.Problems, r.problems...)
		fresh = append(fresh, r.fresh...)
	}
	if indexed {
		s.updateListIndex(ix, names, src, fresh, opt.KeepMeta)
	}
	if !sorted {
		slices.SortFunc(snap.Entries, func(a, b Entry) int { return strings.Compare(a.Task.ID, b.Task.ID) })
	}
	slices.SortFunc(snap.Problems, func(a, b Problem) int { return strings.Compare(a.File, b.File) })
	return snap, nil
}

// readAt reads and decodes one record relative to dirfd. Entries the
// listing typed as something other than a regular file are reported
// without being opened.
func readAt(dirfd int, ent entry, opt ScanOptions, buf *[]byte) (Entry, *Problem, bool) {
	name := ent.name
	problem := func(err error) (Entry, *Problem, bool) {
		msg := err.Error()
		if e, ok := err.(*errcode.Error); ok {
			msg = e.Message
		}
		return Entry{}, &Problem{File: name, Error: msg}, false
	}
	if err := typeProblem(ent.typ); err != nil {
		return problem(err)
	}
	var mtime time.Time
	if opt.Keep != nil {
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return Entry{}, nil, true
			}
			return problem(err)
		}
		mtime = time.Unix(st.Mtim.Unix())
		if !opt.Keep(mtime) {
			return Entry{}, nil, true
		}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return Entry{}, nil, true // removed since the listing
		}
		return problem(openError(err))
	}
	if opt.Mtime && opt.Keep == nil {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return problem(err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			unix.Close(fd)
			return problem(errors.New("not a regular file"))
		}
		mtime = time.Unix(st.Mtim.Unix())
	}
	data, short, err := readFirst(fd, *buf)
	var t *task.Task
	if err == nil && short {
		// A short read of a regular file is its end on every local
		// filesystem, which saves the read that would return 0. Should a
		// filesystem return a short read early, the document does not
		// decode: read on to the real end and decode again.
		if t, err = decodeNamedAs(name, data, &opt); err != nil {
			data, err = readRest(fd, data)
			t = nil
		}
	} else if err == nil {
		// A record longer than one read: check its size before reading
		// on, so a sparse giant is refused after one fstat.
		var st unix.Stat_t
		if err = unix.Fstat(fd, &st); err == nil && st.Size > MaxRecordBytes {
			err = fmt.Errorf("%d bytes, larger than the %d-byte cap", st.Size, MaxRecordBytes)
		}
		if err == nil {
			data, err = readRest(fd, data)
		}
	}
	unix.Close(fd)
	if err != nil {
		if errors.Is(err, unix.EISDIR) {
			err = errors.New("is a directory")
		}
		return problem(err)
	}
	*buf = data
	if t == nil {
		if t, err = decodeNamedAs(name, data, &opt); err != nil {
			return problem(err)
		}
	}
	return Entry{Task: t, ModTime: mtime}, nil, false
}

// readFirst does one read into buf's capacity. short reports that the read
// returned less than it asked for (for a regular file: the end); an empty
// read is short.
func readFirst(fd int, buf []byte) (data []byte, short bool, err error) {
	buf = buf[:0]
	if cap(buf) == 0 {
		buf = make([]byte, 0, 16<<10)
	}
	for {
		n, err := unix.Read(fd, buf[:cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		return buf[:n], n < cap(buf), nil
	}
}
