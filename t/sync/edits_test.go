//go:build linux

package sync

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	gosync "sync"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// edit is one scalar update a machine made: field of task set to value,
// replacing what the machine's store held then.
type edit struct {
	id, field, value, replaced string
}

// log is what one machine did and was told.
type machineLog struct {
	edits     []edit
	meta      [][2]string // id, unique metadata key
	edges     [][2]string // id blockedBy blocker
	ticks     []int
	status    map[string]int // id → highest status rank set
	answers   []syncAnswer
	conflicts int // sync_conflict answers (budget ran out; retried later)
}

var rank = map[task.Status]int{task.Pending: 1, task.InProgress: 2, task.Completed: 3, task.Deleted: 4}

const planItems = 60

// TestRandomEdits: eight machines make random edits (creates, subject,
// description and owner updates, metadata keys, dependency additions,
// status moves, plan ticks) concurrently, syncing every few edits. Then
// every machine syncs until none pulls or pushes: all stores are
// byte-identical, every record validates, no merge was left to a person,
// and every update survived unless another update replaced it after seeing
// it, or both sides changed the same field and the sync answer reported the
// lost value. 96 edits; 1,000 with SYNC_SCALE≥1.
func TestRandomEdits(t *testing.T) {
	total := 96
	if scale() > 0 {
		total = 1000 * scale()
	}
	_, ms := newMachines(t, 8)
	var items strings.Builder
	items.WriteString("# Shared\n\n")
	for i := 1; i <= planItems; i++ {
		fmt.Fprintf(&items, "%d. [ ] item %d\n", i, i)
	}
	ms[0].must(nil, items.String(), "plan", "create", "shared")
	for i := 0; i < 8; i++ {
		ms[0].must(nil, "", "task-create", "-s", "seed "+strconv.Itoa(i))
	}
	for _, m := range ms {
		m.sync()
	}
	logs := make([]*machineLog, len(ms))
	var wg gosync.WaitGroup
	for i, m := range ms {
		logs[i] = &machineLog{status: map[string]int{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.randomEdits(rand.New(rand.NewPCG(uint64(i), 7)), total/len(ms), logs[i])
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Converge: sync round robin until a whole pass moves nothing.
	for pass := 0; ; pass++ {
		if pass == 5 {
			t.Fatal("the machines did not converge in 5 passes")
		}
		moved := false
		for i, m := range ms {
			a := m.sync()
			logs[i].answers = append(logs[i].answers, a)
			if a.Error != "" || a.Pulled+a.Pushed > 0 {
				moved = true
			}
		}
		if !moved {
			break
		}
	}
	ref := ms[0].files()
	for _, m := range ms[1:] {
		got := m.files()
		if len(got) != len(ref) {
			t.Fatalf("%s holds %d files, m0 %d", m.name, len(got), len(ref))
		}
		for p, c := range ref {
			if got[p] != c {
				t.Fatalf("%s: %s differs from m0's:\n%s\nvs\n%s", m.name, p, got[p], c)
			}
		}
	}
	recs := map[string]*task.Task{}
	for p, c := range ref {
		if !strings.HasPrefix(p, "tasks/") {
			continue
		}
		r, err := task.DecodeRecord([]byte(c))
		if err != nil {
			t.Fatalf("%s does not validate: %v", p, err)
		}
		recs[r.ID] = r
	}
	// What the answers reported as lost, and who replaced what.
	lost := map[string]bool{}  // id/field/value
	cycle := map[string]bool{} // id/blocker
	replaced := map[string]bool{}
	nEdits, nConflicts, nSyncConflicts, reported := 0, 0, 0, 0
	for _, l := range logs {
		nSyncConflicts += l.conflicts
		for _, a := range l.answers {
			for _, c := range a.Conflicts {
				reported++
				switch c.Rule {
				case "unmergeable", "removed_vs_changed":
					t.Errorf("a merge needed a person: %+v", c)
				case "cycle":
					var b string
					json.Unmarshal(c.Lost, &b)
					cycle[c.ID+"/"+b] = true
				default:
					var v string
					json.Unmarshal(c.Lost, &v)
					lost[c.ID+"/"+c.Field+"/"+v] = true
				}
			}
		}
		for _, e := range l.edits {
			replaced[e.id+"/"+e.field+"/"+e.replaced] = true
		}
	}
	for _, l := range logs {
		for _, e := range l.edits {
			nEdits++
			r := recs[e.id]
			final := map[string]string{"subject": r.Subject, "description": r.Description, "owner": r.Owner}[e.field]
			key := e.id + "/" + e.field + "/" + e.value
			switch {
			case final == e.value, replaced[key]:
			case lost[key]:
				nConflicts++
			default:
				t.Errorf("the update %s %s=%q was lost without a report (final %q)", e.id, e.field, e.value, final)
			}
		}
		for _, mk := range l.meta {
			nEdits++
			if _, ok := recs[mk[0]].Metadata[mk[1]]; !ok {
				t.Errorf("metadata key %s of %s was lost", mk[1], mk[0])
			}
		}
		for _, ed := range l.edges {
			nEdits++
			if !slices.Contains(recs[ed[0]].BlockedBy, ed[1]) && !cycle[ed[0]+"/"+ed[1]] {
				t.Errorf("the edge %s blockedBy %s was lost without a report", ed[0], ed[1])
			}
		}
		for id, rk := range l.status {
			nEdits++
			if rank[recs[id].Status] < rk {
				t.Errorf("%s is %s, but a machine moved it further", id, recs[id].Status)
			}
		}
		for _, n := range l.ticks {
			nEdits++
			if !strings.Contains(ref["plans/shared.md"], fmt.Sprintf("%d. [x] item %d\n", n, n)) {
				t.Errorf("the tick of item %d was lost", n)
			}
		}
	}
	t.Logf("%d machines, %d edits checked, %d records; %d decisions reported, %d scalar updates lost to the first-push rule (all reported), %d syncs ran out of budget and were retried",
		len(ms), nEdits, len(recs), reported, nConflicts, nSyncConflicts)
}

// randomEdits makes n random edits, syncing every 1-4 edits.
func (m *machine) randomEdits(rng *rand.Rand, n int, l *machineLog) {
	next := 1 + rng.IntN(4)
	for i := 0; i < n; i++ {
		m.randomEdit(rng, i, l)
		if next--; next == 0 {
			a := m.sync()
			if a.Error != "" {
				l.conflicts++
			}
			l.answers = append(l.answers, a)
			next = 1 + rng.IntN(4)
		}
	}
}

func (m *machine) ids() []string {
	ents, _ := os.ReadDir(filepath.Join(m.dir, ".matrixx", "tasks"))
	var ids []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "T-") && strings.HasSuffix(n, ".json") {
			ids = append(ids, strings.TrimSuffix(n, ".json"))
		}
	}
	return ids
}

func (m *machine) record(id string) *task.Task {
	b, err := os.ReadFile(filepath.Join(m.dir, ".matrixx", "tasks", id+".json"))
	if err != nil {
		m.t.Fatal(err)
	}
	r, err := task.DecodeRecord(b)
	if err != nil {
		m.t.Fatalf("%s: %s: %v", m.name, id, err)
	}
	return r
}

func (m *machine) randomEdit(rng *rand.Rand, i int, l *machineLog) {
	ids := m.ids()
	id := ids[rng.IntN(len(ids))]
	val := fmt.Sprintf("%s-%d", m.name, i)
	switch p := rng.IntN(100); {
	case p < 10:
		m.must(nil, "", "task-create", "-s", "c-"+val)
	case p < 50:
		field := []string{"subject", "description", "owner"}[rng.IntN(3)]
		r := m.record(id)
		old := map[string]string{"subject": r.Subject, "description": r.Description, "owner": r.Owner}[field]
		flag := map[string]string{"subject": "-s", "description": "-d", "owner": "--owner"}[field]
		args := []string{id, flag, field[:1] + "-" + val}
		if field == "owner" {
			// A deliberate reassignment names the current owner; a task
			// under another owner's live claim (a claim merged from
			// another machine) is refused with claim_conflict and left
			// alone: task-update never takes a claim over (docs/claims.md).
			args = append(args, "--expect-owner", old)
			if out, code := m.run("", "task-update", args...); code != 0 {
				if !strings.Contains(out, `"claim_conflict"`) && !strings.Contains(out, `"precondition_failed"`) {
					m.t.Errorf("%s: task-update %v exited %d: %s", m.name, args, code, out)
				}
				return
			}
		} else {
			m.must(nil, "", "task-update", args...)
		}
		l.edits = append(l.edits, edit{id: id, field: field, value: field[:1] + "-" + val, replaced: old})
	case p < 65:
		key := "k-" + val
		m.must(nil, "", "task-update", id, "--metadata", `{"`+key+`":"v"}`)
		l.meta = append(l.meta, [2]string{id, key})
	case p < 75:
		other := ids[rng.IntN(len(ids))]
		out, code := m.run("", "task-update", id, "--add-blocked-by", other)
		if code == 0 {
			l.edges = append(l.edges, [2]string{id, other})
		} else if !strings.Contains(out, "dependency_cycle") {
			m.t.Errorf("%s: task-update --add-blocked-by: %s", m.name, out)
		}
	case p < 87:
		r := m.record(id)
		next := map[task.Status]task.Status{task.Pending: task.InProgress, task.InProgress: task.Completed}[r.Status]
		if next == "" {
			return
		}
		m.must(nil, "", "task-update", id, "--status", string(next))
		if rank[next] > l.status[id] {
			l.status[id] = rank[next]
		}
	default:
		n := 1 + rng.IntN(planItems)
		m.must(nil, "", "plan", "check", "shared", strconv.Itoa(n))
		l.ticks = append(l.ticks, n)
	}
}
