package store

import (
	"golang.org/x/sys/unix"

	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// trustNow lets the index keep rows for files written just now (the test
// makes every change visible in ctime itself, see bumpCtime).
func trustNow(s *Store) {
	s.ListRacyWindow = -time.Hour
}

// servedBy runs scan with s's debug notes on and returns how many records
// the list index served, as its notes say.
func servedBy(t *testing.T, s *Store, scan func()) int {
	t.Helper()
	var log strings.Builder
	oldLog, oldDecisions := s.Log, s.LogDecisions
	s.Log, s.LogDecisions = &log, true
	scan()
	s.Log, s.LogDecisions = oldLog, oldDecisions
	n := 0
	for _, line := range strings.Split(log.String(), "\n") {
		var served, of int
		if _, err := fmt.Sscanf(line, "matrixx: debug: list index served %d of %d records", &served, &of); err == nil {
			n += served
		}
	}
	return n
}

// listAnswer is List's answer as task-list prints it, plus the scan's
// entries in full (every field the list decoding keeps, and the mtime the
// hooks' scans ask for).
func listAnswer(t *testing.T, s *Store, req *task.ListRequest) string {
	t.Helper()
	snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key, Blocks: true, Mtime: true})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, e := range snap.Entries {
		x := e.Task
		fmt.Fprintf(&b, "%s|%q|%s|%q|%s|%q|%q|%q|%v|%q|%q|%d\n", x.ID, x.Subject, x.Status, x.Owner, x.Priority, x.ParentID, x.ThreadID,
			x.BlockedBy, x.BlockedBy == nil, x.Metadata[claim.Key], x.Blocks, e.ModTime.UnixNano())
	}
	res := SummarizeAt(snap, req, time.Unix(1_900_000_000, 0))
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b.String() + string(out)
}

// bumpCtime makes sure a change to path shows in its ctime: on a
// filesystem with coarse timestamps a change within the tick of the last
// one keeps the ctime, which the index's racy window guards against in
// real use and this test (trustNow) does not.
func bumpCtime(t *testing.T, path string, before int64) {
	t.Helper()
	for range 200 {
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) != nil || st.Ctim.Nano() != before || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			return
		}
		time.Sleep(2 * time.Millisecond)
		_ = syscall.Chmod(path, st.Mode&0o7777)
	}
	t.Fatalf("ctime of %s never changed", path)
}

func ctimeOf(path string) int64 {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil {
		return 0
	}
	return st.Ctim.Nano()
}

// TestListIndexNeverWrong changes the files behind the index at random
// (in-place rewrites with size and mtime restored, renames over, deletes,
// adds, truncations, chmod, links, FIFOs, directories, corrupt records, a
// corrupt index, an index of another version) and checks after every
// change that a scan with the index answers exactly what a scan without
// it answers, and that the index did serve rows.
// needIndexedFS skips a test of the index when dir is on a filesystem the
// index is not used on (tmpfs, network, FUSE: indexedFS).
func needIndexedFS(t *testing.T, dir string) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if !indexable(fd) {
		t.Skipf("%s is on a filesystem the list index is not used on", dir)
	}
}

func TestListIndexNeverWrong(t *testing.T) {
	s := newStore(t)
	trustNow(s)
	needIndexedFS(t, s.Root)
	s.ListIndex = filepath.Join(t.TempDir(), "state", "index", "list-test")
	plain := &Store{Dir: s.Dir, Root: s.Root}
	for i := range 12 {
		create(t, s, fmt.Sprintf(`{"subject":"task %02d","description":"d"}`, i))
	}
	ids := func() []string {
		names, _ := s.names()
		var out []string
		for _, n := range names {
			out = append(out, strings.TrimSuffix(n, ".json"))
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 16))
	record := func(id, subject, status string, blockedBy []string, meta string) []byte {
		bl, _ := json.Marshal(blockedBy)
		m := ""
		if meta != "" {
			m = `,"metadata":` + meta
		}
		// blocks: the blockedBy list reversed, or null, or absent
		blocks := `"blocks":null,`
		switch len(subject) % 3 {
		case 0:
			rev := slices.Clone(blockedBy)
			slices.Reverse(rev)
			bs, _ := json.Marshal(append(rev, "T-x"))
			blocks = `"blocks":` + string(bs) + `,`
		case 1:
			blocks = ""
		}
		return []byte(fmt.Sprintf(`{"id":%q,"subject":%q,"description":"d","status":%q,%s"blockedBy":%s%s}`, id, subject, status, blocks, bl, m))
	}
	served := 0
	steps := 400
	if testing.Short() {
		steps = 100
	}
	for step := range steps {
		all := ids()
		pick := func() string {
			if len(all) == 0 {
				return "T-" + fmt.Sprintf("%08d-0000-7000-8000-000000000000", step)
			}
			return all[rng.IntN(len(all))]
		}
		id := pick()
		path := filepath.Join(s.Dir, task.FileName(id))
		before := ctimeOf(path)
		var lst syscall.Stat_t
		regular := syscall.Lstat(path, &lst) == nil && lst.Mode&syscall.S_IFMT == syscall.S_IFREG
		what := rng.IntN(14)
		if !regular && (what <= 1 || what == 10) {
			what = 13 // never open a FIFO for reading or writing
		}
		switch what {
		case 0, 1: // in place, same size, mtime put back (touch -d)
			data, err := os.ReadFile(path)
			if err != nil || !bytes.Contains(data, []byte(`"status":`)) {
				continue
			}
			var st syscall.Stat_t
			_ = syscall.Lstat(path, &st)
			switch {
			case bytes.Contains(data, []byte(`"status":"pending"`)):
				data = bytes.Replace(data, []byte(`"status":"pending"`), []byte(`"status":"deleted"`), 1)
			case bytes.Contains(data, []byte(`"status":"deleted"`)):
				data = bytes.Replace(data, []byte(`"status":"deleted"`), []byte(`"status":"pending"`), 1)
			default:
				i := bytes.Index(data, []byte(`"subject":"`)) + len(`"subject":"`)
				data[i] ^= 1
			}
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				continue
			}
			f.WriteAt(data, 0)
			f.Close()
			mt := time.Unix(0, st.Mtim.Nano())
			os.Chtimes(path, mt, mt)
			bumpCtime(t, path, before)
		case 2, 3: // rename over: a new record in a temp file
			var bl []string
			if len(all) > 0 && rng.IntN(2) == 0 {
				bl = []string{pick()}
			}
			meta := ""
			if rng.IntN(3) == 0 {
				meta = `{"claim":{"owner":"a","leaseUntil":"2030-01-01T00:00:00Z"},"other":[1,2]}`
			}
			st := []string{"pending", "in_progress", "completed", "deleted"}[rng.IntN(4)]
			tmp := filepath.Join(s.Dir, ".tmp-test")
			os.WriteFile(tmp, record(id, fmt.Sprintf("renamed %d", step), st, bl, meta), 0o644)
			os.Rename(tmp, path)
		case 4: // delete
			os.Remove(path)
			os.RemoveAll(path)
		case 5, 6: // add a new record (sometimes with an id not its name's)
			nid := fmt.Sprintf("T-019b0000-%04x-7000-8000-%012x", step, rng.Uint64()&0xffffffffffff)
			rid := nid
			if rng.IntN(5) == 0 {
				rid = pick()
			}
			os.WriteFile(filepath.Join(s.Dir, task.FileName(nid)), record(rid, "added", "pending", nil, ""), 0o644)
		case 7: // truncate
			os.Truncate(path, int64(rng.IntN(40)))
			bumpCtime(t, path, before)
		case 8: // chmod
			os.Chmod(path, os.FileMode(rng.IntN(2))*0o644)
			bumpCtime(t, path, before)
		case 9: // an odd file in place of a record
			os.RemoveAll(path)
			switch rng.IntN(4) {
			case 0:
				os.Symlink(filepath.Join(s.Dir, task.FileName(pick())), path)
			case 1:
				syscall.Mkfifo(path, 0o644)
			case 2:
				os.Mkdir(path, 0o755)
			case 3:
				if len(all) > 1 {
					os.Link(filepath.Join(s.Dir, task.FileName(pick())), path)
				}
			}
		case 10: // a corrupt record (in place)
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err == nil {
				f.WriteAt([]byte("\xff"), int64(rng.IntN(20)))
				f.Close()
				bumpCtime(t, path, before)
			}
		case 11: // a corrupt index
			data, err := os.ReadFile(s.ListIndex)
			if err == nil && len(data) > 0 {
				switch rng.IntN(3) {
				case 0:
					data[rng.IntN(len(data))] ^= 0x20
				case 1:
					data = data[:rng.IntN(len(data))]
				case 2:
					data = append(data, 0)
				}
				os.WriteFile(s.ListIndex, data, 0o600)
			}
		case 12: // an index of another format version, checksum intact
			data, err := os.ReadFile(s.ListIndex)
			if err == nil && len(data) > len(listIndexMagic)+4 {
				data[len(listIndexMagic)] = listIndexVersion + 1
				body := data[:len(data)-4]
				binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(body, castagnoli()))
				os.WriteFile(s.ListIndex, data, 0o600)
			}
		case 13: // nothing: the index serves everything
		}
		want := listAnswer(t, plain, &task.ListRequest{All: true})
		got := listAnswer(t, s, &task.ListRequest{All: true})
		if got != want {
			t.Fatalf("step %d (change %d on %s): with the index\n%s\nwithout\n%s", step, what, id, got, want)
		}
		// The same twice: the second scan is served from the index
		// written by the first.
		var withIndex string
		served += servedBy(t, s, func() { withIndex = listAnswer(t, s, &task.ListRequest{Ready: true}) })
		if want := listAnswer(t, plain, &task.ListRequest{Ready: true}); withIndex != want {
			t.Fatalf("step %d: ready differs: with the index\n%s\nwithout\n%s", step, withIndex, want)
		}
	}
	if served == 0 {
		t.Fatal("the index never served a row")
	}
}

// TestListIndexRacyFilesAreRead checks that a file changed within
// the racy window of a scan gets no row: an in-place rewrite within the same
// timestamp tick must not be served from a stale row.
func TestListIndexRacyFilesAreRead(t *testing.T) {
	s := newStore(t)
	needIndexedFS(t, s.Root)
	s.ListIndex = filepath.Join(t.TempDir(), "list")
	id := create(t, s, `{"subject":"fresh","description":"d"}`).Tasks[0].ID
	if _, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.ListIndex); !os.IsNotExist(err) {
		t.Fatalf("an index with a row for a file written just now: %v", err)
	}
	// Older files get rows, and the next scan is served.
	trustNow(s)
	if _, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key}); err != nil {
		t.Fatal(err)
	}
	var snap *Snapshot
	var err error
	n := servedBy(t, s, func() { snap, err = s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key}) })
	if err != nil || len(snap.Entries) != 1 || snap.Entries[0].Task.ID != id || n != 1 {
		t.Fatalf("not served (%d rows): %v %+v", n, err, snap)
	}
	// An index made for another KeepMeta or directory is not used.
	other := &Store{Dir: s.Dir, ListIndex: s.ListIndex, ListRacyWindow: s.ListRacyWindow}
	if n := servedBy(t, other, func() { _, err = other.Scan(ScanOptions{ListFields: true, KeepMeta: "other"}) }); err != nil || n != 0 {
		t.Fatalf("an index for another KeepMeta served %d rows: %v", n, err)
	}
}
