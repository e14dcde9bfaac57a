package plan

import (
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
)

const sample = `# Auth

1. [ ] Login form
2. [x] Session tokens
3. [X] Logout
  4. [ ] Nested step
5) [ ] Paren style
6. [ ]
7. [ ]   Spaced text   
- [ ] meta bullet
* [x] meta star
1. plain numbered item
8. [-] not a checkbox
9.[ ] no space
10. [ ]no space after
   11. [ ] three spaces
` + "```" + `
12. [ ] inside a fence
~~~
13. [ ] still inside (other fence char)
` + "```" + `
14. [ ] after the fence
~~~~ md
15. [ ] in a tilde fence
~~~
16. [ ] still inside (shorter closing fence)
~~~~
17. [ ] done with fences
> 18. [ ] quoted
19. [ ] CRLF line` + "\r" + `
`

func TestItems(t *testing.T) {
	items := Items(hashline.Split(sample).Lines)
	type want struct {
		n    int
		line int
		done bool
		text string
	}
	exp := []want{
		{1, 3, false, "Login form"},
		{2, 4, true, "Session tokens"},
		{3, 5, true, "Logout"},
		{4, 6, false, "Nested step"},
		{5, 7, false, "Paren style"},
		{6, 8, false, ""},
		{7, 9, false, "Spaced text"},
		{11, 16, false, "three spaces"},
		{14, 22, false, "after the fence"},
		{17, 28, false, "done with fences"},
		{19, 30, false, "CRLF line"},
	}
	if len(items) != len(exp) {
		t.Fatalf("got %d items: %+v", len(items), items)
	}
	for i, w := range exp {
		it := items[i]
		if it.Number != w.n || it.Line != w.line || it.Done != w.done || it.Text != w.text {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
	}
	if p := ProgressOf(items); p != (Progress{Done: 2, Total: 11}) {
		t.Errorf("progress = %+v", p)
	}
}

func TestSetDone(t *testing.T) {
	lines := []string{"1. [ ] a", "  2) [x] b", "3. [X] c"}
	items := Items(lines)
	for _, tc := range []struct {
		i    int
		done bool
		want string
	}{
		{0, true, "1. [x] a"},
		{0, false, "1. [ ] a"},
		{1, false, "  2) [ ] b"},
		{1, true, "  2) [x] b"},
		{2, true, "3. [X] c"},
		{2, false, "3. [ ] c"},
	} {
		if got := SetDone(lines[tc.i], items[tc.i], tc.done); got != tc.want {
			t.Errorf("SetDone(%q, %v) = %q, want %q", lines[tc.i], tc.done, got, tc.want)
		}
	}
}

func TestFindAndUnique(t *testing.T) {
	items := Items([]string{"1. [ ] a", "2. [ ] b", "- [ ] c"})
	if it, err := Find(items, "p", 2); err != nil || it.Line != 2 {
		t.Errorf("Find 2 = %+v, %v", it, err)
	}
	for _, tc := range []struct {
		lines []string
		n     int
		code  errcode.Code
		msg   string
	}{
		{[]string{"1. [ ] a", "2. [ ] b"}, 3, errcode.InvalidEdit, "no numbered item 3 (its items: 1, 2)"},
		{[]string{"- [ ] a"}, 1, errcode.InvalidEdit, "no numbered checkbox items"},
		{[]string{"1. [ ] a", "## Next", "1. [ ] b"}, 1, errcode.ValidationError, "numbers two items 1 (lines 1 and 3)"},
	} {
		_, err := Find(Items(tc.lines), "p", tc.n)
		if e := errcode.As(err); err == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("Find(%q, %d) = %v; want %s containing %q", tc.lines, tc.n, err, tc.code, tc.msg)
		}
	}
}
