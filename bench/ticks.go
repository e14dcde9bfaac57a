package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// ticksCompare times each operation of ours against the same operation of
// ticks (tk: Go, one JSON file per task in .tick/issues, the closest peer)
// over the same 10,000 generated tasks, alternated, and reports ticks /
// ours (higher: we are faster; the goal is ≥ 3×). tk is not a Go module
// the proxy serves: build it from its source (`go build ./cmd/tk` in a
// checkout) and pass it with -ticks; without it the section is skipped.
func (b *bench) ticksCompare() error {
	tk := b.ticks
	if tk == "" {
		if p, err := exec.LookPath("tk"); err == nil {
			tk = p
		}
	}
	if tk == "" {
		fmt.Fprintln(b.out, "### ours vs ticks\n\nSkipped: no tk binary (-ticks PATH).")
		return nil
	}
	const n = 10000
	root, ids, err := b.writableStore(n, false)
	if err != nil {
		return err
	}
	tdir := filepath.Join(b.tmp, "ticks-10000")
	tids, err := b.ticksStore(tk, tdir, root, ids)
	if err != nil {
		return err
	}
	seq := 0
	target, ttarget := ids[len(ids)-1], tids[len(tids)-1]
	ours := map[string]*command{
		"ready": {Argv: []string{b.exe("task-list"), "--ready", "-C", root}},
		"list":  {Argv: []string{b.exe("task-list"), "-C", root}},
		"get":   {Argv: []string{b.exe("task-get"), "-C", root, target}},
	}
	theirs := map[string]*command{
		"ready": {Argv: []string{tk, "ready", "--all", "--json"}, Dir: tdir},
		"list":  {Argv: []string{tk, "list", "--all", "--json"}, Dir: tdir},
		"get":   {Argv: []string{tk, "show", ttarget, "--json"}, Dir: tdir},
	}
	oc := &command{Argv: []string{b.exe("task-create"), "-C", root}}
	oc.Before = func() error {
		seq++
		oc.Stdin = []byte(fmt.Sprintf(`{"subject":"Peer bench task %d","description":"Created by the peer benchmark."}`, seq))
		return nil
	}
	tc := &command{Dir: tdir}
	tc.Before = func() error {
		seq++
		tc.Argv = []string{tk, "create", fmt.Sprintf("Peer bench task %d", seq), "-d", "Created by the peer benchmark."}
		return nil
	}
	ou := &command{Argv: []string{b.exe("task-update"), "-C", root}}
	ou.Before = func() error {
		seq++
		ou.Stdin = []byte(fmt.Sprintf(`{"id":%q,"description":"Update %d"}`, ids[(seq*7919)%len(ids)], seq))
		return nil
	}
	tu := &command{Dir: tdir}
	tu.Before = func() error {
		seq++
		tu.Argv = []string{tk, "update", tids[(seq*7919)%len(tids)], "--description", fmt.Sprintf("Update %d", seq)}
		return nil
	}
	ours["create"], theirs["create"] = oc, tc
	ours["update"], theirs["update"] = ou, tu
	var rows [][]string
	for _, op := range []string{"ready", "list", "get", "create", "update"} {
		so, st, err := b.r.alternate(b.runs, 2, ours[op], theirs[op])
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		q := ratio(st.median(), so.median())
		rows = append(rows, []string{op, ms(so.median()), ms(st.median()), fmt.Sprintf("%.2f×", q), "≥ 3×", verdict(q >= 3),
			ms(so.cpu()) + " / " + ms(st.cpu())})
	}
	b.table("Ours vs ticks at 10,000 tasks (same generated tasks; ticks / ours, higher: we are faster)",
		[]string{"operation", "ours median", "ticks median", "ticks / ours", "bar", "", "CPU median (ours / ticks)"}, rows)
	return nil
}

// ticksStore makes a ticks project in dir holding the tasks of our store at
// root, one .tick/issues/<id>.json each (completed and deleted tasks
// closed, blockers kept), and returns the tick ids in the same order.
func (b *bench) ticksStore(tk, dir, root string, ids []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, argv := range [][]string{
		{"git", "init", "-q"}, {"git", "config", "user.email", "bench@example.invalid"}, {"git", "config", "user.name", "bench"},
		{"git", "remote", "add", "origin", "https://example.invalid/bench/peer.git"}, {tk, "init"},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = b.r.env
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%v: %v: %s", argv, err, out)
		}
	}
	tid := map[string]string{}
	tids := make([]string, len(ids))
	for i, id := range ids {
		tids[i] = "b" + strconv.FormatInt(int64(i)+36*36*36, 36)
		tid[id] = tids[i]
	}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range ids {
		data, err := os.ReadFile(filepath.Join(root, ".matrixx", "tasks", task.FileName(id)))
		if err != nil {
			return nil, err
		}
		t, err := task.DecodeRecord(data)
		if err != nil {
			return nil, err
		}
		at := created.Add(time.Duration(i) * time.Second)
		v := map[string]any{
			"id": tids[i], "title": t.Subject, "description": t.Description, "status": "open", "priority": 2, "type": "task",
			"owner": "bench@example.invalid", "created_by": "bench@example.invalid", "created_at": at, "updated_at": at,
		}
		switch t.Status {
		case task.Completed, task.Deleted:
			v["status"], v["closed_at"] = "closed", at
		case task.InProgress:
			v["status"] = "in_progress"
		}
		var blockers []string
		for _, x := range t.BlockedBy {
			blockers = append(blockers, tid[x])
		}
		if len(blockers) > 0 {
			v["blocked_by"] = blockers
		}
		out, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, ".tick", "issues", tids[i]+".json"), out, 0o644); err != nil {
			return nil, err
		}
	}
	return tids, nil
}
