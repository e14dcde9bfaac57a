package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// swarm reports the swarm-scale goals on 100,000 tasks (makeStore's shape)
// with 20,000 claims held by 10,000 owners (a tenth of them expired):
// task-list --ready (≤ 1 s, ≤ 96 MiB), task-claim --owner W of the next
// ready task (≤ 30 ms; beside the locked durable-write floor), the listing
// of who holds what with expired leases marked (task-list --status
// in_progress: owner and claimExpired; ≤ 1 s) and task-doctor (≤ 3 s).
// -quick uses 10,000 tasks and 2,000 claims.
func (b *bench) swarm() error {
	n, claims := 100000, 20000
	if b.quick {
		n, claims = 10000, 2000
	}
	tmpl, ids, err := b.cachedStore(n)
	if err != nil {
		return err
	}
	root, err := b.swarmStore(tmpl, n, ids, claims)
	if err != nil {
		return err
	}
	var rows [][]string
	row := func(what, fig, floor, bar string, ok bool, note string) {
		rows = append(rows, []string{what, fig, floor, bar, verdict(ok), note})
	}
	ready := &command{Argv: []string{b.exe("task-list"), "--ready", "-C", root}}
	held := &command{Argv: []string{b.exe("task-list"), "--status", "in_progress", "-C", root}}
	doctor := &command{Argv: []string{b.exe("task-doctor"), "-C", root}, Exits: []int{0, 1}}
	seq := 0
	claimNext := &command{}
	claimNext.Before = func() error {
		seq++
		claimNext.Argv = []string{b.exe("task-claim"), "-C", root, "--owner", fmt.Sprintf("agent-%d", seq%10000), "--lease", "1h"}
		return nil
	}
	floorDir := filepath.Join(b.tmp, "floor-swarm")
	if err := os.MkdirAll(floorDir, 0o755); err != nil {
		return err
	}
	floor := &command{Argv: []string{b.exe("readstdin"), "-lock", filepath.Join(floorDir, "T-floor.json")}, Stdin: []byte(`{"subject":"floor"}`)}
	// The claim alternates with its floor alone: each listing after a
	// claim rewrites the 24 MB list index, and in one rotation with the
	// listings the claim's fsync (and the floor's) paid for writing it back.
	lists, err := b.r.rotate(b.runs, 1, ready, held)
	if err != nil {
		return err
	}
	timed, err := b.r.rotate(b.runs, 1, claimNext, floor)
	if err != nil {
		return err
	}
	sr, sh, sc, sf := lists[0], lists[1], timed[0], timed[1]
	rss, rssFloor, err := b.peakRSS(ready)
	if err != nil {
		return err
	}
	sd, err := b.r.repeat(max(3, b.runs/3), 1, doctor)
	if err != nil {
		return err
	}
	size := fmt.Sprintf("%s tasks, %s claims", thousands(n), thousands(claims))
	row("task-list --ready, "+size, ms(sr.median()), "", "≤ 1 s", sr.median() <= time.Second, "CPU "+ms(sr.cpu()))
	row("task-list --ready peak RSS", fmt.Sprintf("%.1f MiB", float64(rss)/1024), fmt.Sprintf("readstdin %.1f MiB", float64(rssFloor)/1024), "≤ 96 MiB", float64(rss)/1024 <= 96, "")
	row("task-claim --owner W (next ready task)", ms(sc.median()), "locked durable write "+ms(sf.median()), "≤ 30 ms", sc.median() <= 30*time.Millisecond, "CPU "+ms(sc.cpu())+", min "+ms(sc.quantile(0))+" (floor "+ms(sf.quantile(0))+")")
	row("who holds what: task-list --status in_progress (owner, claimExpired)", ms(sh.median()), "", "≤ 1 s", sh.median() <= time.Second, "CPU "+ms(sh.cpu()))
	row("task-doctor", ms(sd.median()), "", "≤ 3 s", sd.median() <= 3*time.Second, "CPU "+ms(sd.cpu()))
	b.table("Swarm scale: "+size+" held by 10,000 owners (medians)",
		[]string{"figure", "median", "floor", "bar", "", "note"}, rows)
	return nil
}

// swarmStore copies the generated store and gives claims of its pending
// and in-progress tasks to owners agent-0 … agent-9999 (lease 30 days, a
// tenth already expired), returning the copy's root.
func (b *bench) swarmStore(tmpl string, n int, ids []string, claims int) (string, error) {
	b.seq++
	root := filepath.Join(b.tmp, fmt.Sprintf("swarm-%d-%d", n, b.seq))
	if out, err := exec.Command("cp", "-a", tmpl, root).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying the %d-task store: %v: %s", n, err, out)
	}
	dir := filepath.Join(root, ".matrixx", "tasks")
	now := time.Now()
	given := 0
	for i := len(ids) - 1; i >= 0 && given < claims; i-- {
		p := filepath.Join(dir, task.FileName(ids[i]))
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		t, err := task.DecodeRecord(data)
		if err != nil {
			return "", err
		}
		if !t.Status.Active() {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", err
		}
		owner := fmt.Sprintf("agent-%d", given%10000)
		at := now.Add(-time.Hour)
		c := &claim.Claim{Owner: owner, ClaimedAt: claim.Stamp(at)}
		if given%10 == 0 {
			c.Extend(at, 30*time.Minute) // expired half an hour ago
		} else {
			c.Extend(at, 30*24*time.Hour)
		}
		t.Status, t.Owner = task.InProgress, owner
		claim.Set(t, c)
		out, err := task.Encode(t)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(p, out, 0o644); err != nil {
			return "", err
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			return "", err
		}
		given++
	}
	b.logf("gave %s claims in the %s-task swarm store", thousands(given), thousands(n))
	return root, nil
}
