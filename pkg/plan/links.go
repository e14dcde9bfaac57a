package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Link is one task's tie to an item of a plan (docs/plans.md):
// metadata.planItem (the item's number when the link was last written)
// and metadata.planItemText (the item's text then).
type Link struct {
	// ID and Subject name the task in messages.
	ID      string
	Subject string
	Status  task.Status
	// Item is metadata.planItem.
	Item int
	// Text is metadata.planItemText; for a task filed before texts were
	// recorded (HasText false) it is the task's subject, which plan tasks
	// set to the item's text.
	Text    string
	HasText bool
}

// LinkOf returns t's link to plan name; ok is false when t names another
// plan or its planName/planItem are missing or malformed.
func LinkOf(t *task.Task, name string) (Link, bool) {
	pn, n, ok := t.Metadata.PlanItem()
	if !ok || pn != name {
		return Link{}, false
	}
	l := Link{ID: t.ID, Subject: t.Subject, Status: t.Status, Item: n}
	l.Text, l.HasText = t.Metadata.PlanItemText()
	if !l.HasText {
		l.Text = t.Subject
	}
	return l, true
}

// Links are the tasks of one plan that are not deleted: tasks whose
// metadata.planName is the plan's name and whose metadata.planItem is a
// number (a JSON integer, or a string of digits), in the same project
// (project.Matcher.Same: every task of the project's own store counts; in
// a shared store, tasks whose projectRoot names another project do not,
// tasks without one do; docs/design/decisions.md). A deleted task holds no item,
// so deleting an item's task files it again.
type Links []Link

// LinksOf collects the links of plan name among tasks. sameProject is
// called once per task and must be cheap (project.Matcher caches).
func LinksOf(tasks []*task.Task, name string, sameProject func(projectRoot string) bool) Links {
	var links Links
	for _, t := range tasks {
		if t.Status == task.Deleted || !sameProject(t.ProjectRoot) {
			continue
		}
		if l, ok := LinkOf(t, name); ok {
			links = append(links, l)
		}
	}
	return links
}

// SameText reports whether two item texts are the same item text: equal
// after invalid UTF-8 is replaced, leading and trailing white space is
// dropped and inner runs of white space are taken as one space. Case and
// punctuation count.
func SameText(a, b string) bool { return normText(a) == normText(b) }

func normText(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// Move is a link to write: the task's planItem becomes Item and its
// planItemText Text. A move with Item == Link.Item only records the text
// of a task filed before texts were recorded.
type Move struct {
	Link Link
	Item int
	Text string
}

// Broken is a link that cannot be followed: its item's number no longer
// carries its text, and the text is on no item ("gone") or on several
// ("ambiguous"). Candidates are the items it might mean.
type Broken struct {
	Link
	Reason     string
	Candidates []Item
}

// Reasons of a Broken link.
const (
	Gone      = "gone"
	Ambiguous = "ambiguous"
)

// Detached is a link whose item is no longer in the plan and that could
// be confused with no open item: its text is on no item, and its number
// is on no item, on a ticked one, or on one another task holds. Such a
// task is ignored (and named on stderr).
type Detached struct{ Link }

// Resolution is where each link of a plan points now (docs/plans.md).
type Resolution struct {
	byItem map[int][]task.Status
	// Moves are the links to rewrite (followed, or text recorded).
	Moves []Move
	// Broken are the links that cannot be followed; a command that would
	// act on them refuses (Err).
	Broken []Broken
	// Detached are the links of tasks whose item is gone.
	Detached []Detached
	// of maps a task id to its item number now (0: broken or detached).
	of map[string]int
}

// Item returns the number of the item task id stands for now, or 0 when
// its link is broken, detached, or not among the links.
func (r *Resolution) Item(id string) int { return r.of[id] }

// Filed reports whether item n has a task: such an item is left out of the
// manifest.
func (r *Resolution) Filed(n int) bool { return len(r.byItem[n]) > 0 }

// Finished reports whether item n has a completed task and no active one:
// plan sync ticks such items.
func (r *Resolution) Finished(n int) bool {
	done := false
	for _, st := range r.byItem[n] {
		switch {
		case st == task.Completed:
			done = true
		case st.Active():
			return false
		}
	}
	return done
}

// Resolve finds each link's item in items (numbers unique, see Unique):
//
//  1. the item numbered planItem, when it carries the link's text
//     (SameText);
//  2. else the one item carrying the text that no link of step 1 holds,
//     when only links from one old number look for that text (the item
//     was renumbered or moved);
//  3. else, for a task filed before texts were recorded, the item
//     numbered planItem when no other link holds it (its current text is
//     adopted);
//  4. else the link is Broken when an item might be meant (several
//     carriers of the text, or an open item at planItem that no other
//     link holds), and Detached when none is.
//
// Moves record the followed numbers and the texts of links without one.
func Resolve(items []Item, links Links) *Resolution {
	r := &Resolution{byItem: map[int][]task.Status{}, of: map[string]int{}}
	byNum := map[int]Item{}
	for _, it := range items {
		byNum[it.Number] = it
	}
	held := map[int]bool{}
	hold := func(l Link, it Item) {
		r.byItem[it.Number] = append(r.byItem[it.Number], l.Status)
		r.of[l.ID] = it.Number
		if it.Number != l.Item || !l.HasText {
			r.Moves = append(r.Moves, Move{Link: l, Item: it.Number, Text: it.Text})
		}
	}
	// 1: the number still carries the text.
	var rest Links
	for _, l := range links {
		if it, ok := byNum[l.Item]; ok && SameText(it.Text, l.Text) {
			hold(l, it)
			held[it.Number] = true
			continue
		}
		rest = append(rest, l)
	}
	// 2: follow the text.
	byText := map[string][]Item{}
	for _, it := range items {
		// planItem starts at 1 (task.Metadata.PlanItem): an item numbered
		// 0 cannot be linked, so no link follows to it.
		if !held[it.Number] && it.Number >= 1 {
			k := normText(it.Text)
			byText[k] = append(byText[k], it)
		}
	}
	olds := map[string]map[int]bool{}
	for _, l := range rest {
		k := normText(l.Text)
		if olds[k] == nil {
			olds[k] = map[int]bool{}
		}
		olds[k][l.Item] = true
	}
	var unplaced Links
	for _, l := range rest {
		k := normText(l.Text)
		switch c := byText[k]; {
		case len(c) == 1 && len(olds[k]) == 1:
			hold(l, c[0])
		case len(c) >= 1:
			r.Broken = append(r.Broken, Broken{Link: l, Reason: Ambiguous, Candidates: c})
		default:
			unplaced = append(unplaced, l)
		}
	}
	for n := range r.byItem {
		held[n] = true
	}
	// 3, 4: the text is on no free item.
	for _, l := range unplaced {
		it, ok := byNum[l.Item]
		switch {
		case ok && !l.HasText && !held[it.Number]:
			hold(l, it)
			held[it.Number] = true
		case ok && !it.Done && !held[it.Number]:
			r.Broken = append(r.Broken, Broken{Link: l, Reason: Gone, Candidates: []Item{it}})
		default:
			r.Detached = append(r.Detached, Detached{l})
		}
	}
	return r
}

// Notes describe the detached links, for stderr.
func (r *Resolution) Notes(name string) []string {
	var notes []string
	for _, d := range r.Detached {
		notes = append(notes, fmt.Sprintf("task %s (%q) is ignored: it was filed for item %d %q of plan %s, which is no longer in the plan (no item reads so, other than items that other tasks stand for); delete the task, or re-link it with task-update %s --metadata '{\"planItem\":N,\"planItemText\":\"…\"}' if it stands for another item",
			d.ID, d.Subject, d.Item, d.Text, name, d.ID))
	}
	return notes
}

// Err is plan_link_broken when some links are broken, else nil.
func (r *Resolution) Err(name string) error {
	if len(r.Broken) == 0 {
		return nil
	}
	return newLinkError(name, r.Broken)
}

// LinkError is plan_link_broken: tasks whose item's number no longer
// carries the item's text, and whose text cannot be followed to one item
// (docs/plans.md). Nothing was changed. The message names each task,
// its recorded item and the candidate items, and says how to re-link.
type LinkError struct {
	Plan   string
	Broken []Broken
	err    *errcode.Error
}

// Error implements error.
func (e *LinkError) Error() string { return e.err.Error() }

// Unwrap returns the plan_link_broken *errcode.Error, so errcode.As and
// errcode.ExitStatus see the code.
func (e *LinkError) Unwrap() error { return e.err }

func newLinkError(name string, broken []Broken) *LinkError {
	var b strings.Builder
	if len(broken) == 1 {
		fmt.Fprintf(&b, "plan %s: a task no longer matches its item; nothing was changed (an item is never ticked, filed or skipped by its number alone).", name)
	} else {
		fmt.Fprintf(&b, "plan %s: %d tasks no longer match their items; nothing was changed (an item is never ticked, filed or skipped by its number alone).", name, len(broken))
	}
	for _, br := range broken {
		b.WriteString(" Task ")
		b.WriteString(br.ID)
		fmt.Fprintf(&b, " (%q) was filed for item %d %q", br.Subject, br.Item, br.Text)
		cands := make([]string, len(br.Candidates))
		for i, c := range br.Candidates {
			cands[i] = fmt.Sprintf("item %d %q (line %d)", c.Number, c.Text, c.Line)
		}
		switch {
		case br.Reason == Ambiguous:
			if len(cands) == 1 {
				fmt.Fprintf(&b, "; that text is now only on %s, which tasks filed for other items look for too.", cands[0])
			} else {
				fmt.Fprintf(&b, "; that text is now on several items: %s.", strings.Join(cands, ", "))
			}
		case len(br.Candidates) == 0:
			b.WriteString("; no item reads so any more, and no open item of the plan can be it.")
		default:
			fmt.Fprintf(&b, "; no item reads so any more, and item %d now reads %q.", br.Candidates[0].Number, br.Candidates[0].Text)
		}
		if len(br.Candidates) > 0 {
			fmt.Fprintf(&b, " Re-link it to the item it stands for: task-update %s --metadata %s;", br.ID, shellQuote(relinkJSON(br.Candidates[0])))
		}
		b.WriteString(" unlink it: task-update " + br.ID + ` --metadata '{"planName":null,"planItem":null,"planItemText":null}'.`)
	}
	return &LinkError{Plan: name, Broken: broken, err: errcode.New(errcode.PlanLinkBroken, "%s", b.String())}
}

// relinkJSON is the metadata that links a task to item it.
func relinkJSON(it Item) string {
	b, err := json.Marshal(struct {
		PlanItem     int    `json:"planItem"`
		PlanItemText string `json:"planItemText"`
	}{it.Number, strings.ToValidUTF8(it.Text, "\uFFFD")})
	if err != nil {
		return `{"planItem":` + strconv.Itoa(it.Number) + `}`
	}
	return string(b)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
