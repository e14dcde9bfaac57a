package store

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
)

// migratedMarker records that legacy migration ran for this store, so
// a store emptied by task-cleanup is never refilled from the global list.
const migratedMarker = ".legacy-migrated"

// migrateLegacy is migrateLegacyTasksIfNeeded of the original's specification, run by
// task-create under the lock at most once per project: when the project
// store holds no T-*.json and the legacy global directory does, every valid
// legacy record is copied byte for byte (never overwriting), keeping its
// mtime. It never fails the create: problems are logged.
func (tx *txn) migrateLegacy() {
	s := tx.s
	if s.LegacyDir == "" || filepath.Clean(s.LegacyDir) == filepath.Clean(s.Dir) {
		return
	}
	marker := filepath.Join(s.Dir, migratedMarker)
	if exists(marker) {
		return
	}
	count := 0
	names, err := s.names()
	if err == nil && len(names) == 0 {
		count = tx.copyLegacy()
	}
	note := fmt.Sprintf("{\"migratedAt\":%q,\"from\":%q,\"count\":%d}\n", s.now().UTC().Format(time.RFC3339), s.LegacyDir, count)
	if err := durable.WriteFile(marker, []byte(note), durable.Options{}); err != nil {
		s.logf("legacy migration: writing %s: %v", marker, err)
	}
}

func (tx *txn) copyLegacy() int {
	s := tx.s
	legacy := &Store{Dir: s.LegacyDir}
	snap, err := legacy.Scan(ScanOptions{Mtime: true})
	if err != nil {
		s.logf("legacy migration: %v", err)
		return 0
	}
	for _, p := range snap.Problems {
		s.logf("legacy migration: skipped %s: %s", filepath.Join(s.LegacyDir, p.File), p.Error)
	}
	n := 0
	for _, e := range snap.Entries {
		name := e.Task.ID + ".json"
		dst := filepath.Join(s.Dir, name)
		if exists(dst) {
			continue
		}
		data, _, err := readRecordFile(filepath.Join(s.LegacyDir, name))
		if err == nil {
			err = s.Record.WriteFile(dst, data, durable.Options{BeforeRename: tx.l.Check})
		}
		if err == nil {
			err = os.Chtimes(dst, e.ModTime, e.ModTime)
			s.Record.Done(dst, data) // the kept mtime is the good one
		}
		if err != nil {
			s.logf("legacy migration: %s: %v", name, err)
			continue
		}
		n++
	}
	if n > 0 {
		s.logf("migrated %d tasks from %s", n, s.LegacyDir)
		tx.recent = nil // the copies are not in the dedup index: rebuild it
		tx.dropReady()  // nor in the ready index
	}
	return n
}
