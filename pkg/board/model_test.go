package board

import (
	"slices"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestLeaseOverlaps: live leases that may cover a common path pair up;
// an expired claim's, a pending task's declared paths and disjoint leases
// do not.
func TestLeaseOverlaps(t *testing.T) {
	now := time.Now().UTC()
	held := func(id, owner string, ends time.Time, paths string) *task.Task {
		return &task.Task{ID: id, Subject: id, Status: task.InProgress, Owner: owner, Metadata: task.Metadata{
			"claim": jsontext.Value(`{"owner":"` + owner + `","claimedAt":"` + now.Add(-2*time.Hour).Format("2006-01-02T15:04:05.000Z") + `","expiresAt":"` + ends.Format("2006-01-02T15:04:05.000Z") + `","paths":` + paths + `}`)}}
	}
	later, earlier := now.Add(time.Hour), now.Add(-time.Minute)
	tasks := map[string]*task.Task{
		"T-a": held("T-a", "ann", later, `["src/api/**"]`),
		"T-b": held("T-b", "bob", later, `["src/*/x.go"]`),
		"T-c": held("T-c", "cy", later, `["docs"]`),
		"T-d": held("T-d", "dee", earlier, `["src/api"]`),
		"T-e": {ID: "T-e", Subject: "e", Status: task.Pending, Metadata: task.Metadata{"paths": jsontext.Value(`["src/api/**"]`)}},
	}
	got := leaseOverlaps(tasks, now)
	if !slices.Equal(got["T-a"], []string{"T-b"}) || !slices.Equal(got["T-b"], []string{"T-a"}) || len(got) != 2 {
		t.Fatalf("overlaps: %v", got)
	}
	var m model
	m.rebuild(tasks, map[string]feed.Class{})
	if c := m.cards["T-a"]; !slices.Equal(c.Overlaps, []string{"T-b"}) || !slices.Equal(c.Leases, []string{"src/api/**"}) {
		t.Fatalf("card of T-a: %+v", c)
	}
	if c := m.cards["T-e"]; !slices.Equal(c.Paths, []string{"src/api/**"}) || c.Leases != nil {
		t.Fatalf("card of a pending task with declared paths: %+v", c)
	}
}
