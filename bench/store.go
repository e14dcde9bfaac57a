package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// storeShape describes a generated store: how many tasks and how they are
// spread over statuses and time.
type storeShape struct {
	// Tasks is the number of T-*.json records.
	Tasks int
	// Recent is how many of the newest records have an mtime inside the
	// dedup window (the rest are hours to weeks old, as in a store that has
	// been used for a while).
	Recent int
}

// words feed subjects and descriptions, so records have the length and
// variety of real ones.
var words = strings.Fields(`build test deploy refactor migrate document review fix add remove
backend frontend api schema cache index queue worker scheduler parser lexer renderer router
handler service client server auth token session login logout billing invoice report export
import config logging metrics tracing retry timeout backoff lock store record plan wave task
validate sanitize encode decode compress upload download search filter sort paginate`)

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

// makeStore writes shape.Tasks realistic records into root/.matrixx/tasks:
// about 55% completed, 5% deleted, 28% pending, 12% in_progress; a third
// blocked by one to three earlier tasks, some blocking later ones, half
// with plan metadata, owners on tasks in progress. File mtimes run from
// 30 days ago to 11 minutes ago, except the newest shape.Recent files,
// which fall inside the dedup window. It returns the ids in creation order.
func makeStore(root string, shape storeShape, seed uint64) ([]string, error) {
	dir := filepath.Join(root, ".matrixx", "tasks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	ids := make([]string, shape.Tasks)
	for i := range ids {
		// Ids are UUIDv7-shaped and ordered like real ones (creation
		// order), but derived from the seed so runs are comparable.
		ms := uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()) + uint64(i)*1000
		ids[i] = fmt.Sprintf("T-%08x-%04x-7%03x-%04x-%012x", ms>>16, ms&0xffff, r.IntN(0x1000), 0x8000|r.IntN(0x4000), r.Uint64()&0xffffffffffff)
	}
	now := time.Now()
	oldest := now.Add(-30 * 24 * time.Hour)
	newestOld := now.Add(-11 * time.Minute)
	for i, id := range ids {
		t := &task.Task{
			ID:          id,
			Subject:     capitalize(sentence(r, 4+r.IntN(6))),
			Description: sentence(r, 20+r.IntN(60)),
			ThreadID:    fmt.Sprintf("ses_%016x", r.Uint64()%8),
			ProjectRoot: root,
		}
		switch p := r.IntN(100); {
		case p < 55:
			t.Status = task.Completed
		case p < 60:
			t.Status = task.Deleted
		case p < 88:
			t.Status = task.Pending
		default:
			t.Status = task.InProgress
			t.Owner = "agent-" + fmt.Sprint(r.IntN(4))
			t.ActiveForm = "Working on " + sentence(r, 3)
		}
		if i > 0 && r.IntN(3) == 0 {
			for range 1 + r.IntN(3) {
				b := ids[r.IntN(i)]
				if !contains(t.BlockedBy, b) {
					t.BlockedBy = append(t.BlockedBy, b)
				}
			}
		}
		if i+1 < len(ids) && r.IntN(8) == 0 {
			t.Blocks = []string{ids[i+1+r.IntN(min(len(ids)-i-1, 50))]}
		}
		if r.IntN(2) == 0 {
			t.Metadata = task.Metadata{
				"planName": jsontext.Value(fmt.Sprintf("%q", "plan-"+words[r.IntN(len(words))])),
				"planItem": jsontext.Value(fmt.Sprint(1 + r.IntN(40))),
			}
		}
		if r.IntN(4) == 0 {
			t.Priority = []task.Priority{"low", "medium", "high"}[r.IntN(3)]
		}
		data, err := task.Encode(t)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, task.FileName(id))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		var mtime time.Time
		if i >= len(ids)-shape.Recent {
			mtime = now.Add(-time.Duration(len(ids)-i) * time.Second)
		} else {
			frac := float64(i) / float64(len(ids))
			mtime = oldest.Add(time.Duration(frac * float64(newestOld.Sub(oldest))))
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
