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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
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

// The cache file is text, one record a line, sorted by path, fast to read
// at any size:
//
//	matrixx-sync-cache 2 <tip> <tree>
//	F <path> <oid> <size> <mtimeNs> <ctimeNs> <ino>  (a file of the tip's listing, its stat data cached)
//	L <path> <oid>                                   (a file of the listing without cached stat data)
//	S <path> <oid> <size> <mtimeNs> <ctimeNs> <ino>  (stat data of a store file the listing lacks or has with another blob)
//
// A cache of another version reads as empty (a rehash).
const cacheMagic = "matrixx-sync-cache 2"

// readCache returns the cache file's text ("" when there is none).
func (r *repo) readCache(o *Options) string {
	b, err := os.ReadFile(r.cachePath(o))
	if err != nil {
		return ""
	}
	return string(b)
}

func (r *repo) loadCache(o *Options) *statCache { return decodeCache(r.readCache(o)) }

// decodeCache parses the cache's text; anything unreadable is an empty
// cache.
func decodeCache(s string) *statCache {
	c, ok := parseCache(s)
	if !ok {
		return &statCache{}
	}
	return c
}

// parseCache reads the cache's text (every sync that is not idle does): it
// splits the one string in place (the paths and ids are substrings of it:
// no allocation a line) into maps sized up front.
func parseCache(s string) (*statCache, bool) {
	head, rest, _ := strings.Cut(s, "\n")
	var f [7]string
	if n := fields(head, f[:]); n != 4 || f[0]+" "+f[1] != cacheMagic {
		return nil, false
	}
	c := &statCache{Tip: strings.Trim(f[2], "-"), Tree: strings.Trim(f[3], "-")}
	nl := strings.Count(rest, "\n") + 1
	c.List, c.Stats = make(files, nl), make(map[string]statEntry, nl)
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		switch n := fields(line, f[:]); {
		case n == 3 && f[0] == "L":
			c.List[f[1]] = f[2]
		case n == 7 && (f[0] == "F" || f[0] == "S"):
			if f[0] == "F" {
				c.List[f[1]] = f[2]
			}
			var v [4]int64
			ok := true
			for k := range v {
				x, err := strconv.ParseInt(f[3+k], 10, 64)
				ok = ok && err == nil
				v[k] = x
			}
			if ok {
				c.Stats[f[1]] = statEntry{OID: f[2], Size: v[0], Mtime: v[1], Ctime: v[2], Ino: uint64(v[3])}
			}
		case n == 0:
		default:
			return nil, false
		}
	}
	return c, true
}

// fields splits line at runs of spaces into out (as strings.Fields for the
// cache's ASCII lines, without allocating) and returns how many fields it
// found; more than len(out) is reported as len(out)+1.
func fields(line string, out []string) int {
	n := 0
	for {
		line = strings.TrimLeft(line, " \t\r")
		if line == "" {
			return n
		}
		if n == len(out) {
			return n + 1
		}
		end := strings.IndexAny(line, " \t\r")
		if end < 0 {
			end = len(line)
		}
		out[n], line = line[:end], line[end:]
		n++
	}
}

func (r *repo) saveCache(o *Options, old, c *statCache) {
	if old != nil && old.Tip == c.Tip && old.Tree == c.Tree && maps.Equal(old.List, c.List) && maps.Equal(old.Stats, c.Stats) {
		return // nothing new: no write
	}
	p := r.cachePath(o)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	_ = durable.WriteFile(p, encodeCache(c), durable.Options{NoSync: true})
}

// encodeCache writes the cache's text, sorted by path (idleProbe walks it
// beside the sorted directory listings).
func encodeCache(c *statCache) []byte {
	paths := make([]string, 0, len(c.List)+len(c.Stats))
	for p := range c.List {
		paths = append(paths, p)
	}
	for p := range c.Stats {
		if _, ok := c.List[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	b := make([]byte, 0, 160*len(paths)+128)
	b = fmt.Appendf(b, "%s %s %s\n", cacheMagic, orDash(c.Tip), orDash(c.Tree))
	for _, p := range paths {
		oid, listed := c.List[p]
		e, stat := c.Stats[p]
		switch {
		case listed && stat && e.OID == oid:
			b = fmt.Appendf(b, "F %s %s %d %d %d %d\n", p, oid, e.Size, e.Mtime, e.Ctime, e.Ino)
		default:
			if listed {
				b = fmt.Appendf(b, "L %s %s\n", p, oid)
			}
			if stat {
				b = fmt.Appendf(b, "S %s %s %d %d %d %d\n", p, e.OID, e.Size, e.Mtime, e.Ctime, e.Ino)
			}
		}
	}
	return b
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
	cur := make(files, len(c.Stats))
	stats := make(map[string]statEntry, len(c.Stats))
	read := map[string][]byte{}
	for _, d := range []struct {
		dir, prefix string
		max         int64
	}{{o.TasksDir, "tasks/", store.MaxRecordBytes}, {o.PlansDir, "plans/", plan.MaxReadBytes},
		{o.areaDir("history/"), "history/", history.MaxFileBytes}} {
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
			var st unix.Stat_t
			if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			e := statEntry{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}
			if old, ok := c.Stats[p]; ok && st.Mode&unix.S_IFMT == unix.S_IFREG && old.Size == e.Size && old.Mtime == e.Mtime && old.Ctime == e.Ctime && old.Ino == e.Ino {
				cur[p], stats[p] = old.OID, old
				continue
			}
			path := filepath.Join(d.dir, name)
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
		dir := o.areaDir(p)
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

// preSnapshot is what the sync learns of the store without the lock while
// the fetch runs: first whether it has nothing to do (idleProbe), else a
// snapshot. Under the lock it stands for the store only when neither
// directory changed since: their mtimes right before this sync created its
// .lock files (with the kernel lock held: every writer of the toolkit
// renames into the directory and creates and removes its .lock there) are
// those of the snapshot, and were already older than preSettle when it was
// taken (timestamps come from a coarse clock, so a younger mtime could
// hide a change made in the same tick). A foreign writer that rewrites a
// file in place is seen by the next sync's stat check.
type preSnapshot struct {
	text  string     // the cache file
	cache *statCache // text decoded, when needed (decoded)
	// idle is idleProbe's answer: the commit whose files the store holds,
	// every one of them vouched for by the cache ("" when not).
	idle    string
	cur     files
	stats   map[string]statEntry
	read    map[string][]byte
	mtimes  [2]int64 // when the snapshot was taken
	seen    [2]int64 // right before the step's .lock files were created
	settled bool
}

// idleTip is the commit the store holds exactly, every file vouched for
// by the stat cache ("" when not known).
func (p *preSnapshot) idleTip() string {
	if p == nil {
		return ""
	}
	return p.idle
}

func (p *preSnapshot) decoded() *statCache {
	if p.cache == nil {
		p.cache = decodeCache(p.text)
	}
	return p.cache
}

// locked returns the snapshot for use under the lock, ok false when the
// store may have changed since it was taken (then snapshot again).
func (p *preSnapshot) locked() (cur files, stats map[string]statEntry, read map[string][]byte, ok bool) {
	if !p.settled || p.seen != p.mtimes {
		return nil, nil, nil, false
	}
	if p.idle != "" {
		// The probe saw every file with its cached stat data: what a
		// snapshot would have found (copies: the step edits them).
		c := p.decoded()
		return maps.Clone(c.List), maps.Clone(c.Stats), map[string][]byte{}, true
	}
	return p.cur, p.stats, p.read, p.cur != nil
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
	p := &preSnapshot{text: r.readCache(o), mtimes: dirMtimes(o)}
	p.settled = p.mtimes[0] < start.Add(-preSettle).UnixNano() && p.mtimes[1] < start.Add(-preSettle).UnixNano()
	if p.idle = r.idleProbe(o, p.text); p.idle == "" && p.settled {
		var err error
		if p.cur, p.stats, p.read, err = r.snapshot(o, p.decoded()); err != nil {
			p.cur = nil
		}
	}
	r.pre = p
}

// idleProbe reports whether the store holds exactly the files of the
// commit the cache was written for, each with the stat data the cache
// recorded for it (so its content is the cached blob: docs/sync.md,
// "Speed"); it returns that commit, or "" at the first difference. It
// reads no file and builds no map: it walks the cache's lines (sorted by
// path, plans/ before tasks/) beside the sorted directory listings, one
// fstatat a file. Only F lines (listed and stat-cached, same blob) can
// pass: a file the cache does not vouch for, one it lacks, one missing,
// or any other line says "not idle", and the sync takes its usual path.
func (r *repo) idleProbe(o *Options, text string) string {
	head, rest, _ := strings.Cut(text, "\n")
	var f [7]string
	if fields(head, f[:]) != 4 || f[0]+" "+f[1] != cacheMagic {
		return ""
	}
	tip := strings.Trim(f[2], "-")
	if tip == "" {
		return ""
	}
	type dir struct {
		fd     int
		prefix string
		names  []string // its valid entries, sorted, not yet matched
	}
	var ds []dir
	for _, d := range [...]struct{ path, prefix, kind string }{{o.areaDir("history/"), "history/", "history"}, {o.PlansDir, "plans/", "plans"}, {o.TasksDir, "tasks/", "tasks"}} {
		fh, err := os.Open(d.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return ""
		}
		defer fh.Close()
		names, err := fh.Readdirnames(-1)
		if err != nil {
			return ""
		}
		valid := names[:0]
		for _, n := range names {
			if validEntry(d.kind, n) {
				valid = append(valid, n)
			}
		}
		slices.Sort(valid)
		ds = append(ds, dir{int(fh.Fd()), d.prefix, valid})
	}
	k := 0
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		n := fields(line, f[:])
		if n == 0 {
			continue
		}
		if n != 7 || f[0] != "F" {
			return ""
		}
		for k < len(ds) && len(ds[k].names) == 0 {
			k++
		}
		if k == len(ds) {
			return "" // a file of the listing is gone
		}
		d := &ds[k]
		name, ok := strings.CutPrefix(f[1], d.prefix)
		if !ok || name != d.names[0] {
			return "" // a file gone, or one the listing lacks
		}
		d.names = d.names[1:]
		var st unix.Stat_t
		if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG ||
			!isNum(f[3], st.Size) || !isNum(f[4], st.Mtim.Nano()) || !isNum(f[5], st.Ctim.Nano()) || !isNum(f[6], int64(st.Ino)) {
			return ""
		}
	}
	for _, d := range ds {
		if len(d.names) > 0 {
			return "" // a file the listing lacks
		}
	}
	return tip
}

// isNum reports whether s is the decimal form of v.
func isNum(s string, v int64) bool {
	x, err := strconv.ParseInt(s, 10, 64)
	return err == nil && x == v
}
