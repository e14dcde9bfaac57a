package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// syncBench measures task-sync between two clones of one bare repository
// (file:// remote) holding a 1,000-task store: a sync with nothing to do
// against a bare `git fetch` of the same remote, alternated (bar: median ≤
// 2×), and one sync that merges 1,000 tasks changed on both sides (median
// quoted) beside one that takes the same 1,000 remote changes with nothing
// changed locally (a fast-forward).
func (b *bench) syncBench() error {
	const n = 1000
	s, err := b.store(n)
	if err != nil {
		return err
	}
	top := filepath.Join(b.tmp, "sync")
	bare := filepath.Join(top, "remote.git")
	a, c := filepath.Join(top, "a"), filepath.Join(top, "b")
	git := func(dir string, args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	if err := os.MkdirAll(top, 0o755); err != nil {
		return err
	}
	if err := git(top, "init", "-q", "--bare", bare); err != nil {
		return err
	}
	for _, d := range []string{a, c} {
		if err := git(top, "clone", "-q", "file://"+bare, d); err != nil {
			return err
		}
	}
	if err := exec.Command("cp", "-r", filepath.Join(s.root, ".matrixx"), a).Run(); err != nil {
		return err
	}
	syncIn := func(dir string) *command {
		return &command{Argv: []string{b.exe("task-sync")}, Dir: dir, Env: []string{"PATH=" + b.bin + ":" + os.Getenv("PATH")}}
	}
	for _, d := range []string{a, c} {
		x, err := b.r.run(syncIn(d))
		if err != nil {
			return err
		}
		b.logf("first sync in %s: %s", filepath.Base(d), strings.TrimSpace(string(x.Stdout)))
	}
	// A sync trusts a file's cached blob id only once the file's stat data
	// are older than the racy window (2 s, docs/sync.md "Speed"): every
	// sync within 2 s of b's pull rehashes the 1,000 files it just wrote.
	// "Nothing to do" is the state of a sync run minutes after the last
	// change (cron, a hook): wait the window out and let one sync record it.
	time.Sleep(2100 * time.Millisecond)
	if _, err := b.r.run(syncIn(c)); err != nil {
		return err
	}
	fetch := &command{Argv: []string{"git", "fetch", "-q", "origin"}, Dir: c}
	idle, bare1, err := b.r.alternate(b.runs, 2, syncIn(c), fetch)
	if err != nil {
		return err
	}
	q := ratio(idle.median(), bare1.median())
	// 1,000 changes on the remote (pushed from a) and, for the merge, 1,000
	// on b: every record changed on both sides, in different fields.
	round := 0
	edit := func(dir, key string) error {
		td := filepath.Join(dir, ".matrixx", "tasks")
		for _, id := range s.ids {
			p := filepath.Join(td, task.FileName(id))
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			t, err := task.DecodeRecord(data)
			if err != nil {
				return err
			}
			if t.Metadata == nil {
				t.Metadata = task.Metadata{}
			}
			t.Metadata[key] = jsontext.Value(fmt.Sprint(round))
			out, err := task.Encode(t)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, out, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	prepare := func(local bool) func() error {
		return func() error {
			round++
			if err := edit(a, "fromA"); err != nil {
				return err
			}
			if _, err := b.r.run(syncIn(a)); err != nil {
				return err
			}
			if local {
				return edit(c, "fromB")
			}
			return nil
		}
	}
	merge := syncIn(c)
	merge.Before = prepare(true)
	ff := syncIn(c)
	ff.Before = prepare(false)
	runs := max(5, b.runs/3)
	// One check run: a real 1,000-record merge.
	x, err := b.r.run(merge)
	if err != nil {
		return err
	}
	var ans struct {
		Merged int `json:"merged"`
	}
	if err := json.Unmarshal(x.Stdout, &ans); err != nil || ans.Merged != n {
		return fmt.Errorf("the merge sync merged %d records, want %d: %s %s", ans.Merged, n, x.Stdout, x.Stderr)
	}
	sm, sf, err := b.r.alternate(runs, 0, merge, ff)
	if err != nil {
		return err
	}
	b.table("Sync: task-sync between two clones of a file:// remote, 1,000-task store",
		[]string{"figure", "task-sync median", "baseline", "baseline median", "ratio", "bar", "", "min (sync / baseline)", "CPU median (sync / baseline)"},
		[][]string{
			{"nothing to do", ms(idle.median()), "git fetch origin", ms(bare1.median()), fmt.Sprintf("%.2f×", q), "≤ 2×", verdict(q <= 2),
				ms(idle.quantile(0)) + " / " + ms(bare1.quantile(0)), ms(idle.cpu()) + " / " + ms(bare1.cpu())},
			{"merge 1,000 tasks changed on both sides", ms(sm.median()), "the same 1,000 remote changes, none local (fast-forward)", ms(sf.median()),
				fmt.Sprintf("%.2f×", ratio(sm.median(), sf.median())), "median quoted", "",
				ms(sm.quantile(0)) + " / " + ms(sf.quantile(0)), ms(sm.cpu()) + " / " + ms(sf.cpu())},
		})
	return nil
}
