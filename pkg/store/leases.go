package store

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// PathsKey is the metadata key where task-create records the paths a task
// will touch (docs/leases.md): a JSON array of lease globs. task-claim
// without --paths leases them.
const PathsKey = "paths"

// DeclaredPaths returns the lease globs a task declares in metadata.paths
// (nil when it declares none or the value is not an array of strings).
func DeclaredPaths(t *task.Task) []string {
	raw, ok := t.Metadata[PathsKey]
	if !ok || raw.Kind() != '[' {
		return nil
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil
	}
	return out
}

// leaseEntries are the lease index entries of t: one per glob of a live
// claim with paths; none otherwise.
func leaseEntries(t *task.Task, now time.Time) []claim.IndexEntry {
	c := claim.Live(t, now)
	if c == nil || len(c.Paths) == 0 {
		return nil
	}
	subject := t.Subject
	if len(subject) > 120 {
		subject = strings.ToValidUTF8(subject[:120], "") + "…"
	}
	out := make([]claim.IndexEntry, 0, len(c.Paths))
	for _, g := range c.Paths {
		out = append(out, claim.IndexEntry{Glob: g, Task: t.ID, Subject: subject, Owner: c.Owner, Session: c.Session,
			ExpiresAt: c.ExpiresAt, Worktree: c.Worktree, Branch: c.Branch})
	}
	return out
}

// syncLeases brings the lease index in step with t, about to be written
// (before: true) or just written (false), under the lock. An index that
// gains or keeps leases of t is written before the record, one that loses
// them after it, so that a crash in between leaves a lease the guard
// enforces a little too long (until its expiry), never a live claim the
// guard does not know. Entries that expired are dropped on every rewrite.
// Without an index file and without leases of t nothing is read but one
// failed open.
func (tx *txn) syncLeases(t *task.Task, before bool) error {
	now := tx.s.now()
	mine := leaseEntries(t, now)
	if before != (len(mine) > 0) {
		return nil
	}
	p := claim.IndexFile(tx.s.Dir)
	ix, err := claim.ReadIndex(p)
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "reading the lease index")
	}
	if ix.Empty() && len(mine) == 0 {
		return nil
	}
	old := ix.Entries()
	kept := make([]claim.IndexEntry, 0, len(old)+len(mine))
	for _, e := range old {
		if e.Task != t.ID && e.Live(now) && !tx.staleLease[e.Task] {
			kept = append(kept, e)
		}
	}
	kept = append(kept, mine...)
	if sameEntries(old, kept) {
		return nil
	}
	if err := claim.WriteIndex(p, kept); err != nil {
		tx.failed = true
		return errcode.Wrap(errcode.InternalError, err, "writing the lease index")
	}
	return nil
}

func sameEntries(a, b []claim.IndexEntry) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(e claim.IndexEntry) string { return fmt.Sprintf("%q", e) }
	ka := make([]string, len(a))
	kb := make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}

// leaseConflict refuses globs that overlap a live lease of another task
// (lease_conflict, naming it). Each overlapping index entry is confirmed
// against its task's record under the lock: an entry whose claim ended
// (a crash between a record write and the index's) is not a conflict and
// is dropped at the next index write.
func (tx *txn) leaseConflict(id string, globs []string, now time.Time) error {
	if len(globs) == 0 {
		return nil
	}
	ix, err := claim.ReadIndex(claim.IndexFile(tx.s.Dir))
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "reading the lease index")
	}
	for _, e := range ix.Entries() {
		if e.Task == id || !e.Live(now) || tx.staleLease[e.Task] {
			continue
		}
		for _, g := range globs {
			if !claim.Overlap(g, e.Glob) {
				continue
			}
			other, err := tx.get(e.Task)
			if err != nil {
				return err
			}
			c := (*claim.Claim)(nil)
			if other != nil {
				c = claim.Live(other, now)
			}
			if c == nil || !slices.Contains(c.Paths, e.Glob) {
				if tx.staleLease == nil {
					tx.staleLease = map[string]bool{}
				}
				tx.staleLease[e.Task] = true
				break
			}
			until := "with no lease end (the holder completes it or sets it back to pending)"
			if exp, ok := c.Expiry(); ok {
				until = "until " + claim.Stamp(exp) + " (in " + exp.Sub(now).Round(time.Second).String() + ")"
			}
			where := ""
			if c.Worktree != "" {
				where = ", in " + c.Worktree
				if c.Branch != "" {
					where += " on branch " + c.Branch
				}
			}
			return errcode.Field(errcode.LeaseConflict, "paths", "%s overlaps the path lease %s of %s %q, held by %s%s %s: wait for it to end, claim other work, or ask the holder",
				g, e.Glob, e.Task, other.Subject, claim.Holder(other, c), where, until)
		}
	}
	return nil
}

// cleanDeclared cleans declared paths; a glob that is not valid any more
// (written by hand or another tool) is left out.
func cleanDeclared(globs []string) []string {
	var out []string
	for _, g := range globs {
		if c, err := claim.CleanGlob(g); err == nil && !slices.Contains(out, c) && len(out) < claim.MaxPaths {
			out = append(out, c)
		}
	}
	return out
}

// Finding kinds about path leases (task-doctor, docs/leases.md).
const (
	// KindLeaseOverlap: two live claims lease overlapping paths (written
	// by hand, or by a tool that does not check): both holders' writes
	// there pass the guard (warning).
	KindLeaseOverlap = "lease_overlap"
	// KindLeaseIndexStale: the lease index does not list exactly the live
	// leases of the records (a crash between a record's write and the
	// index's, a hand edit, an import): --repair rewrites it (warning).
	KindLeaseIndexStale = "lease_index_stale"
	// KindWorktreeStore: a linked worktree of the repository holds a task
	// store of its own, which no command reads since every worktree
	// shares the main worktree's store (warning; docs/worktrees.md).
	KindWorktreeStore = "worktree_store"
)

// LiveLeases returns the live path leases of a snapshot's records.
func LiveLeases(snap *Snapshot, now time.Time) []claim.IndexEntry {
	var out []claim.IndexEntry
	for _, e := range snap.Entries {
		out = append(out, leaseEntries(e.Task, now)...)
	}
	return out
}

// doctorLeases adds the live leases to the report, a finding for each
// pair of overlapping leases of different tasks, and one when the lease
// index is stale; with fix (under the lock) it rewrites the index.
func (s *Store) doctorLeases(rep *DoctorReport, snap *Snapshot, fix bool) error {
	now := s.now()
	live := LiveLeases(snap, now)
	rep.Leases = live
	for i := range live {
		for j := i + 1; j < len(live); j++ {
			a, b := live[i], live[j]
			if a.Task != b.Task && claim.Overlap(a.Glob, b.Glob) {
				rep.Findings = append(rep.Findings, Finding{Kind: KindLeaseOverlap, Severity: SeverityWarning, IDs: []string{a.Task, b.Task},
					Message: fmt.Sprintf("%s leases %s (held by %s) and %s leases %s (held by %s): the leases overlap", a.Task, a.Glob, a.Owner, b.Task, b.Glob, b.Owner),
					Repair:  "one holder sets its task back to pending or completes it, then claims again with paths that do not overlap"})
			}
		}
	}
	ix, err := claim.ReadIndex(claim.IndexFile(s.Dir))
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "reading the lease index")
	}
	var indexed []claim.IndexEntry
	for _, e := range ix.Entries() {
		if e.Live(now) {
			indexed = append(indexed, e)
		}
	}
	if sameEntries(indexed, live) {
		return nil
	}
	f := Finding{Kind: KindLeaseIndexStale, Severity: SeverityWarning, IDs: []string{},
		Message:    fmt.Sprintf("the lease index lists %d live lease(s), the records %d: the guard enforces the index", len(indexed), len(live)),
		Repair:     "task-doctor --repair rewrites it from the records",
		Repairable: true}
	if fix {
		if err := claim.WriteIndex(claim.IndexFile(s.Dir), live); err != nil {
			return errcode.Wrap(errcode.InternalError, err, "writing the lease index")
		}
		f.Repaired = true
		rep.Repaired++
	}
	rep.Findings = append(rep.Findings, f)
	return nil
}
