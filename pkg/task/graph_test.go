package task

import (
	"strconv"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

func TestUnresolved(t *testing.T) {
	status := map[string]Status{"T-a": Completed, "T-b": Deleted, "T-c": Pending}
	got := Unresolved([]string{"T-a", "T-b", "T-c", "T-missing"}, status)
	if strings.Join(got, ",") != "T-b,T-c,T-missing" {
		t.Fatalf("got %v", got)
	}
	if got := Unresolved(nil, status); got == nil || len(got) != 0 {
		t.Fatalf("nil blockedBy must give an empty, non-nil list: %#v", got)
	}
}

func TestGraphAdd(t *testing.T) {
	// a → b → c (b blockedBy a, c blockedBy b), and x blocks a (x → a).
	tasks := []*Task{
		{ID: "T-a"},
		{ID: "T-b", BlockedBy: []string{"T-a"}},
		{ID: "T-c", BlockedBy: []string{"T-b"}},
		{ID: "T-x", Blocks: []string{"T-a"}},
	}
	tests := []struct {
		name  string
		edges []Edge
		cycle string // substring of the message, "" = accepted
	}{
		{"self", []Edge{{"T-a", "T-a"}}, "itself"},
		{"closes chain", []Edge{{"T-c", "T-a"}}, "T-c → T-a → T-b → T-c"},
		{"through blocks edge", []Edge{{"T-a", "T-x"}}, "T-a → T-x → T-a"},
		{"diamond ok", []Edge{{"T-a", "T-c"}}, ""},
		{"unknown ids ok", []Edge{{"T-zz", "T-a"}}, ""},
		{"second edge closes", []Edge{{"T-c", "T-new"}, {"T-new", "T-b"}}, "T-new → T-b → T-c → T-new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewGraph(tasks).Add(tt.edges)
			if tt.cycle == "" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if errcode.Of(err) != errcode.DependencyCycle || !strings.Contains(err.Error(), tt.cycle) {
				t.Fatalf("err = %v, want dependency_cycle with %q", err, tt.cycle)
			}
		})
	}
}

func TestLongCycleMessageIsShortened(t *testing.T) {
	var tasks []*Task
	prev := ""
	for i := range 400 {
		id := "T-" + strconv.Itoa(i)
		tk := &Task{ID: id}
		if prev != "" {
			tk.BlockedBy = []string{prev}
		}
		tasks = append(tasks, tk)
		prev = id
	}
	err := NewGraph(tasks).Add([]Edge{{From: "T-399", To: "T-0"}})
	if errcode.Of(err) != errcode.DependencyCycle || len(err.Error()) > 300 || !strings.Contains(err.Error(), "(393 more)") {
		t.Fatalf("err = %v (%d bytes)", err, len(err.Error()))
	}
}
