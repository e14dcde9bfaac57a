package tasksync

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// statCache remembers, like git's index, the blob id of each store file
// with the stat data it had, and the local ref's tip with its listing, so a
// sync with nothing to do reads no file and starts no git process but the
// fetch. It lives in <git dir>/matrixx-sync/<store hash>; losing it
// only costs a rehash.
type statCache struct {
	Tip   string               `json:"tip"`
	Tree  string               `json:"tree"`
	List  files                `json:"list"`
	Stats map[string]statEntry `json:"stats"`
}

// statEntry is one file's stat data and blob id. Every write of the
// toolkit renames a new file into place (a new inode), so an edit is seen
// even within one mtime tick; entries younger than racyWindow at save time
// are not kept (rehashed next time).
type statEntry struct {
	OID   string `json:"oid"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtimeNs"`
	Ctime int64  `json:"ctimeNs"`
	Ino   uint64 `json:"ino"`
}

const racyWindow = 2 * time.Second

func (r *repo) cachePath(o *Options) string {
	h := sha256.Sum256([]byte(o.TasksDir + "\x00" + o.PlansDir))
	return filepath.Join(r.gitDir, "matrixx-sync", hex.EncodeToString(h[:8])+".cache")
}

// The cache file is text, one record a line, fast to read at any size:
//
//	matrixx-sync-cache 1 <tip> <tree>
//	L <path> <oid>                                   (the tip's listing)
//	S <path> <oid> <size> <mtimeNs> <ctimeNs> <ino>  (a store file)
const cacheMagic = "matrixx-sync-cache 1"

func (r *repo) loadCache(o *Options) *statCache {
	b, err := os.ReadFile(r.cachePath(o))
	if err != nil {
		return &statCache{}
	}
	c := &statCache{List: files{}, Stats: map[string]statEntry{}}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case i == 0:
			if len(f) != 4 || f[0]+" "+f[1] != cacheMagic {
				return &statCache{}
			}
			c.Tip, c.Tree = strings.Trim(f[2], "-"), strings.Trim(f[3], "-")
		case len(f) == 3 && f[0] == "L":
			c.List[f[1]] = f[2]
		case len(f) == 7 && f[0] == "S":
			var n [4]int64
			ok := true
			for k := range n {
				v, err := strconv.ParseInt(f[3+k], 10, 64)
				ok = ok && err == nil
				n[k] = v
			}
			if ok {
				c.Stats[f[1]] = statEntry{OID: f[2], Size: n[0], Mtime: n[1], Ctime: n[2], Ino: uint64(n[3])}
			}
		case len(f) == 0:
		default:
			return &statCache{}
		}
	}
	return c
}

func (r *repo) saveCache(o *Options, old, c *statCache) {
	if old != nil && old.Tip == c.Tip && old.Tree == c.Tree && maps.Equal(old.List, c.List) && maps.Equal(old.Stats, c.Stats) {
		return // nothing new: no write
	}
	p := r.cachePath(o)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s\n", cacheMagic, orDash(c.Tip), orDash(c.Tree))
	for path, oid := range c.List {
		fmt.Fprintf(&b, "L %s %s\n", path, oid)
	}
	for path, e := range c.Stats {
		fmt.Fprintf(&b, "S %s %s %d %d %d %d\n", path, e.OID, e.Size, e.Mtime, e.Ctime, e.Ino)
	}
	_ = durable.WriteFile(p, []byte(b.String()), durable.Options{NoSync: true})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// snapshot lists the store's files with their blob ids, hashing only files
// whose stat data differ from the cache; it returns the fresh stat entries
// and the contents it had to read.
func (r *repo) snapshot(o *Options, c *statCache) (files, map[string]statEntry, map[string][]byte, error) {
	cur := files{}
	stats := map[string]statEntry{}
	read := map[string][]byte{}
	for _, d := range []struct {
		dir, prefix string
		max         int64
	}{{o.TasksDir, "tasks/", store.MaxRecordBytes}, {o.PlansDir, "plans/", plan.MaxReadBytes}} {
		f, err := os.Open(d.dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		names, err := f.Readdirnames(-1)
		if err != nil {
			f.Close()
			return nil, nil, nil, err
		}
		dfd := int(f.Fd())
		for _, name := range names {
			p := d.prefix + name
			if !validPath(p) {
				continue
			}
			path := filepath.Join(d.dir, name)
			var st unix.Stat_t
			if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			e := statEntry{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}
			if old, ok := c.Stats[p]; ok && st.Mode&unix.S_IFMT == unix.S_IFREG && old.Size == e.Size && old.Mtime == e.Mtime && old.Ctime == e.Ctime && old.Ino == e.Ino {
				cur[p], stats[p] = old.OID, old
				continue
			}
			data, err := readRegular(path, d.max)
			if err != nil {
				o.logf("skipped %s: %v", path, err)
				continue
			}
			e.OID = r.hashBlob(data)
			cur[p], stats[p], read[p] = e.OID, e, data
		}
		f.Close()
	}
	return cur, stats, read, nil
}

// keepStats returns the entries worth caching: those not written within
// racyWindow of now.
func keepStats(stats map[string]statEntry, now time.Time) map[string]statEntry {
	out := make(map[string]statEntry, len(stats))
	limit := now.Add(-racyWindow).UnixNano()
	for p, e := range stats {
		if e.Mtime < limit && e.Ctime < limit {
			out[p] = e
		}
	}
	return out
}

// restat refreshes the stat entries of paths (files the sync wrote).
func restat(o *Options, stats map[string]statEntry, want files, paths []string) {
	for _, p := range paths {
		dir := o.TasksDir
		if strings.HasPrefix(p, "plans/") {
			dir = o.PlansDir
		}
		var st syscall.Stat_t
		if oid, ok := want[p]; ok && syscall.Lstat(filepath.Join(dir, filepath.Base(p)), &st) == nil {
			stats[p] = statEntry{OID: oid, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}
		} else {
			delete(stats, p)
		}
	}
}

// readRef reads a ref without git: a loose ref file, else packed-refs.
// ok is false when it cannot tell (a reftable repository, a symbolic ref):
// the caller asks git.
func (r *repo) readRef(ref string) (oid string, ok bool) {
	if _, err := os.Stat(filepath.Join(r.gitDir, "reftable")); err == nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(r.gitDir, filepath.FromSlash(ref)))
	if err == nil {
		s := strings.TrimSpace(string(b))
		if strings.HasPrefix(s, "ref:") || s == "" {
			return "", false
		}
		return s, true
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	f, err := os.Open(filepath.Join(r.gitDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if oid, name, ok := strings.Cut(l, " "); ok && name == ref {
			return oid, true
		}
	}
	return "", true
}

// preSnapshot is a snapshot of the store taken without the lock while the
// fetch runs. It is used under the lock only when neither directory
// changed since: their mtimes right before this sync created its .lock
// files (with the kernel lock held: every writer of the toolkit renames
// into the directory and creates and removes its .lock there) are those
// of the snapshot, and were already older than preSettle when it was
// taken (timestamps come from a coarse clock, so a younger mtime could
// hide a change made in the same tick). A foreign writer that rewrites a
// file in place is seen by the next sync's stat check.
type preSnapshot struct {
	cache  *statCache
	cur    files
	stats  map[string]statEntry
	read   map[string][]byte
	mtimes [2]int64 // when the snapshot was taken
	seen   [2]int64 // right before the step's .lock files were created
	ok     bool
}

// preSettle: a directory modified this recently before the snapshot may
// hide a later change in the same timestamp tick (one jiffy: at most 10 ms
// at HZ=100).
const preSettle = 12 * time.Millisecond

func dirMtime(d string) int64 {
	var st syscall.Stat_t
	if syscall.Stat(d, &st) != nil {
		return 0
	}
	return st.Mtim.Nano()
}

func dirMtimes(o *Options) [2]int64 {
	return [2]int64{dirMtime(o.TasksDir), dirMtime(o.PlansDir)}
}

func (r *repo) presnapshot(o *Options) {
	start := time.Now()
	p := &preSnapshot{cache: r.loadCache(o), mtimes: dirMtimes(o)}
	p.ok = p.mtimes[0] < start.Add(-preSettle).UnixNano() && p.mtimes[1] < start.Add(-preSettle).UnixNano()
	if p.ok {
		var err error
		if p.cur, p.stats, p.read, err = r.snapshot(o, p.cache); err != nil {
			p.ok = false
		}
	}
	r.pre = p
}

func (p *preSnapshot) valid(o *Options) bool {
	return p.ok && p.cur != nil && p.seen == p.mtimes
}
