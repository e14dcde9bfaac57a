package plan

import (
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

func TestOpenItems(t *testing.T) {
	s := newStore(t)
	mustCreate(t, s, "auth", "# Auth\n1. [ ] a\n2. [x] b\n```\n3. [ ] in a fence\n```\n4. [ ] d\n")
	other := newStore(t)
	mustCreate(t, other, "auth", "1. [x] a\n4. [ ] d\n")
	tk := func(root, name, item string) *task.Task {
		m := task.Metadata{}
		if name != "" {
			m["planName"] = jsontext.Value(name)
		}
		if item != "" {
			m["planItem"] = jsontext.Value(item)
		}
		return &task.Task{Status: task.Completed, ProjectRoot: root, Metadata: m}
	}
	tests := []struct {
		task *task.Task
		want bool
	}{
		{tk("", `"auth"`, `1`), true},
		{tk(s.Root, `"auth"`, `"1"`), true},
		{tk(s.Root, `"auth"`, `2`), false},    // ticked
		{tk(s.Root, `"auth"`, `3`), false},    // not an item (in a fence)
		{tk(s.Root, `"auth"`, `4`), true},     // after the fence
		{tk(s.Root, `"auth"`, `9`), false},    // no such item
		{tk(s.Root, `"gone"`, `1`), false},    // no such plan
		{tk(s.Root, `"../x"`, `1`), false},    // not a plan name
		{tk(s.Root, `"auth"`, ``), false},     // no planItem
		{tk(s.Root, ``, `1`), false},          // no planName
		{tk("relative", `"auth"`, `1`), true}, // not absolute: this project
		{tk(other.Root, `"auth"`, `1`), false},
		{tk(other.Root, `"auth"`, `4`), true},
	}
	// a shared store (docs/design/decisions.md, "Canonical roots"): a task of another project is looked up there
	o := NewOpenItems(s.Root, project.NewMatcher(s.Root, false).Same)
	for i, tt := range tests {
		if got := o.Has(tt.task); got != tt.want {
			t.Errorf("%d: Has(%v, %s) = %v, want %v", i, tt.task.Metadata, tt.task.ProjectRoot, got, tt.want)
		}
	}
	// each plan is read once
	if len(o.plans) != 3 || o.plans[filepath.Join(DirOf(s.Root), "gone.md")] != nil {
		t.Errorf("plans read: %v", o.plans)
	}

	// the project's own store: every task is looked up here, so a task
	// filed before the project moved (or of a root now gone) keeps its item
	own := NewOpenItems(s.Root, project.NewMatcher(s.Root, true).Same)
	for i, tt := range []struct {
		task *task.Task
		want bool
	}{
		{tk(other.Root, `"auth"`, `1`), true}, // item 1 is open here, ticked there
		{tk(other.Root, `"auth"`, `2`), false},
		{tk(filepath.Join(t.TempDir(), "moved-away"), `"auth"`, `4`), true},
	} {
		if got := own.Has(tt.task); got != tt.want {
			t.Errorf("own %d: Has(%v, %s) = %v, want %v", i, tt.task.Metadata, tt.task.ProjectRoot, got, tt.want)
		}
	}
}
