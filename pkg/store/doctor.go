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
	KindCycle          = "cycle"           // tasks that wait for each other
	// Warnings.
	KindOneSidedEdge   = "one_sided_edge"  // A blockedBy B without B blocks A, or the reverse
	KindDanglingEdge   = "dangling_edge"   // any other edge (blocks, an inactive task's blockedBy or parentID) to a missing id
	KindDeletedBlocker = "deleted_blocker" // an active task waits for a deleted task
	KindClaimExpired   = "claim_expired"   // an in_progress task whose lease ended
	KindClaimMalformed = "claim_malformed" // metadata.claim that is not a claim
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
}

// Doctor checks the store. With repair it holds the lock, applies the
// safe repairs through the store's own writes (each file keeps its mtime):
// adds missing mirror edges and drops edges (blockedBy, blocks, parentID)
// to tasks that no longer exist. Without repair it reads without the lock
// and writes nothing. Errors: task_lock_unavailable, internal_error.
func (s *Store) Doctor(repair bool) (*DoctorReport, error) {
	if !repair {
		snap, err := s.Scan(ScanOptions{})
		if err != nil {
			return nil, err
		}
		return diagnose(snap, s.now()), nil
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
		return nil
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

// diagnose finds every problem of a snapshot.
func diagnose(snap *Snapshot, now time.Time) *DoctorReport {
	rep := &DoctorReport{Tasks: len(snap.Entries), Findings: []Finding{}}
	add := func(f Finding) { rep.Findings = append(rep.Findings, f) }
	for _, p := range snap.Problems {
		add(Finding{Kind: KindCorruptFile, Severity: SeverityError, IDs: []string{strings.TrimSuffix(p.File, ".json")},
			Message: fmt.Sprintf("%s is not a valid task record: %s", p.File, p.Error),
			Repair:  "by hand: restore the file from a backup or version control, or remove it (no command reads or changes it meanwhile)"})
	}
	tasks := map[string]*task.Task{}
	for _, e := range snap.Entries {
		tasks[e.Task.ID] = e.Task
	}
	rep.Findings = append(rep.Findings, parentCycles(tasks)...) // doctor_parents.go
	// An unreadable file is not a missing task: edges to it are left alone.
	unreadable := map[string]bool{}
	for _, p := range snap.Problems {
		unreadable[strings.TrimSuffix(p.File, ".json")] = true
	}
	gone := func(id string) bool { return tasks[id] == nil && !unreadable[id] }
	for _, e := range snap.Entries {
		t := e.Task
		active := t.Status.Active()
		for _, b := range t.BlockedBy {
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
					fix: func(get func(string) *task.Task) { x := get(b); x.Blocks = appendMissing(x.Blocks, []string{id}) }})
			case active && other.Status == task.Deleted:
				add(Finding{Kind: KindDeletedBlocker, Severity: SeverityWarning, IDs: []string{id, b},
					Message: fmt.Sprintf("%s waits for %s, which is deleted: it can never start as things stand", id, b),
					Repair:  fmt.Sprintf("by hand: complete %s if its work is done (task-update %s --status completed), or re-plan %s without it", b, b, id)})
			}
		}
		for _, x := range t.Blocks {
			id, x := t.ID, x
			switch other := tasks[x]; {
			case gone(x):
				add(Finding{Kind: KindDanglingEdge, Severity: SeverityWarning, IDs: []string{id, x},
					Message: fmt.Sprintf("%s lists %s in blocks, but no task %s exists", id, x, x),
					Repair:  fmt.Sprintf("--repair drops %s from %s's blocks", x, id), Repairable: true,
					fix: func(get func(string) *task.Task) { y := get(id); y.Blocks = drop(y.Blocks, x) }})
			case other == nil:
			case !slices.Contains(other.BlockedBy, id):
				add(Finding{Kind: KindOneSidedEdge, Severity: SeverityWarning, IDs: []string{id, x},
					Message: fmt.Sprintf("%s lists %s in blocks, but %s does not list %s in blockedBy (task-list --ready does not see this edge)", id, x, x, id),
					Repair:  fmt.Sprintf("--repair adds %s to %s's blockedBy", id, x), Repairable: true,
					fix: func(get func(string) *task.Task) { y := get(x); y.BlockedBy = appendMissing(y.BlockedBy, []string{id}) }})
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
			if claim.Malformed(t) {
				add(Finding{Kind: KindClaimMalformed, Severity: SeverityWarning, IDs: []string{t.ID},
					Message: fmt.Sprintf("%s has a metadata.claim that is not a claim object; it is treated as no claim", t.ID),
					Repair:  fmt.Sprintf("by hand: task-update %s --status pending ends it (or task-claim %s --owner NAME re-claims it)", t.ID, t.ID)})
			} else if c := claim.Of(t); c != nil && c.Expired(now) {
				exp, _ := c.Expiry()
				add(Finding{Kind: KindClaimExpired, Severity: SeverityWarning, IDs: []string{t.ID},
					Message: fmt.Sprintf("%s is in progress under a claim by %s that expired at %s", t.ID, claim.Holder(t, c), claim.Stamp(exp)),
					Repair:  fmt.Sprintf("by hand: task-claim %s --owner NAME takes it over, or task-update %s --status pending releases it", t.ID, t.ID)})
			}
		}
	}
	// Cycles over both edge lists of every task.
	var nodes []string
	index := map[string]int{}
	for _, e := range snap.Entries {
		index[e.Task.ID] = len(nodes)
		nodes = append(nodes, e.Task.ID)
	}
	adj := make([][]int, len(nodes))
	link := func(from, to string) {
		i, ok1 := index[from]
		j, ok2 := index[to]
		if ok1 && ok2 && !slices.Contains(adj[i], j) {
			adj[i] = append(adj[i], j)
		}
	}
	for _, e := range snap.Entries {
		for _, b := range e.Task.BlockedBy {
			link(b, e.Task.ID)
		}
		for _, x := range e.Task.Blocks {
			link(e.Task.ID, x)
		}
	}
	for _, comp := range components(len(nodes), adj, func(int) bool { return true }) {
		if len(comp) == 1 && !slices.Contains(adj[comp[0]], comp[0]) {
			continue
		}
		ids := make([]string, len(comp))
		for k, i := range comp {
			ids[k] = nodes[i]
		}
		slices.Sort(ids)
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
