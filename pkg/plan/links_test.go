package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// link is a task of plan items: id, number and text ("" text: a task filed
// before texts were recorded, whose subject is subject).
func link(id string, n int, text string) Link {
	return Link{ID: id, Subject: text, Status: task.Pending, Item: n, Text: text, HasText: true}
}

func legacy(id string, n int, subject string) Link {
	return Link{ID: id, Subject: subject, Status: task.Pending, Item: n, Text: subject}
}

// outcome describes a resolution: "T1→4" per held link, "T1:gone[3]" per
// broken one with its candidates, "T1:detached".
func outcome(r *Resolution, links Links) string {
	var out []string
	for _, l := range links {
		switch n := r.Item(l.ID); {
		case n != 0:
			out = append(out, fmt.Sprintf("%s→%d", l.ID, n))
		default:
			s := l.ID + ":detached"
			for _, b := range r.Broken {
				if b.ID == l.ID {
					var cs []string
					for _, c := range b.Candidates {
						cs = append(cs, fmt.Sprint(c.Number))
					}
					s = fmt.Sprintf("%s:%s[%s]", l.ID, b.Reason, strings.Join(cs, ","))
				}
			}
			out = append(out, s)
		}
	}
	return strings.Join(out, " ")
}

func TestResolve(t *testing.T) {
	const base = "1. [ ] Write code\n2. [ ] Run tests\n3. [ ] Deploy\n"
	three := Links{link("A", 1, "Write code"), link("B", 2, "Run tests"), link("C", 3, "Deploy")}
	tests := []struct {
		name  string
		plan  string
		links Links
		want  string
		moves string // "ID:N:text" per move
	}{
		{"unchanged", base, three, "A→1 B→2 C→3", ""},
		{"inserted", "1. [ ] Write code\n2. [ ] Lint\n3. [ ] Run tests\n4. [ ] Deploy\n", three,
			"A→1 B→3 C→4", "B:3:Run tests C:4:Deploy"},
		{"moved, numbers kept", "3. [ ] Deploy\n1. [ ] Write code\n2. [ ] Run tests\n", three, "A→1 B→2 C→3", ""},
		{"swapped and renumbered", "1. [ ] Write code\n2. [ ] Deploy\n3. [ ] Run tests\n", three,
			"A→1 B→3 C→2", "B:3:Run tests C:2:Deploy"},
		{"deleted and renumbered", "1. [ ] Write code\n2. [ ] Deploy\n", three, "A→1 B:detached C→2", "C:2:Deploy"},
		{"deleted, gap kept", "1. [ ] Write code\n3. [ ] Deploy\n", three, "A→1 B:detached C→3", ""},
		{"edited", "1. [ ] Write code\n2. [ ] Run tests\n3. [ ] Deploy to staging\n", three, "A→1 B→2 C:gone[3]", ""},
		{"edited and ticked", "1. [ ] Write code\n2. [ ] Run tests\n3. [x] Deploy to staging\n", three, "A→1 B→2 C:detached", ""},
		{"white space is no edit", "1. [ ]  Write\tcode \n2. [ ] Run tests\n3. [ ] Deploy\n", three, "A→1 B→2 C→3", ""},
		{"case is an edit", "1. [ ] write code\n2. [ ] Run tests\n3. [ ] Deploy\n", three, "A:gone[1] B→2 C→3", ""},
		{"text twice", "1. [ ] Deploy\n2. [ ] Write code\n3. [ ] Deploy\n", Links{link("C", 2, "Deploy")}, "C:ambiguous[1,3]", ""},
		{"text twice, one held by number", "1. [ ] Deploy\n2. [ ] Write code\n3. [ ] Deploy\n",
			Links{link("X", 1, "Deploy"), link("C", 2, "Deploy")}, "X→1 C→3", "C:3:Deploy"},
		{"two old numbers, one item", "1. [ ] Code\n2. [ ] Docs\n",
			Links{link("D1", 1, "Docs"), link("K", 2, "Code"), link("D3", 3, "Docs")}, "D1:ambiguous[2] K→1 D3:ambiguous[2]", "K:1:Code"},
		{"same old link twice", "1. [ ] Lint\n2. [ ] Deploy\n",
			Links{link("C1", 1, "Deploy"), link("C2", 1, "Deploy")}, "C1→2 C2→2", "C1:2:Deploy C2:2:Deploy"},
		{"never to an item numbered 0", "0. [ ] Deploy\n1. [ ] Write code\n", Links{link("C", 3, "Deploy")}, "C:detached", ""},
		{"number gone", base, Links{link("Z", 9, "Later")}, "Z:detached", ""},
		{"legacy, subject at its number", base, Links{legacy("L", 2, "Run tests")}, "L→2", "L:2:Run tests"},
		{"legacy, subject moved", "1. [ ] Lint\n2. [ ] Write code\n", Links{legacy("L", 1, "Write code")}, "L→2", "L:2:Write code"},
		{"legacy, subject nowhere: adopt", base, Links{legacy("L", 3, "Ship it")}, "L→3", "L:3:Deploy"},
		{"legacy, subject nowhere, number held", base, Links{link("C", 3, "Deploy"), legacy("L", 3, "Ship it")}, "C→3 L:detached", ""},
		{"legacy, number gone", base, Links{legacy("L", 7, "Ship it")}, "L:detached", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := Items(hashline.Split(tt.plan).Lines)
			r := Resolve(items, tt.links)
			if got := outcome(r, tt.links); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var moves []string
			for _, m := range r.Moves {
				moves = append(moves, fmt.Sprintf("%s:%d:%s", m.Link.ID, m.Item, m.Text))
			}
			if got := strings.Join(moves, " "); got != tt.moves {
				t.Errorf("moves %q, want %q", got, tt.moves)
			}
			if len(r.Detached) != strings.Count(tt.want, ":detached") || len(r.Notes("p")) != len(r.Detached) {
				t.Errorf("detached %v", r.Detached)
			}
		})
	}
}

func TestResolveStatuses(t *testing.T) {
	items := Items([]string{"1. [ ] a", "2. [ ] b", "3. [ ] c"})
	links := Links{
		{ID: "T1", Status: task.Completed, Item: 2, Text: "a", HasText: true}, // moved to 1
		{ID: "T2", Status: task.Completed, Item: 2, Text: "b", HasText: true},
		{ID: "T3", Status: task.InProgress, Item: 2, Text: "b", HasText: true},
		{ID: "T4", Status: task.Completed, Item: 3, Text: "c", HasText: true},
	}
	r := Resolve(items, links)
	if !r.Filed(1) || !r.Finished(1) || !r.Filed(2) || r.Finished(2) || !r.Finished(3) || r.Filed(4) {
		t.Fatalf("resolution %+v", r)
	}
}

func TestLinkError(t *testing.T) {
	p := &Plan{Name: "p", Text: hashline.Split("1. [ ] it's \"done\"\n2. [ ] b\n")}
	_, err := p.Resolve(Links{link("T-1", 1, "it is done")})
	var le *LinkError
	if !asLinkError(err, &le) || errcode.Of(err) != errcode.PlanLinkBroken || len(le.Broken) != 1 {
		t.Fatalf("err = %v", err)
	}
	msg := errcode.As(err).Message
	// the re-link command is valid shell and valid JSON
	want := `task-update T-1 --metadata '{"planItem":1,"planItemText":"it'\''s \"done\""}'`
	if !strings.Contains(msg, want) || !strings.Contains(msg, "never ticked, filed or skipped by its number alone") {
		t.Errorf("message %s\nwant it to hold %s", msg, want)
	}
	if _, err := p.Resolve(Links{link("T-1", 2, "b")}); err != nil {
		t.Errorf("a good link: %v", err)
	}
}

func asLinkError(err error, le **LinkError) bool {
	e, ok := err.(*LinkError)
	*le = e
	return ok
}

func TestSameText(t *testing.T) {
	for _, c := range [][2]string{{"a b", " a  b "}, {"a\tb", "a b"}, {"\xff", "\uFFFD"}} {
		if !SameText(c[0], c[1]) {
			t.Errorf("SameText(%q, %q) = false", c[0], c[1])
		}
	}
	for _, c := range [][2]string{{"a b", "ab"}, {"A", "a"}, {"a.", "a"}} {
		if SameText(c[0], c[1]) {
			t.Errorf("SameText(%q, %q) = true", c[0], c[1])
		}
	}
}

func TestCheckTask(t *testing.T) {
	s := newStore(t)
	mustCreate(t, s, "p", "1. [ ] new\n2. [ ] a\n3. [ ] b\n")
	links := Links{link("T-a", 1, "a"), link("T-b", 2, "b")}
	var moved []Move
	res, err := s.CheckTask("p", "T-b", links, true, func(m []Move) error { moved = m; return nil })
	if err != nil || res.Item != 3 || !res.Changed || res.Lines[0].Text != "3. [x] b" {
		t.Fatalf("check = %+v, %v", res, err)
	}
	if len(moved) != 2 || !slices.ContainsFunc(moved, func(m Move) bool { return m.Link.ID == "T-b" && m.Item == 3 }) {
		t.Errorf("moves = %+v", moved)
	}
	_, err = s.CheckTask("p", "T-x", links, true, func([]Move) error { return nil })
	wantCode(t, err, errcode.ValidationError, "not linked to plan p")
	_, err = s.CheckTask("p", "T-z", Links{link("T-z", 7, "zzz")}, true, func([]Move) error { return nil })
	wantCode(t, err, errcode.PlanLinkBroken, "no open item of the plan can be it")
	// relink's error stops the check before anything is written
	_, err = s.CheckTask("p", "T-a", links, true, func([]Move) error { return errcode.New(errcode.TaskLockUnavailable, "busy") })
	wantCode(t, err, errcode.TaskLockUnavailable, "busy")
	if got := fileOf(t, s, "p"); got != "1. [ ] new\n2. [ ] a\n3. [x] b\n" {
		t.Errorf("file = %q", got)
	}
}

// FuzzResolve checks Resolve's invariants on arbitrary plans and links:
// every link is held, broken or detached, exactly once; a held link with a
// recorded text is on an item carrying that text; a broken link's
// candidates are open or carry its text; nothing panics.
func FuzzResolve(f *testing.F) {
	f.Add("1. [ ] a\n2. [ ] b\n3. [x] c\n", "1a 2b 3c")
	f.Add("1. [ ] Lint\n2. [ ] a\n3. [ ] b\n", "1a 2b 2b 3!c")
	f.Add("1. [ ] a\n2. [ ] b\n3. [ ] a\n", "2a 9z 1!q")
	f.Fuzz(func(t *testing.T, plan, spec string) {
		items := Items(hashline.Split(plan).Lines)
		if Unique(items, "p") != nil {
			return
		}
		var links Links
		for i, w := range strings.Fields(spec) {
			if len(w) < 2 || w[0] < '1' || w[0] > '9' {
				continue
			}
			l := Link{ID: fmt.Sprintf("T-%d", i), Status: task.Pending, Item: int(w[0] - '0'), HasText: true, Text: w[1:]}
			if w[1] == '!' {
				l.HasText, l.Text, l.Subject = false, w[2:], w[2:]
			}
			links = append(links, l)
		}
		r := Resolve(items, links)
		byNum := map[int]Item{}
		for _, it := range items {
			byNum[it.Number] = it
		}
		broken := map[string]Broken{}
		for _, b := range r.Broken {
			broken[b.ID] = b
		}
		detached := map[string]bool{}
		for _, d := range r.Detached {
			detached[d.ID] = true
		}
		for _, l := range links {
			n := r.Item(l.ID)
			_, isBroken := broken[l.ID]
			states := 0
			for _, b := range []bool{n != 0, isBroken, detached[l.ID]} {
				if b {
					states++
				}
			}
			if states != 1 {
				t.Fatalf("link %+v: held %d, broken %v, detached %v", l, n, isBroken, detached[l.ID])
			}
			if n != 0 && l.HasText && !SameText(byNum[n].Text, l.Text) {
				t.Fatalf("link %+v held by item %+v with another text", l, byNum[n])
			}
			if n != 0 && !l.HasText && n != l.Item && !SameText(byNum[n].Text, l.Text) {
				t.Fatalf("legacy link %+v moved to item %+v by no text", l, byNum[n])
			}
			for _, c := range broken[l.ID].Candidates {
				if !SameText(c.Text, l.Text) && c.Done {
					t.Fatalf("link %+v: ticked candidate %+v of another text", l, c)
				}
			}
		}
		if r.Err("p") == nil && len(r.Broken) > 0 {
			t.Fatal("broken links but no error")
		}
	})
}
