package plan

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Item is a numbered checkbox item ("1. [ ] Build the API", "2) [x] …"),
// the unit of progress. "- [ ]" bullets are meta items and
// are not Items; lines inside fenced code blocks are never items.
type Item struct {
	// Number is the item's number as written in the markdown; it is the
	// planItem of the item's task.
	Number int
	// Line is the 1-based line the item is on.
	Line int
	// Done is true for "[x]" and "[X]".
	Done bool
	// Text is what follows the checkbox, trimmed: the task's subject.
	Text string
	// box is the byte offset of the checkbox mark (" ", "x" or "X").
	box int
}

// Progress counts the numbered checkbox items of a plan.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// itemRe matches a numbered checkbox item: optional indentation, 1–9
// digits, "." or ")", whitespace, "[ ]", "[x]" or "[X]", then whitespace and
// the text, or the end of the line.
// It is compiled on first use, not at start-up: every binary that links
// this package would otherwise pay for it before main.
var itemRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*([0-9]{1,9})[.)][ \t]+\[([ xX])\](?:[ \t]+(.*))?$`)
})

// Items returns the numbered checkbox items of lines, in order.
func Items(lines []string) []Item {
	var items []Item
	var fence string // the opening fence while inside a fenced code block
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if f, info := fenceOf(l); f != "" {
			switch {
			case fence == "" && !(f[0] == '`' && strings.IndexByte(info, '`') >= 0):
				fence = f
			case fence != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(info) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		m := itemRe().FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(l[m[2]:m[3]])
		it := Item{Number: n, Line: i + 1, Done: l[m[4]] != ' ', box: m[4]}
		if m[6] >= 0 {
			it.Text = strings.TrimSpace(l[m[6]:m[7]])
		}
		items = append(items, it)
	}
	return items
}

// fenceOf returns the run of three or more backticks or tildes that starts
// line l (indented at most three spaces), and the rest of the line; "" when
// l is no fence. An opening fence's info string is rest; a closing fence has
// a blank rest.
func fenceOf(l string) (fence, rest string) {
	indent := len(l) - len(strings.TrimLeft(l, " "))
	if indent > 3 {
		return "", ""
	}
	s := l[indent:]
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(s) && s[n] == c {
			n++
		}
		if n >= 3 {
			return s[:n], s[n:]
		}
	}
	return "", ""
}

// ProgressOf counts items.
func ProgressOf(items []Item) Progress {
	p := Progress{Total: len(items)}
	for _, it := range items {
		if it.Done {
			p.Done++
		}
	}
	return p
}

// Find returns the item numbered n. Errors: invalid_edit when the plan has
// no such item, validation_error when the number is ambiguous (see Unique).
func Find(items []Item, name string, n int) (Item, error) {
	if err := Unique(items, name); err != nil {
		return Item{}, err
	}
	for _, it := range items {
		if it.Number == n {
			return it, nil
		}
	}
	if len(items) == 0 {
		return Item{}, errcode.New(errcode.InvalidEdit, "plan %s has no numbered item %d: it has no numbered checkbox items (\"1. [ ] …\") at all", name, n)
	}
	nums := make([]string, 0, len(items))
	for _, it := range items {
		nums = append(nums, strconv.Itoa(it.Number))
	}
	return Item{}, errcode.New(errcode.InvalidEdit, "plan %s has no numbered item %d (its items: %s)", name, n, strings.Join(nums, ", "))
}

// Unique refuses a plan that gives two items the same number: the number is
// how a task (metadata.planItem) and plan check name an item.
// Error: validation_error naming the number and its lines.
func Unique(items []Item, name string) error {
	first := map[int]int{}
	for _, it := range items {
		if l, dup := first[it.Number]; dup {
			return errcode.New(errcode.ValidationError,
				"plan %s numbers two items %d (lines %d and %d): an item's number is its planItem, so number the items 1, 2, 3, … through the whole plan (edit with plan update)",
				name, it.Number, l, it.Line)
		}
		first[it.Number] = it.Line
	}
	return nil
}

// SetDone returns line with its checkbox set to "[x]" (done) or "[ ]"; it
// must be the line of it. An already-checked "[X]" stays as it is.
func SetDone(line string, it Item, done bool) string {
	if it.Done == done || it.box >= len(line) {
		return line
	}
	mark := " "
	if done {
		mark = "x"
	}
	return line[:it.box] + mark + line[it.box+1:]
}

// String describes an item for messages: "item 3 (line 12)".
func (it Item) String() string { return fmt.Sprintf("item %d (line %d)", it.Number, it.Line) }
