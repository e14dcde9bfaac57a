package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
)

// Contention: 16 processes × 50 calls each.
const (
	contenders = 16
	callsEach  = 50
)

// call is the outcome of one contended process.
type call struct {
	wall   time.Duration
	code   int
	stdout []byte
	stderr []byte
	lock   *lockStat
}

// lockStat is the MATRIXX_DEBUG line's JSON: lock.Stats as the binaries
// print it.
type lockStat struct {
	WaitedNs int64 `json:"waitedNs"`
	Attempts int   `json:"attempts"`
	Evicted  int   `json:"evicted"`
	Kernel   bool  `json:"kernel"`
}

// contentionResult sums up one storm of calls.
type contentionResult struct {
	wall        time.Duration
	calls       []call
	unavailable int
	failed      int
	lost        int
}

// storm runs contenders goroutines, each starting callsEach processes one
// after the other; input(w, i) is the stdin of worker w's i-th call.
func (b *bench) storm(argv []string, input func(w, i int) []byte) *contentionResult {
	res := &contentionResult{calls: make([]call, contenders*callsEach)}
	var wg sync.WaitGroup
	start := time.Now()
	for w := range contenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range callsEach {
				c := &res.calls[w*callsEach+i]
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = append(slices.Clone(b.r.env), "MATRIXX_DEBUG=1")
				cmd.Stdin = bytes.NewReader(input(w, i))
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				t0 := time.Now()
				err := cmd.Run()
				c.wall = time.Since(t0)
				if ee, ok := err.(*exec.ExitError); ok {
					c.code = ee.ExitCode()
				} else if err != nil {
					c.code = -1
				}
				c.stdout, c.stderr = out.Bytes(), errb.Bytes()
				c.lock = lockStats(c.stderr)
			}
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	for _, c := range res.calls {
		if c.code != 0 {
			res.failed++
			if bytes.Contains(c.stdout, []byte(`"task_lock_unavailable"`)) {
				res.unavailable++
			}
		}
	}
	return res
}

// lockStats parses the MATRIXX_DEBUG line "<bin>: debug: lock {…}".
func lockStats(stderr []byte) *lockStat {
	for _, line := range strings.Split(string(stderr), "\n") {
		i := strings.Index(line, ": debug: lock ")
		if i < 0 {
			continue
		}
		var s lockStat
		if json.Unmarshal([]byte(line[i+len(": debug: lock "):]), &s) == nil {
			return &s
		}
	}
	return nil
}

// contention measures 16 processes × 50 task-update calls on one task
// (each merging a metadata key of its own, so a lost update shows as a
// missing key) and 16 × 50 task-create calls (unique subjects), in a store
// of 1,000 tasks with default settings.
func (b *bench) contention() error {
	// A store of its own: the storm adds 800 tasks.
	root := filepath.Join(b.tmp, "contention")
	ids, err := makeStore(root, storeShape{Tasks: 1000, Recent: 20}, 1000)
	if err != nil {
		return err
	}
	s := &scaleStore{root: root, dir: filepath.Join(root, ".matrixx", "tasks"), ids: ids}
	target := s.ids[len(s.ids)-1]
	key := func(w, i int) string { return fmt.Sprintf("bench-w%02d-c%02d", w, i) }
	upd := b.storm([]string{b.exe("task-update"), "-C", s.root}, func(w, i int) []byte {
		return []byte(fmt.Sprintf(`{"id":%q,"metadata":{%q:true}}`, target, key(w, i)))
	})
	// Every acknowledged update must be in the final record.
	x, err := b.r.run(&command{Argv: []string{b.exe("task-get"), "-C", s.root, target}})
	if err != nil {
		return err
	}
	var got struct {
		Task struct {
			Metadata map[string]any `json:"metadata"`
		} `json:"task"`
	}
	if err := json.Unmarshal(x.Stdout, &got); err != nil {
		return err
	}
	for w := range contenders {
		for i := range callsEach {
			if upd.calls[w*callsEach+i].code == 0 && got.Task.Metadata[key(w, i)] != true {
				upd.lost++
			}
		}
	}

	crt := b.storm([]string{b.exe("task-create"), "-C", s.root}, func(w, i int) []byte {
		return []byte(fmt.Sprintf(`{"subject":"Contended create %d.%d","blockedBy":[%q]}`, w, i, target))
	})
	// Every acknowledged id must exist, and all must differ.
	seen := map[string]bool{}
	for _, c := range crt.calls {
		if c.code != 0 {
			continue
		}
		var ans struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		}
		if json.Unmarshal(c.stdout, &ans) != nil || len(ans.Tasks) != 1 || seen[ans.Tasks[0].ID] {
			crt.lost++
			continue
		}
		seen[ans.Tasks[0].ID] = true
		if _, err := b.r.run(&command{Argv: []string{b.exe("task-get"), "-C", s.root, ans.Tasks[0].ID}}); err != nil {
			crt.lost++
		}
	}

	var rows [][]string
	for _, r := range []struct {
		name string
		res  *contentionResult
	}{{"task-update, one task", upd}, {"task-create", crt}} {
		lat := &series{}
		waits := &series{}
		maxAttempts, evicted, kernel := 0, 0, 0
		for _, c := range r.res.calls {
			lat.Walls = append(lat.Walls, c.wall)
			if c.lock != nil {
				waits.Walls = append(waits.Walls, time.Duration(c.lock.WaitedNs))
				maxAttempts = max(maxAttempts, c.lock.Attempts)
				evicted += c.lock.Evicted
				if c.lock.Kernel {
					kernel++
				}
			}
		}
		n := len(r.res.calls)
		waitCol := ms(waits.median()) + " / " + ms(waits.quantile(0.99)) + " / " + ms(waits.quantile(1))
		attemptCol := fmt.Sprintf("%d (%d of %d with flock)", maxAttempts, kernel, n)
		if len(waits.Walls) == 0 {
			waitCol, attemptCol = "n/a (no debug line)", "n/a"
		}
		rows = append(rows, []string{
			r.name,
			fmt.Sprintf("%d × %d", contenders, callsEach),
			fmt.Sprintf("%.2f s", r.res.wall.Seconds()),
			fmt.Sprintf("%.0f/s", float64(n)/r.res.wall.Seconds()),
			ms(lat.median()) + " / " + ms(lat.quantile(0.99)),
			waitCol,
			attemptCol,
			fmt.Sprint(evicted),
			fmt.Sprint(r.res.lost),
			fmt.Sprint(r.res.unavailable),
			fmt.Sprint(r.res.failed - r.res.unavailable),
			verdict(r.res.lost == 0 && r.res.failed == 0),
		})
	}
	b.table("Contention: 16 processes × 50 calls, default settings (MATRIXX_DEBUG=1 for lock stats)",
		[]string{"operation", "calls", "wall", "throughput", "call median / p99", "lock wait median / p99 / max", "max attempts", "evicted", "lost", "task_lock_unavailable", "other errors", "bar"}, rows)
	return nil
}
