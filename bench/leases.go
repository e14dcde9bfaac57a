package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
)

// leases measures what path leases add to a PreToolUse call
// (docs/leases.md): matrixx-hook on the same events in projects with 0,
// 100 and 10,000 live leases held by another session, each alternated
// with the 0-lease project; the added cost is the difference of medians.
func (b *bench) leases() error {
	counts := []int{0, 100, 10_000}
	roots := map[int]string{}
	for _, n := range counts {
		root := filepath.Join(b.tmp, fmt.Sprintf("lease-project-%d", n))
		if _, err := makeStore(root, storeShape{Tasks: 200, Recent: 5}, 1); err != nil {
			return err
		}
		entries := make([]claim.IndexEntry, n)
		exp := claim.Stamp(time.Now().Add(24 * time.Hour))
		for i := range entries {
			entries[i] = claim.IndexEntry{Glob: fmt.Sprintf("pkg/mod%05d/**", i), Task: fmt.Sprintf("T-bench-%05d", i),
				Subject: "leased work", Owner: "agent-other", Session: "other-session", ExpiresAt: exp}
		}
		if err := claim.WriteIndex(claim.IndexFile(filepath.Join(root, ".matrixx", "tasks")), entries); err != nil {
			return err
		}
		roots[n] = root
	}
	type event struct {
		name string
		make func(root string) []byte
	}
	events := []event{
		{"Write outside every lease (allow)", func(root string) []byte {
			return hookEvent(root, "Write", map[string]any{"file_path": filepath.Join(root, "src", "main.go"), "content": "package main\n"})
		}},
		{"Bash sed -i outside every lease (allow)", func(root string) []byte {
			return hookEvent(root, "Bash", map[string]any{"command": "sed -i s/a/b/ src/main.go", "description": "edit"})
		}},
		{"Write into a leased directory (deny with 100 and 10,000)", func(root string) []byte {
			return hookEvent(root, "Write", map[string]any{"file_path": filepath.Join(root, "pkg", "mod00050", "x.go"), "content": "package x\n"})
		}},
	}
	hook := func(root string, data []byte) *command {
		return &command{Argv: []string{b.exe("matrixx-hook")}, Dir: root, Env: []string{"CLAUDE_PROJECT_DIR=" + root},
			Stdin: data, Exits: []int{0, 2}}
	}
	var rows [][]string
	for _, ev := range events {
		for _, n := range counts[1:] {
			with := hook(roots[n], ev.make(roots[n]))
			without := hook(roots[0], ev.make(roots[0]))
			sw, s0, err := b.r.alternate(b.runs, 3, with, without)
			if err != nil {
				return err
			}
			rows = append(rows, []string{ev.name, thousands(n), ms(s0.median()), ms(sw.median()), ms(sw.median() - s0.median())})
		}
	}
	fi, _ := os.Stat(claim.IndexFile(filepath.Join(roots[10_000], ".matrixx", "tasks")))
	size := "?"
	if fi != nil {
		size = fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
	}
	b.table("Path leases: matrixx-hook PreToolUse with N live leases of another session vs none (the 10,000-lease index is "+size+")",
		[]string{"event", "leases", "median, no lease", "median, N leases", "added"}, rows)
	return nil
}
