package porcelain

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// view is the store as people see it: every readable task (all statuses)
// with its shortest unique handle and, when asked, its file's
// modification time. One map (id → index) serves every lookup.
type view struct {
	tasks    []*task.Task // sorted by id (creation order)
	handle   []string     // handle[i] is tasks[i]'s
	mtimes   []time.Time  // when loaded with mtimes
	at       map[string]int32
	extra    map[string]string // handles of unreadable files' ids
	problems []store.Problem
	dir      string
	kids     map[string][]string // active subtasks by parent, on first need
}

// listing is what the view commands (ready, tree, graph) start with: the
// project opened, every task loaded (file times too when mtimes), and the
// files that are not tasks reported on stderr. Where there is no store it
// says so (noStore) and returns a nil view: the command prints nothing
// more.
func (r *runner) listing(mtimes bool) (*view, error) {
	p, err := r.project()
	if err != nil {
		return nil, err
	}
	if r.noStore(p) {
		return nil, nil
	}
	v, err := load(p.Store, mtimes)
	if err != nil {
		return nil, err
	}
	r.problems(v)
	return v, nil
}

// load scans the store once; mtimes asks for the files' modification
// times (an fstat of each file the scan opens anyway).
func load(st *store.Store, mtimes bool) (*view, error) {
	snap, err := st.Scan(store.ScanOptions{Mtime: mtimes})
	if err != nil {
		return nil, err
	}
	n := len(snap.Entries)
	v := &view{
		tasks:    make([]*task.Task, n),
		at:       make(map[string]int32, n),
		problems: snap.Problems,
		dir:      st.Dir,
	}
	if mtimes {
		v.mtimes = make([]time.Time, n)
	}
	ids := make([]string, n, n+len(snap.Problems))
	for i, e := range snap.Entries {
		v.tasks[i] = e.Task
		v.at[e.Task.ID] = int32(i)
		ids[i] = e.Task.ID
		if mtimes {
			v.mtimes[i] = e.ModTime
		}
	}
	// Unreadable files still hold their id: handles stay unique against
	// them, as ResolveID matches file names.
	for _, p := range snap.Problems {
		if id := strings.TrimSuffix(p.File, ".json"); task.ValidID(id) {
			ids = append(ids, id)
		}
	}
	hs := task.ShortHandles(ids)
	v.handle = hs[:n]
	for i := n; i < len(ids); i++ {
		if v.extra == nil {
			v.extra = map[string]string{}
		}
		v.extra[ids[i]] = hs[i]
	}
	return v, nil
}

// get is the task with id, nil when there is none.
func (v *view) get(id string) *task.Task {
	if i, ok := v.at[id]; ok {
		return v.tasks[i]
	}
	return nil
}

// modTime is the modification time of id's record file (zero when it
// cannot be read): from the scan when it took them, else looked up.
func (v *view) modTime(id string) time.Time {
	if i, ok := v.at[id]; ok && v.mtimes != nil {
		return v.mtimes[i]
	}
	fi, err := os.Lstat(filepath.Join(v.dir, task.FileName(id)))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// handleOf is id's shortest unique handle; ok is false for an id with no
// file in the store.
func (v *view) handleOf(id string) (string, bool) {
	if i, ok := v.at[id]; ok {
		return v.handle[i], true
	}
	h, ok := v.extra[id]
	return h, ok
}

// h is the handle to show for id (the id itself when it has none, e.g. a
// blocker whose file is gone).
func (v *view) h(id string) string {
	if s, ok := v.handleOf(id); ok {
		return s
	}
	return id
}

// status of id; "" when there is no such task.
func (v *view) status(id string) task.Status {
	if t := v.get(id); t != nil {
		return t.Status
	}
	return ""
}

// unresolved are t's blockers that are not completed (missing and deleted
// ones stay, as in task-list).
func (v *view) unresolved(t *task.Task) []string {
	var out []string
	for _, b := range t.BlockedBy {
		if v.status(b) != task.Completed {
			out = append(out, b)
		}
	}
	return out
}

// ready reports whether t is pending with no unresolved blocker.
func (v *view) ready(t *task.Task) bool {
	return t.Status == task.Pending && len(v.unresolved(t)) == 0 && len(v.activeKids(t.ID)) == 0
}

// activeKids are id's subtasks still pending or in_progress: a parent
// with any is not ready work (task.ActiveChildren).
func (v *view) activeKids(id string) []string {
	if v.kids == nil {
		v.kids = task.ActiveChildren(v.tasks)
	}
	return v.kids[id]
}

// progress counts id's descendants (deleted ones left out) and how many
// of them are completed.
func (v *view) progress(id string, children map[string][]*task.Task) (done, total int) {
	seen := map[string]bool{id: true}
	var walk func(p string)
	walk = func(p string) {
		for _, k := range children[p] {
			if seen[k.ID] {
				continue
			}
			seen[k.ID] = true
			if k.Status != task.Deleted {
				total++
				if k.Status == task.Completed {
					done++
				}
			}
			walk(k.ID)
		}
	}
	walk(id)
	return done, total
}

// dependents are the tasks that wait for id: those whose blockedBy names
// it and those its blocks names, sorted by id, without repeats.
func (v *view) dependents(id string) []string {
	var own []string
	if t := v.get(id); t != nil {
		own = t.Blocks
	}
	return v.linked(id, own, func(t *task.Task) []string { return t.BlockedBy })
}

// blockers are the tasks id waits for: its blockedBy and the tasks whose
// blocks names it, sorted by id, without repeats.
func (v *view) blockers(id string) []string {
	var own []string
	if t := v.get(id); t != nil {
		own = t.BlockedBy
	}
	return v.linked(id, own, func(t *task.Task) []string { return t.Blocks })
}

// linked is own plus every task whose other list names id, sorted by id,
// without repeats.
func (v *view) linked(id string, own []string, other func(*task.Task) []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(x string) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for _, x := range own {
		add(x)
	}
	for _, t := range v.tasks {
		if slices.Contains(other(t), id) {
			add(t.ID)
		}
	}
	slices.Sort(out)
	return out
}

// priorityRank orders priorities for people: high, medium, none, low.
func priorityRank(p task.Priority) int {
	switch p {
	case "high":
		return 0
	case "medium":
		return 1
	case "low":
		return 3
	}
	return 2
}

// handles maps ids to their handles, joined by ", ".
func (v *view) handles(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = v.h(id)
	}
	return strings.Join(out, ", ")
}

func itoa(n int) string { return strconv.Itoa(n) }

// cutText keeps the head of text: at most lines lines and maxBytes bytes
// (cut at a line's end, or inside a longer first line at a rune
// boundary); it says how many whole lines and bytes were left out and
// whether the last kept line was cut (mid).
func cutText(text string, lines, maxBytes int) (kept string, hiddenLines, hiddenBytes int, mid bool) {
	end, n := 0, 0
	for end < len(text) && n < lines {
		i := strings.IndexByte(text[end:], '\n')
		next := len(text)
		if i >= 0 {
			next = end + i
		}
		if next > maxBytes {
			if n == 0 { // one long line: cut inside it
				next = maxBytes
				for next > 0 && !utf8.RuneStart(text[next]) {
					next--
				}
				end, mid = next, true
			}
			break
		}
		end, n = next, n+1
		if i >= 0 && n < lines {
			end++ // past the newline
		}
	}
	if end >= len(text) {
		return text, 0, 0, false
	}
	kept = strings.TrimSuffix(text[:end], "\n")
	rest := text[end:]
	if !mid {
		rest = strings.TrimPrefix(rest, "\n")
		hiddenLines = 1
	}
	hiddenLines += strings.Count(rest, "\n")
	return kept, hiddenLines, len(text) - len(kept), mid
}

// hiddenText says what show left out of a description.
func hiddenText(lines, bytes int, mid bool) string {
	what := fmt.Sprintf("%d more line(s)", lines)
	if mid {
		what = "the line goes on"
		if lines > 0 {
			what += fmt.Sprintf(", then %d more line(s)", lines)
		}
	}
	return fmt.Sprintf("… %s, %s hidden", what, sizeText(bytes))
}

// sizeText is a byte count for people: "512 B", "3.4 KB", "2.9 MB".
func sizeText(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
