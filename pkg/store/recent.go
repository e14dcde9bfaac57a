package store

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

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

func dirMtime(dir string) int64 {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0
	}
	return fi.ModTime().UnixNano()
}

// loadRecent returns the index when it is valid for a directory whose mtime
// is dirMtimeNs, else nil.
func loadRecent(dir string, dirMtimeNs int64) *recentIndex {
	if dirMtimeNs == 0 {
		return nil
	}
	data, err := safefile.ReadFile(filepath.Join(dir, indexDir, indexFile), MaxRecordBytes, false)
	if err != nil {
		return nil
	}
	var idx recentIndex
	if json.Unmarshal(data, &idx) != nil || idx.Version != indexVer || idx.DirMtimeNs != dirMtimeNs {
		return nil
	}
	return &idx
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
// directory's current mtime. Call it after .lock is unlinked and while the
// kernel lock is still held.
func (idx *recentIndex) save(dir string, now time.Time) error {
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if now.Sub(time.Unix(0, e.MtimeNs)) <= DedupWindow {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	sub := filepath.Join(dir, indexDir)
	if err := safefile.MkdirNoLinks(dir, sub); err != nil {
		return err // a link or a file named .index: the index is not kept
	}
	idx.DirMtimeNs = dirMtime(dir)
	if idx.Entries == nil {
		idx.Entries = []recentEntry{}
	}
	data, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(sub, indexFile), data, durable.Options{NoSync: true})
}
