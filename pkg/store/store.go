// Package store is the file-backed task store of the original's specification: one
// T-<id>.json per task in one directory, atomic durable writes, the
// interoperable .lock, and the five operations of the original's specification (create,
// get, list, update, cleanup).
//
// Reads never take the lock and never write: no directory creation, no
// migration, no repair. Writes happen under the lock; every write
// re-checks lock ownership right before its final rename.
package store

import (
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/config"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// DedupWindow is DEDUP_WINDOW_MS of the original's specification: 10 minutes.
const DedupWindow = 10 * time.Minute

// MaxRecordBytes caps the size of one T-*.json file: 16 MiB. Larger files
// are reported as problems and never decoded.
const MaxRecordBytes = 16 << 20

// Store is one task directory plus the identity it stamps on new records.
type Store struct {
	// Dir is the task directory.
	Dir string
	// Root is the project root, stamped as projectRoot; canonical
	// (project.Root, docs/design/decisions.md).
	Root string
	// Own says Dir is the project's own store, <Root>/.matrixx/tasks
	// (Layout.Own): every record in it belongs to the project whatever its
	// projectRoot says (see Matcher).
	Own bool
	// Session is the threadID stamped on new and rewritten records.
	Session string
	// LegacyDir is the global directory migrated from; "" when
	// the store is not the project default.
	LegacyDir string
	// Lock tunes lock acquisition.
	Lock lock.Options
	// StaleAfter is tasks.stale_after_hours as a duration.
	StaleAfter time.Duration
	// PluginSchema is tasks.plugin_schema: every record is written in the
	// form the published oh-my-opencode plugin's strict schema accepts
	// (task.EncodeAs, docs/compat.md).
	PluginSchema bool
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Log receives human-readable notes (migration, recovered locks); may be nil.
	Log io.Writer
	// LogDecisions adds notes about internal decisions to Log ("debug:
	// …" lines; the binaries set it when MATRIXX_DEBUG is set): how each
	// lock acquisition went, dedup index rebuilds, a list index that could
	// not be written.
	LogDecisions bool
	// ListIndex, when set, is the list index file (ListIndexPath,
	// docs/design/decisions.md) that serves task-list's scans; "" reads every
	// file.
	ListIndex string
	// ListRacyWindow is how much older than a scan's start a file's ctime
	// must be for the list index to keep a row for it: a file written
	// within it is read again by the next scan, so a rewrite in the same
	// timestamp tick never hides behind an unchanged ctime. Zero is the
	// default, 2 s, which every binary uses; a negative window keeps rows
	// for files written up to that long after the scan started.
	ListRacyWindow time.Duration
	// Record, when set, records every write and removal of a record in
	// the integrity ledger under the lock (docs/integrity.md).
	Record *integrity.Recorder
	// History, when set, records every change this store makes to a
	// record, under the lock and right after the write (docs/history.md).
	History *history.Log
	// Ready sizes the ready index's reads and folds; the zero value is
	// the defaults.
	Ready ReadyTuning
}

// Layout is where the resolved store lives.
type Layout struct {
	Dir       string
	LegacyDir string
	ListID    string
	// Own says Dir is <root>/.matrixx/tasks, the project's own store
	// (however it was configured), as opposed to a store that other
	// projects may share (scope global, a storage_path elsewhere).
	Own bool
}

// Resolve applies the original's specification (with our rule that a relative storage_path
// is relative to the project root): the list id is envListID
// ($ULTRAWORK_TASK_LIST_ID) trimmed, else tasks.task_list_id, else the
// root's base name, all sanitized; the directory is storage_path, else the
// global <openCodeDir>/tasks/<listID> when scope is "global" (or no root),
// else <root>/.matrixx/tasks. Own is set when the directory is
// <root>/.matrixx/tasks (docs/design/decisions.md).
func Resolve(root string, t config.Tasks, envListID, openCodeDir string) Layout {
	listID := project.TrimJS(envListID)
	if listID == "" {
		listID = t.TaskListID
	}
	if listID == "" {
		listID = baseName(root)
	}
	listID = Sanitize(listID)
	global := filepath.Join(openCodeDir, "tasks", listID)
	own := ""
	if root != "" {
		own = filepath.Join(root, ".matrixx", "tasks")
	}
	switch {
	case t.StoragePath != "" && filepath.IsAbs(t.StoragePath):
		dir := filepath.Clean(t.StoragePath)
		return Layout{Dir: dir, ListID: listID, Own: dir == own}
	case t.StoragePath != "":
		dir := filepath.Join(root, t.StoragePath)
		return Layout{Dir: dir, ListID: listID, Own: dir == own}
	case t.Scope == "global" || root == "":
		return Layout{Dir: global, ListID: listID}
	default:
		l := Layout{Dir: own, ListID: listID, Own: true}
		if openCodeDir != "" {
			l.LegacyDir = global
		}
		return l
	}
}

// Matcher returns a fresh project.Matcher for this store: which records
// belong to the project, for dedup, plan links and cleanup's plan lookups
// (docs/design/decisions.md). Use one per command or transaction.
func (s *Store) Matcher() *project.Matcher {
	return project.NewMatcher(s.Root, s.Own)
}

// Sanitize is sanitizePathSegment of the original's specification, exactly as the original's
// JavaScript `value.replace(/[^a-zA-Z0-9_-]/g, "-") || "default"`: every
// UTF-16 code unit outside [a-zA-Z0-9_-] becomes "-", so a character outside
// the Basic Multilingual Plane (an emoji: a surrogate pair) becomes "--";
// an empty result becomes "default". A byte that is not valid UTF-8 (which
// no JavaScript string holds) becomes one "-".
func Sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteByte('-') // an invalid byte
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "default"
	}
	return b.String()
}

// baseName is Node's path.basename for an absolute path: "" for "/" (Go's
// filepath.Base says "/"), and for "" ("." in Go).
func baseName(p string) string {
	b := filepath.Base(p)
	if b == "/" || b == "." || b == string(filepath.Separator) {
		return ""
	}
	return b
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) logf(format string, args ...any) {
	if s.Log != nil {
		_, _ = io.WriteString(s.Log, "matrixx: "+sprintf(format, args...)+"\n")
	}
}
