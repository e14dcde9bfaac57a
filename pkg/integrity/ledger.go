// Package integrity is the toolkit's second line of defence
// (docs/integrity.md): every write of our binaries to a covered area (the
// task store, the plans, the config files, the hooks' own state) leaves a
// ledger entry (the file's content hash, size, mode and stat tuple) and a
// copy of its content; after each agent tool call the hook compares each
// area with its ledger and puts back what changed without our binaries.
//
// A ledger is a directory holding:
//
//	ledger    the compacted entries: a header line "matrixx-integrity 1",
//	          then one line per file (see the line format below)
//	journal   lines appended by writers since the last compaction
//	blobs/    the last good content of every entry, named by its SHA-256
//	.lock     the lock of the areas that have no lock of their own
//
// Lines (fields separated by one space, the name last and Go-quoted):
//
//	P <sha256> <size> <mode> <mtimeNs> <ctimeNs> <ino> <settled> <name>
//	S <sha256> <mtimeNs> <ctimeNs> <ino> <settled> <name>
//	D <name>
//
// P puts an entry (a writer's intent, written before its rename, so a
// failed journal write aborts the write); S refreshes the stat tuple of
// the entry of that name only when its hash is the same (written after a
// rename, after a restore and by checks, so it can never resurrect an
// older content); D forgets a name (before a removal). settled is 1 when
// the stat tuple may be trusted as a fast pre-filter (see Entry.Settled).
package integrity

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// File names inside a ledger directory.
const (
	baseFile    = "ledger"
	journalFile = "journal"
	blobDir     = "blobs"
	header      = "matrixx-integrity 1"
)

// compactAfter is the journal length (lines) past which a check that holds
// the lock rewrites the ledger.
const compactAfter = 256

// Sum is a SHA-256 content hash.
type Sum [32]byte

func (s Sum) String() string { return hex.EncodeToString(s[:]) }

// SumOf hashes data.
func SumOf(data []byte) Sum { return sha256.Sum256(data) }

// Stat is the stat tuple used as a fast pre-filter. Ctime is part of it
// because no unprivileged process can set it (touch -r/-d set only atime
// and mtime), so a file whose tuple is unchanged since a settled entry was
// recorded has not been written since.
type Stat struct {
	Size  int64
	Mode  uint32 // st_mode: type and permission bits
	Mtime int64  // ns since the epoch
	Ctime int64  // ns since the epoch
	Ino   uint64
	Nlink uint64
}

// Entry is the last good state of one file.
type Entry struct {
	Sum  Sum
	Stat Stat
	// Settled says Stat may be trusted: it was observed, with the content
	// hashed between two identical stats, after the clock tick of its ctime
	// had passed (a write in the same tick as ours could otherwise keep
	// the same ctime on filesystems with coarse timestamps).
	Settled bool
}

// Ledger is one area's ledger directory, loaded.
type Ledger struct {
	Dir     string
	Entries map[string]*Entry
	// Fresh says no ledger existed yet, neither a base nor a journal line
	// (the first run adopts what it finds).
	Fresh bool
	// Unchecked says the ledger has no base: no check has run on the area
	// yet (our binaries may have written journal lines).
	Unchecked bool
	// JournalLines counts the journal's lines.
	JournalLines int
	// DirEntry is the stat tuple of a directory area's directory as last
	// observed by a check that found the area as recorded (entry name
	// "."; nil when unknown). While it is settled and unchanged no entry
	// was added, removed or renamed, so the check stats the known names
	// without listing the directory.
	DirEntry *Entry
}

// dirName is the ledger name of the directory's own entry.
const dirName = "."

// Load reads the ledger in dir (base, then journal). A missing ledger is
// Fresh. A torn last journal line (a writer killed mid-append) is ignored.
func Load(dir string) (*Ledger, error) {
	l := &Ledger{Dir: dir}
	base, err := os.ReadFile(filepath.Join(dir, baseFile))
	l.Entries = make(map[string]*Entry, len(base)/150+8) // ~180 bytes a line
	switch {
	case errors.Is(err, os.ErrNotExist):
		l.Fresh, l.Unchecked = true, true
	case err != nil:
		return nil, err
	default:
		first, rest, _ := bytes.Cut(base, []byte{'\n'})
		if string(first) != header {
			return nil, fmt.Errorf("%s: not a ledger (header %q)", filepath.Join(dir, baseFile), shorten(string(first)))
		}
		l.apply(rest)
	}
	j, err := os.ReadFile(filepath.Join(dir, journalFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// Writers append to the journal of a ledger that has no base yet (a
	// store our binaries wrote before its first check): what they recorded
	// is the baseline, so the ledger is Fresh only when the journal holds
	// nothing either. Files the journal does not know are then judged as
	// unknown names (adopted when made outside every live session).
	l.JournalLines = l.apply(j)
	if l.JournalLines > 0 {
		l.Fresh = false
	}
	if e, ok := l.Entries[dirName]; ok {
		l.DirEntry = e
		delete(l.Entries, dirName)
	}
	return l, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// apply applies complete lines of data and returns how many there were.
func (l *Ledger) apply(data []byte) int {
	n := 0
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		if !ok {
			break // torn last line
		}
		data = rest
		n++
		l.applyLine(string(line))
	}
	return n
}

func (l *Ledger) applyLine(line string) {
	if line == "" {
		return
	}
	switch line[0] {
	case 'P':
		var f [9]string
		if !fields(line, f[:]) {
			return
		}
		sum, ok1 := parseSum(f[1])
		name, ok2 := unquote(f[8])
		if !ok1 || !ok2 {
			return
		}
		e := &Entry{Sum: sum}
		e.Stat.Size, _ = strconv.ParseInt(f[2], 10, 64)
		m, _ := strconv.ParseUint(f[3], 8, 32)
		e.Stat.Mode = uint32(m)
		e.Stat.Mtime, _ = strconv.ParseInt(f[4], 10, 64)
		e.Stat.Ctime, _ = strconv.ParseInt(f[5], 10, 64)
		e.Stat.Ino, _ = strconv.ParseUint(f[6], 10, 64)
		e.Stat.Nlink = 1
		e.Settled = f[7] == "1"
		l.Entries[name] = e
	case 'S':
		var f [7]string
		if !fields(line, f[:]) {
			return
		}
		sum, ok1 := parseSum(f[1])
		name, ok2 := unquote(f[6])
		if !ok1 || !ok2 {
			return
		}
		e := l.Entries[name]
		if e == nil || e.Sum != sum {
			return // an older content's tuple: ignored
		}
		e.Stat.Mtime, _ = strconv.ParseInt(f[2], 10, 64)
		e.Stat.Ctime, _ = strconv.ParseInt(f[3], 10, 64)
		e.Stat.Ino, _ = strconv.ParseUint(f[4], 10, 64)
		e.Settled = f[5] == "1"
	case 'D':
		if name, err := strconv.Unquote(strings.TrimPrefix(line, "D ")); err == nil {
			delete(l.Entries, name)
		}
	}
}

// fields splits line at single spaces into exactly len(f) fields, the
// last taking the rest.
func fields(line string, f []string) bool {
	for i := 0; i < len(f)-1; i++ {
		j := strings.IndexByte(line, ' ')
		if j < 0 {
			return false
		}
		f[i], line = line[:j], line[j+1:]
	}
	f[len(f)-1] = line
	return true
}

// unquote undoes strconv.Quote, without allocating for plain names.
func unquote(q string) (string, bool) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && !strings.ContainsAny(q[1:len(q)-1], "\\\"") {
		return q[1 : len(q)-1], true
	}
	s, err := strconv.Unquote(q)
	return s, err == nil
}

func parseSum(s string) (Sum, bool) {
	var sum Sum
	if len(s) != 64 {
		return sum, false
	}
	if _, err := hex.Decode(sum[:], []byte(s)); err != nil {
		return sum, false
	}
	return sum, true
}

func putLine(name string, e *Entry) string {
	settled := "0"
	if e.Settled {
		settled = "1"
	}
	return fmt.Sprintf("P %s %d %o %d %d %d %s %s\n", e.Sum, e.Stat.Size, e.Stat.Mode, e.Stat.Mtime, e.Stat.Ctime, e.Stat.Ino, settled, strconv.Quote(name))
}

func settleLine(name string, e *Entry) string {
	settled := "0"
	if e.Settled {
		settled = "1"
	}
	return fmt.Sprintf("S %s %d %d %d %s %s\n", e.Sum, e.Stat.Mtime, e.Stat.Ctime, e.Stat.Ino, settled, strconv.Quote(name))
}

func deleteLine(name string) string { return "D " + strconv.Quote(name) + "\n" }

// appendLines appends whole lines to the journal in one write(2) with
// O_APPEND, so lines of concurrent appenders never interleave. Not synced:
// a lost line only makes the next check hash the file (or see a change it
// then confirms under the lock).
func appendLines(dir string, lines string) error {
	path := filepath.Join(dir, journalFile)
	for try := 0; ; try++ {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.ENOENT) && try == 0 {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return &os.PathError{Op: "open", Path: path, Err: err}
		}
		werr := durable.WriteAll(fd, []byte(lines))
		cerr := unix.Close(fd)
		if werr != nil {
			return &os.PathError{Op: "write", Path: path, Err: werr}
		}
		return cerr
	}
}

// blobPath is where content sum is kept.
func blobPath(dir string, sum Sum) string {
	return filepath.Join(dir, blobDir, sum.String())
}

// saveBlob keeps data as the content of sum, not synced: a blob lost in a
// crash is reported as unrecoverable only if the file is then also changed
// behind the toolkit's back. A new blob is created under its final name
// (O_EXCL, one open, write and close: every write of ours adds one); a
// blob torn by a crash has the wrong size or hash, so the next write of
// that content replaces it (temp file and rename) and readBlob refuses it.
// Writers and restores hold the area's lock, so nothing reads a blob while
// it is being written.
func saveBlob(dir string, sum Sum, data []byte) error {
	p := blobPath(dir, sum)
	for try := 0; ; try++ {
		fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			werr := durable.WriteAll(fd, data)
			cerr := unix.Close(fd)
			if werr == nil && cerr == nil {
				return nil
			}
			_ = unix.Unlink(p)
			if werr != nil {
				return &os.PathError{Op: "write", Path: p, Err: werr}
			}
			return &os.PathError{Op: "close", Path: p, Err: cerr}
		}
		if errors.Is(err, unix.ENOENT) && try == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			continue
		}
		if !errors.Is(err, unix.EEXIST) {
			return &os.PathError{Op: "open", Path: p, Err: err}
		}
		break
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return nil
	}
	return durable.WriteFile(p, data, durable.Options{NoSync: true, Perm: 0o600})
}

// readBlob returns the content of sum, verified.
func readBlob(dir string, sum Sum, max int64) ([]byte, error) {
	data, err := readCapped(blobPath(dir, sum), max)
	if err != nil {
		return nil, err
	}
	if SumOf(data) != sum {
		return nil, fmt.Errorf("the kept copy %s is damaged", sum.String()[:12])
	}
	return data, nil
}

// compact rewrites the ledger from l.Entries, empties the journal and
// removes blobs no entry names. The caller holds the area's lock.
func (l *Ledger) compact() error {
	var b strings.Builder
	b.WriteString(header + "\n")
	for name, e := range l.Entries {
		b.WriteString(putLine(name, e))
	}
	if l.DirEntry != nil {
		b.WriteString(putLine(dirName, l.DirEntry))
	}
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return err
	}
	if err := durable.WriteFile(filepath.Join(l.Dir, baseFile), []byte(b.String()), durable.Options{Perm: 0o600}); err != nil {
		return err
	}
	if err := os.Truncate(filepath.Join(l.Dir, journalFile), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	l.JournalLines = 0
	l.Fresh = false
	keep := map[string]bool{}
	for _, e := range l.Entries {
		keep[e.Sum.String()] = true
	}
	if ents, err := os.ReadDir(filepath.Join(l.Dir, blobDir)); err == nil {
		for _, de := range ents {
			if !keep[de.Name()] {
				_ = os.Remove(filepath.Join(l.Dir, blobDir, de.Name()))
			}
		}
	}
	return nil
}

// readCapped reads a regular file without following a link, refusing
// files over max bytes before reading them.
func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte cap", path, fi.Size(), max)
	}
	r := bufio.NewReaderSize(f, int(min(fi.Size()+1, 1<<20)+1))
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()))
	if _, err := buf.ReadFrom(ioLimit(r, max+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s grew past %d bytes while it was read", path, max)
	}
	return buf.Bytes(), nil
}
