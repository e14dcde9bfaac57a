package integrity

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// What the toolkit keeps outside projects stays bounded (docs/integrity.md
// "Retention"):
//
//   - a ledger keeps the copies (blobs) its entries name, the last good
//     content of each file, plus those of writes since its last compaction.
//     Checks compact a ledger once its journal passes compactAfter lines;
//     writers compact it once the journal passes writerCompactBytes, so a
//     store written by plumbing alone, with no hook checking it, does not
//     keep a copy of every version either;
//   - a ledger directory, and a list index beside the ledgers, that no
//     command has written for RetainFor belongs to a project gone or left
//     alone: Sweep removes it. The next use starts afresh (a ledger's first
//     check adopts the files as they are then; a listing reads every file
//     once).
const (
	// RetainFor is how long state outside a project is kept unwritten.
	RetainFor = 30 * 24 * time.Hour
	// sweepEvery is how often Sweep looks at all: its mark file's mtime.
	sweepEvery = 24 * time.Hour
	sweepMark  = ".swept"
	// writerCompactBytes is the journal size past which a writer compacts
	// the ledger (about 1,500 lines).
	writerCompactBytes = 256 << 10
)

// isLedgerName says name is one key gives: "<area>-<16 hex digits>".
func isLedgerName(name string) bool {
	area, sum, ok := strings.Cut(name, "-")
	if !ok || area == "" || len(sum) != 16 || strings.Trim(area, "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	return strings.Trim(sum, "0123456789abcdef") == ""
}

// Sweep applies the retention rule to home (Home) and to the list indexes
// in its sibling "index" directory, at most once every sweepEvery (a mark
// file in home records the last sweep): it removes ledger directories
// whose directory, base and journal were all last written RetainFor before
// now, and list index files not written for as long. It returns what it
// removed; errors are ignored (a sweep is housekeeping, retried the next
// day).
func Sweep(home string, now time.Time) []string {
	mark := filepath.Join(home, sweepMark)
	if fi, err := os.Lstat(mark); err == nil && now.Sub(fi.ModTime()) < sweepEvery {
		return nil
	}
	if _, err := os.Lstat(home); err != nil {
		return nil
	}
	if f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
		f.Close()
		_ = os.Chtimes(mark, now, now)
	}
	old := func(paths ...string) bool {
		for _, p := range paths {
			fi, err := os.Lstat(p)
			if err == nil && now.Sub(fi.ModTime()) < RetainFor {
				return false
			}
		}
		return true
	}
	var removed []string
	if ents, err := os.ReadDir(home); err == nil {
		for _, de := range ents {
			dir := filepath.Join(home, de.Name())
			if !de.IsDir() || !isLedgerName(de.Name()) {
				continue
			}
			if old(dir, filepath.Join(dir, baseFile), filepath.Join(dir, journalFile)) && os.RemoveAll(dir) == nil {
				removed = append(removed, dir)
			}
		}
	}
	index := filepath.Join(filepath.Dir(home), "index")
	if ents, err := os.ReadDir(index); err == nil {
		for _, de := range ents {
			p := filepath.Join(index, de.Name())
			if de.Type().IsRegular() && old(p) && os.Remove(p) == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// compactIfLong compacts the ledger in dir when its journal is past
// writerCompactBytes; the caller holds the area's lock (a writer).
func compactIfLong(dir string) {
	fi, err := os.Lstat(filepath.Join(dir, journalFile))
	if err != nil || fi.Size() < writerCompactBytes {
		return
	}
	if l, err := Load(dir); err == nil {
		_ = l.compact()
	}
}
