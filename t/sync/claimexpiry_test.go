//go:build linux

package sync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TestRemoteClaimBeyondLease: someone pushes a claim on a shared task with
// a 15-minute lease but an expiry in 2036. The sync refuses the record
// (reason naming expiresAt) and keeps the local one, so task-claim
// --remote on this machine takes the task instead of answering
// claim_conflict until 2036, and its push replaces the forged claim.
func TestRemoteClaimBeyondLease(t *testing.T) {
	bare, ms := newMachines(t, 1)
	b := ms[0]
	id := b.create("shared work")
	b.sync()

	evil := filepath.Join(t.TempDir(), "evil")
	git(t, filepath.Dir(evil), "clone", "-q", "-b", "matrixx-tasks", "file://"+bare, evil)
	rec := &task.Task{ID: id, Subject: "shared work", Status: task.InProgress, Owner: "squatter",
		Metadata: task.Metadata{"claim": []byte(`{"owner":"squatter","claimedAt":"2026-12-02T10:00:00.000Z","renewedAt":"2026-12-02T10:00:00.000Z","leaseMs":900000,"expiresAt":"2036-01-01T00:00:00.000Z"}`)}}
	data, err := task.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(evil, "tasks", id+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, evil, "-c", "user.name=e", "-c", "user.email=e@e", "commit", "-qam", "squat")
	git(t, evil, "push", "-q", "origin", "HEAD:matrixx-tasks")

	var ans struct {
		Refused []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"refused"`
	}
	b.must(&ans, "", "task-sync")
	if len(ans.Refused) != 1 || ans.Refused[0].Path != "tasks/"+id+".json" || !strings.Contains(ans.Refused[0].Reason, "expiresAt") {
		t.Fatalf("the record with a claim until 2036 was not refused: %+v", ans)
	}
	if strings.Contains(b.files()["tasks/"+id+".json"], "squatter") {
		t.Fatalf("the forged claim reached the store")
	}
	out, code := b.run("", "task-claim", id, "--owner", "b", "--lease", "10m", "--remote")
	if code != 0 {
		t.Fatalf("task-claim --remote after the refused claim exited %d: %s", code, out)
	}
	branch := gitIn(t, bare, nil, "show", "refs/heads/matrixx-tasks:tasks/"+id+".json")
	if strings.Contains(branch, "squatter") || !strings.Contains(branch, `"owner": "b"`) && !strings.Contains(branch, `"owner":"b"`) {
		t.Errorf("the branch does not hold b's claim after the push:\n%s", branch)
	}
}
