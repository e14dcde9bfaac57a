package store

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Finding kinds of task-doctor (docs/claims.md). Errors make it exit 1;
// warnings only with --strict.
const (
	// Errors.
	KindCorruptFile    = "corrupt_file"    // a T-*.json that is not a valid record
	KindMissingBlocker = "missing_blocker" // an active task waits for an id with no task
	KindMissingParent  = "missing_parent"  // an active task's parentID names no task
	KindCycle          = "cycle"           // active tasks that wait for each other over blockedBy
	// Warnings.
	KindOneSidedEdge   = "one_sided_edge"  // A blockedBy B without B blocks A, or the reverse
	KindDanglingEdge   = "dangling_edge"   // any other edge (blocks, an inactive task's blockedBy or parentID) to a missing id
	KindDeletedBlocker = "deleted_blocker" // an active task waits for a deleted task
	KindClaimExpired   = "claim_expired"   // an in_progress task whose lease ended
	KindClaimMalformed = "claim_malformed" // metadata.claim that is not a claim
	// KindSelfEdge is a task that lists itself in blockedBy or blocks: an
	// error when an active task waits for itself, else a warning.
	KindSelfEdge = "self_edge"
	// KindContradictingEdge is a one-sided blocks edge whose mirror would
	// close a cycle: A blocks B while A already waits for B (warning).
	KindContradictingEdge = "contradicting_edge"
	// KindUnclaimedWork is an in_progress task without a claim, or with a
	// claim without lease: nothing makes it come back if its agent dies.
	KindUnclaimedWork = "unclaimed_work"
)

// Severity of a finding.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Finding is one problem task-doctor found. IDs name the tasks involved
// (for an edge: the task holding it, then the other end; for a corrupt
// file: the id of its name). Repair says what fixes it; Repairable says
// --repair applies that itself, Repaired that it did.
type Finding struct {
	Kind       string   `json:"kind"`
	Severity   string   `json:"severity"`
	IDs        []string `json:"ids"`
	Message    string   `json:"message"`
	Repair     string   `json:"repair"`
	Repairable bool     `json:"repairable"`
	Repaired   bool     `json:"repaired,omitzero"`

	fix func(get func(id string) *task.Task) // the safe repair, nil when none
}

// DoctorReport is task-doctor's answer: the tasks checked, every finding
// (errors first, then warnings; by kind and ids), and the counts of
// errors and warnings left unrepaired and of repairs made.
type DoctorReport struct {
	Tasks    int       `json:"tasks"`
	Findings []Finding `json:"findings"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Repaired int       `json:"repaired"`
	// Leases are the live path leases of the records (docs/leases.md).
	Leases []claim.IndexEntry `json:"leases,omitempty"`
}

// Add appends a finding made outside the store (the worktree check) and
// recounts.
func (r *DoctorReport) Add(f Finding) {
	if f.IDs == nil {
		f.IDs = []string{}
	}
	r.Findings = append(r.Findings, f)
	r.count()
}

// Doctor checks the store. With repair it holds the lock, applies the
// safe repairs through the store's own writes (each file keeps its mtime):
// adds missing mirror edges and drops edges (blockedBy, blocks, parentID)
// to tasks that no longer exist. Without repair it reads without the lock
// and writes nothing in the project; it reads only the fields it checks
// (task.DecodeListRecord with blocks and metadata.claim, served by the list
// index like task-list), which accepts and refuses exactly the records a
// full decode does, with the same errors. With repair it decodes every
// record whole, since it may write them. Errors: task_lock_unavailable,
// internal_error.
func (s *Store) Doctor(repair bool) (*DoctorReport, error) {
	if !repair {
		snap, err := s.Scan(ScanOptions{ListFields: true, KeepMeta: claim.Key, Blocks: true})
		if err != nil {
			return nil, err
		}
		rep := diagnose(snap, s.now())
		if err := s.doctorLeases(rep, snap, false); err != nil {
			return nil, err
		}
		rep.count()
		return rep, nil
	}
	var rep *DoctorReport
	err := s.transact(func(tx *txn) error {
		snap, err := s.Scan(ScanOptions{Mtime: true})
		if err != nil {
			return err
		}
		rep = diagnose(snap, s.now())
		byID := map[string]*Entry{}
		for i := range snap.Entries {
			byID[snap.Entries[i].Task.ID] = &snap.Entries[i]
		}
		changed := map[string]bool{}
		get := func(id string) *task.Task {
			e := byID[id]
			if e == nil {
				return nil
			}
			changed[id] = true
			return e.Task
		}
		for i := range rep.Findings {
			f := &rep.Findings[i]
			if f.fix == nil {
				continue
			}
			f.fix(get)
			f.Repaired = true
			rep.Repaired++
		}
		ids := make([]string, 0, len(changed))
		for id := range changed {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			e := byID[id]
			if err := tx.writeKeep(e.Task, e.ModTime); err != nil {
				return err
			}
		}
		return s.doctorLeases(rep, snap, true)
	})
	if err != nil {
		return nil, err
	}
	rep.count()
	return rep, nil
}

func (r *DoctorReport) count() {
	r.Errors, r.Warnings = 0, 0
	for _, f := range r.Findings {
		if f.Repaired {
			continue
		}
		if f.Severity == SeverityError {
			r.Errors++
		} else {
			r.Warnings++
		}
	}
}

func drop(list []string, id string) []string {
	return slices.DeleteFunc(list, func(x string) bool { return x == id })
}

type edge struct{ from, to string }

// distinct returns the ids of list once each, in order, without self.
func distinct(list []string, self string) []string {
	out := make([]string, 0, len(list))
	for _, id := range list {
		if id != self && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// waits reports whether from waits for to, directly or through others,
// over the blockedBy lists in g (iterative: no depth limit).
func waits(g map[string][]string, from, to string) bool {
	seen := map[string]bool{from: true}
	stack := []string{from}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, b := range g[v] {
			if b == to {
				return true
			}
			if !seen[b] {
				seen[b] = true
				stack = append(stack, b)
			}
		}
	}
	return false
}

// diagnose finds every problem of a snapshot.
func diagnose(snap *Snapshot, now time.Time) *DoctorReport {
	rep := &DoctorReport{Tasks: len(snap.Entries), Findings: []Finding{}}
	add := func(f Finding) { rep.Findings = append(rep.Findings, f) }
	for _, p := range snap.Problems {
		add(Finding{Kind: KindCorruptFile, Severity: SeverityError, IDs: []string{strings.TrimSuffix(p.File, ".json")},
			Message: fmt.Sprintf("%s is not a valid task record: %s", p.File, p.Error),
			Repair:  "by hand: restore the file from a backup or version control, or remove it (no command reads or changes it meanwhile)"})
	}
	tasks := make(map[string]*task.Task, len(snap.Entries))
	for _, e := range snap.Entries {
		tasks[e.Task.ID] = e.Task
	}
	rep.Findings = append(rep.Findings, parentCycles(snap.Entries, tasks)...) // doctor_parents.go
	// An unreadable file is not a missing task: edges to it are left alone.
	unreadable := map[string]bool{}
	for _, p := range snap.Problems {
		unreadable[strings.TrimSuffix(p.File, ".json")] = true
	}
	gone := func(id string) bool { return tasks[id] == nil && !unreadable[id] }
	var mirrors []edge // one-sided blocks edges, decided after the loop
	for _, e := range snap.Entries {
		t := e.Task
		active := t.Status.Active()
		if slices.Contains(t.BlockedBy, t.ID) || slices.Contains(t.Blocks, t.ID) {
			id := t.ID
			sev, what := SeverityWarning, "lists itself in blocks"
			if slices.Contains(t.BlockedBy, id) {
				what = "lists itself in blockedBy"
				if active {
					sev, what = SeverityError, "waits for itself (blockedBy): it can never start"
				}
			}
			add(Finding{Kind: KindSelfEdge, Severity: sev, IDs: []string{id, id},
				Message: fmt.Sprintf("%s %s", id, what),
				Repair:  fmt.Sprintf("--repair drops %s from its own blockedBy and blocks", id), Repairable: true,
				fix: func(get func(string) *task.Task) {
					x := get(id)
					x.BlockedBy, x.Blocks = drop(x.BlockedBy, id), drop(x.Blocks, id)
				}})
		}
		for _, b := range distinct(t.BlockedBy, t.ID) {
			id, b := t.ID, b
			switch other := tasks[b]; {
			case gone(b):
				kind, sev, what := KindDanglingEdge, SeverityWarning, "lists"
				if active {
					kind, sev, what = KindMissingBlocker, SeverityError, "waits for"
				}
				add(Finding{Kind: kind, Severity: sev, IDs: []string{id, b},
					Message: fmt.Sprintf("%s %s %s in blockedBy, but no task %s exists", id, what, b, b),
					Repair:  fmt.Sprintf("--repair drops %s from %s's blockedBy", b, id), Repairable: true,
					fix: func(get func(string) *task.Task) { x := get(id); x.BlockedBy = drop(x.BlockedBy, b) }})
			case other == nil:
			case !slices.Contains(other.Blocks, id):
				add(Finding{Kind: KindOneSidedEdge, Severity: SeverityWarning, IDs: []string{id, b},
					Message: fmt.Sprintf("%s lists %s in blockedBy, but %s does not list %s in blocks", id, b, b, id),
					Repair:  fmt.Sprintf("--repair adds %s to %s's blocks", id, b), Repairable: true,
					fix: func(get func(string) *task.Task) { x := get(b); x.Blocks = task.AppendIDs(x.Blocks, []string{id}) }})
			case active && other.Status == task.Deleted:
				add(Finding{Kind: KindDeletedBlocker, Severity: SeverityWarning, IDs: []string{id, b},
					Message: fmt.Sprintf("%s waits for %s, which is deleted: it can never start as things stand", id, b),
					Repair:  fmt.Sprintf("by hand: complete %s if its work is done (task-update %s --status completed), or re-plan %s without it", b, b, id)})
			}
		}
		for _, x := range distinct(t.Blocks, t.ID) {
			id, x := t.ID, x
			switch other := tasks[x]; {
			case gone(x):
				add(Finding{Kind: KindDanglingEdge, Severity: SeverityWarning, IDs: []string{id, x},
					Message: fmt.Sprintf("%s lists %s in blocks, but no task %s exists", id, x, x),
					Repair:  fmt.Sprintf("--repair drops %s from %s's blocks", x, id), Repairable: true,
					fix: func(get func(string) *task.Task) { y := get(id); y.Blocks = drop(y.Blocks, x) }})
			case other == nil:
			case !slices.Contains(other.BlockedBy, id):
				mirrors = append(mirrors, edge{id, x})
			}
		}
		if p := t.ParentID; p != "" && gone(p) {
			id := t.ID
			kind, sev := KindDanglingEdge, SeverityWarning
			if active {
				kind, sev = KindMissingParent, SeverityError
			}
			add(Finding{Kind: kind, Severity: sev, IDs: []string{id, p},
				Message: fmt.Sprintf("%s has parentID %s, but no task %s exists", id, p, p),
				Repair:  fmt.Sprintf("--repair drops the parentID of %s (it becomes a top-level task)", id), Repairable: true,
				fix: func(get func(string) *task.Task) { get(id).ParentID = "" }})
		}
		if t.Status == task.InProgress {
			c := claim.Of(t)
			if _, has := t.Metadata[claim.Key]; has && c == nil { // claim.Malformed
				add(Finding{Kind: KindClaimMalformed, Severity: SeverityWarning, IDs: []string{t.ID},
					Message: fmt.Sprintf("%s has a metadata.claim that is not a claim object; it is treated as no claim", t.ID),
					Repair:  fmt.Sprintf("by hand: task-update %s --status pending ends it (or task-claim %s --owner NAME re-claims it)", t.ID, t.ID)})
			} else if c != nil && c.Expired(now) {
				exp, _ := c.Expiry()
				add(Finding{Kind: KindClaimExpired, Severity: SeverityWarning, IDs: []string{t.ID},
					Message: fmt.Sprintf("%s is in progress under a claim by %s that expired at %s", t.ID, claim.Holder(t, c), claim.Stamp(exp)),
					Repair:  fmt.Sprintf("by hand: task-claim %s --owner NAME takes it over, or task-update %s --status pending releases it", t.ID, t.ID)})
			} else if c == nil || (c.Lease() <= 0 && !c.Person) {
				what := "without a claim"
				if c != nil {
					what = "under a claim without lease"
				}
				add(Finding{Kind: KindUnclaimedWork, Severity: SeverityWarning, IDs: []string{t.ID},
					Message: fmt.Sprintf("%s is in progress %s: nobody else can take it, and nothing gives it back if its agent is gone", t.ID, what),
					Repair:  fmt.Sprintf("by hand: its worker runs task-claim %s --owner NAME (a claim with a lease), or task-update %s --status pending gives it back", t.ID, t.ID)})
			}
		}
	}
	// A one-sided blocks edge gets its mirror (x blockedBy id) only when
	// that closes no cycle: when id does not already wait for x, over the
	// blockedBy lists of every task plus the mirrors accepted before it.
	var waitsFor map[string][]string
	if len(mirrors) > 0 {
		waitsFor = make(map[string][]string, len(snap.Entries))
		for _, e := range snap.Entries {
			// Clipped: a mirror appended below copies the list, never
			// writing into the task's own.
			waitsFor[e.Task.ID] = slices.Clip(e.Task.BlockedBy)
		}
	}
	for _, m := range mirrors {
		id, x := m.from, m.to
		if waits(waitsFor, id, x) {
			add(Finding{Kind: KindContradictingEdge, Severity: SeverityWarning, IDs: []string{id, x},
				Message: fmt.Sprintf("%s lists %s in blocks, but %s already waits for %s (blockedBy): its mirror would make them wait for each other; task-list --ready does not see this edge", id, x, id, x),
				Repair:  fmt.Sprintf("by hand: remove %s from the blocks of %s in its file (the blockedBy edges are the plan that --ready and --waves follow)", x, id)})
			continue
		}
		waitsFor[x] = append(waitsFor[x], id)
		add(Finding{Kind: KindOneSidedEdge, Severity: SeverityWarning, IDs: []string{id, x},
			Message: fmt.Sprintf("%s lists %s in blocks, but %s does not list %s in blockedBy (task-list --ready does not see this edge)", id, x, x, id),
			Repair:  fmt.Sprintf("--repair adds %s to %s's blockedBy", id, x), Repairable: true,
			fix: func(get func(string) *task.Task) {
				y := get(x)
				y.BlockedBy = task.AppendIDs(y.BlockedBy, []string{id})
			}})
	}
	// Cycles: exactly the ones task-list --waves reports (active tasks over
	// blockedBy, completed blockers resolved); a task waiting for itself is
	// its self_edge finding.
	for _, ids := range waveCycles(snap, now) {
		if len(ids) == 1 {
			continue
		}
		add(Finding{Kind: KindCycle, Severity: SeverityError, IDs: ids,
			Message: fmt.Sprintf("%d task(s) wait for each other: %s", len(ids), strings.Join(ids, ", ")),
			Repair:  "by hand: complete or delete one of them (a task can never start while it waits for itself)"})
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		if a.Severity != b.Severity {
			return strings.Compare(a.Severity, b.Severity) // error < warning
		}
		if a.Kind != b.Kind {
			return strings.Compare(a.Kind, b.Kind)
		}
		return slices.Compare(a.IDs, b.IDs)
	})
	rep.count()
	return rep
}
