package board

import (
	"hash/fnv"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Card is one task as the page shows it (the board's own JSON, not a
// plumbing document).
type Card struct {
	ID      string      `json:"id"`
	Handle  string      `json:"h"`
	Subject string      `json:"subject"`
	Status  task.Status `json:"status"`
	// State is the column: ready, blocked, in_progress, completed, deleted.
	State    feed.State    `json:"state"`
	Owner    string        `json:"owner,omitempty"`
	Priority task.Priority `json:"priority,omitempty"`
	Labels   []string      `json:"labels,omitempty"`
	// BlockedBy are every blocker; Waits the ones not completed.
	BlockedBy []string `json:"blockedBy,omitempty"`
	Waits     []string `json:"waits,omitempty"`
	Blocks    []string `json:"blocks,omitempty"`
	ParentID  string   `json:"parentID,omitempty"`
	// Kids is [completed, total] of the subtasks that are not deleted.
	Kids []int  `json:"kids,omitempty"`
	Plan string `json:"plan,omitempty"`
	// LeaseEnds is the claim's expiry (RFC 3339) of an in_progress task.
	LeaseEnds string `json:"leaseEnds,omitempty"`
	// Worktree and Branch are the checkout an in_progress task's claim
	// was made in (the worktree's top directory; "" outside git).
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// Leases are an in_progress task's claim's path leases (globs relative
	// to the checkout's top); Paths the paths another task declares it
	// will touch (metadata.paths), leased when it is claimed.
	Leases []string `json:"leases,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	// Overlaps are the other in_progress tasks whose live leases overlap
	// this one's (task-claim refuses such a lease; one can still come
	// from another machine through task-sync, or an expired claim).
	Overlaps []string `json:"overlaps,omitempty"`
	// Version names the record's content: actions send it back and are
	// refused (409) when the task changed since.
	Version string `json:"v"`
}

// PlanInfo is one plan's progress.
type PlanInfo struct {
	Name  string `json:"name"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
	// Tasks are the ids of the tasks filed for the plan.
	Tasks int `json:"tasks"`
}

// Version is the content version of a record: 16 hex digits of FNV-1a
// over its canonical encoding.
func Version(t *task.Task) string {
	b, err := task.Encode(t)
	if err != nil {
		return ""
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

func planOf(t *task.Task) string {
	v, ok := t.Metadata["planName"]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// model is the board's state: every card, kept in step with the feed.
// It is guarded by mu; seq counts the steps that changed something.
type model struct {
	mu       sync.Mutex
	tasks    map[string]*task.Task
	classes  map[string]feed.Class
	children map[string][]string
	cards    map[string]*Card
	handles  map[string]string
	plans    []PlanInfo
	seq      uint64
	// overlaps are the in_progress tasks whose live leases overlap, by id.
	overlaps map[string][]string
}

// rebuild makes every card from the feed's state (the first step, or a
// step after which the handles changed).
func (m *model) rebuild(tasks map[string]*task.Task, classes map[string]feed.Class) {
	m.tasks, m.classes = tasks, classes
	m.index()
	m.overlaps = leaseOverlaps(tasks, time.Now())
	m.cards = make(map[string]*Card, len(tasks))
	for id := range tasks {
		m.cards[id] = m.card(id)
	}
}

// index recomputes the children lists and the short handles.
func (m *model) index() {
	m.children = map[string][]string{}
	ids := make([]string, 0, len(m.tasks))
	for id, t := range m.tasks {
		ids = append(ids, id)
		if t.ParentID != "" {
			m.children[t.ParentID] = append(m.children[t.ParentID], id)
		}
	}
	hs := task.ShortHandles(ids)
	m.handles = make(map[string]string, len(ids))
	for i, id := range ids {
		m.handles[id] = hs[i]
	}
}

// apply updates the cards after a step: the changed tasks, the tasks
// whose state changed, and the parents of both. It returns the cards that
// differ and the ids that went away.
func (m *model) apply(tasks map[string]*task.Task, classes map[string]feed.Class, changes []feed.Change) (upsert []*Card, removed []string) {
	oldHandles := m.handles
	prevClasses := m.classes
	m.tasks, m.classes = tasks, classes
	// The handles and the children lists change only when a task comes,
	// goes or changes its parent: most steps (an edit, a claim) skip the
	// pass over every task.
	reindex := m.handles == nil
	for _, c := range changes {
		reindex = reindex || c.Old == nil || c.New == nil || c.Old.ParentID != c.New.ParentID
	}
	if reindex {
		m.index()
	}
	touched := map[string]bool{}
	for _, c := range changes {
		for _, t := range []*task.Task{c.Old, c.New} {
			if t != nil {
				touched[t.ID] = true
				if t.ParentID != "" {
					touched[t.ParentID] = true
				}
			}
		}
	}
	for id, c := range classes {
		p, ok := prevClasses[id]
		if !ok || p.State != c.State || !slices.Equal(p.Waits, c.Waits) {
			touched[id] = true
			if t := tasks[id]; t != nil && t.ParentID != "" {
				touched[t.ParentID] = true
			}
		}
	}
	for id, h := range m.handles {
		if reindex && oldHandles[id] != h {
			touched[id] = true
		}
	}
	oldOverlaps := m.overlaps
	m.overlaps = leaseOverlaps(tasks, time.Now())
	for _, ov := range []map[string][]string{oldOverlaps, m.overlaps} {
		for id := range ov {
			if !slices.Equal(oldOverlaps[id], m.overlaps[id]) {
				touched[id] = true
			}
		}
	}
	for id := range touched {
		if _, ok := tasks[id]; !ok {
			if _, had := m.cards[id]; had {
				delete(m.cards, id)
				removed = append(removed, id)
			}
			continue
		}
		c := m.card(id)
		if old := m.cards[id]; old != nil && sameCard(old, c) {
			continue
		}
		m.cards[id] = c
		upsert = append(upsert, c)
	}
	slices.SortFunc(upsert, func(a, b *Card) int { return cmpString(a.ID, b.ID) })
	slices.Sort(removed)
	return upsert, removed
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sameCard(a, b *Card) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// card builds id's card from the model.
func (m *model) card(id string) *Card {
	t := m.tasks[id]
	cl := m.classes[id]
	c := &Card{
		ID: id, Handle: m.handles[id], Subject: t.Subject, Status: t.Status, State: cl.State,
		Owner: t.Owner, Priority: t.Priority, Labels: t.Labels(), BlockedBy: t.BlockedBy,
		Waits: cl.Waits, Blocks: t.Blocks, ParentID: t.ParentID, Plan: planOf(t), Version: Version(t),
	}
	if kids := m.children[id]; len(kids) > 0 {
		done, total := 0, 0
		for _, k := range kids {
			switch m.tasks[k].Status {
			case task.Deleted:
			case task.Completed:
				done++
				total++
			default:
				total++
			}
		}
		if total > 0 {
			c.Kids = []int{done, total}
		}
	}
	if t.Status == task.InProgress {
		if _, ok := t.Metadata[claim.Key]; ok {
			if cl := claim.Of(t); cl != nil {
				if exp, ok := cl.Expiry(); ok {
					c.LeaseEnds = exp.UTC().Format(time.RFC3339)
				}
				c.Worktree, c.Branch, c.Leases = cl.Worktree, cl.Branch, cl.Paths
			}
		}
		c.Overlaps = m.overlaps[id]
	} else if t.Status == task.Pending {
		c.Paths = store.DeclaredPaths(t)
	}
	return c
}

// leaseOverlaps pairs the in_progress tasks whose live path leases
// overlap (claim.Overlap), each list in id order. Only tasks holding
// leases are compared: a handful in practice, so the pairwise look is
// cheap.
func leaseOverlaps(tasks map[string]*task.Task, now time.Time) map[string][]string {
	type held struct {
		id    string
		paths []string
	}
	var hs []held
	for id, t := range tasks {
		if t.Status != task.InProgress {
			continue
		}
		if _, ok := t.Metadata[claim.Key]; !ok {
			continue
		}
		if cl := claim.Of(t); cl != nil && len(cl.Paths) > 0 && !cl.Expired(now) {
			hs = append(hs, held{id, cl.Paths})
		}
	}
	slices.SortFunc(hs, func(a, b held) int { return cmpString(a.id, b.id) })
	out := map[string][]string{}
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			if globsOverlap(hs[i].paths, hs[j].paths) {
				out[hs[i].id] = append(out[hs[i].id], hs[j].id)
				out[hs[j].id] = append(out[hs[j].id], hs[i].id)
			}
		}
	}
	return out
}

func globsOverlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if claim.Overlap(x, y) {
				return true
			}
		}
	}
	return false
}

// snapshot is the page's whole state (the first message of each stream,
// and the data of an export).
type snapshot struct {
	Seq     uint64     `json:"seq"`
	Now     string     `json:"now"`
	Project string     `json:"project"`
	Me      string     `json:"me"`
	Cards   []*Card    `json:"cards"`
	Plans   []PlanInfo `json:"plans"`
	// History says whether task details carry a history.
	ReadOnly bool `json:"readOnly,omitzero"`
}

// snapshotLocked lists every card in id (creation) order.
func (m *model) snapshotLocked() []*Card {
	out := make([]*Card, 0, len(m.cards))
	for _, c := range m.cards {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Card) int { return cmpString(a.ID, b.ID) })
	return out
}

// plansOf lists the plans with their progress and the number of tasks
// filed for each.
func plansOf(ps *plan.Store, tasks map[string]*task.Task) []PlanInfo {
	if ps == nil {
		return nil
	}
	res, err := ps.List()
	if err != nil {
		return nil
	}
	count := map[string]int{}
	for _, t := range tasks {
		if n := planOf(t); n != "" && t.Status != task.Deleted {
			count[n]++
		}
	}
	out := make([]PlanInfo, 0, len(res.Plans))
	for _, p := range res.Plans {
		out = append(out, PlanInfo{Name: p.Name, Done: p.Progress.Done, Total: p.Progress.Total, Tasks: count[p.Name]})
	}
	return out
}

// rawJSON marshals v compactly, keys in a stable order.
func rawJSON(v any) jsontext.Value {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return jsontext.Value(`null`)
	}
	return b
}
