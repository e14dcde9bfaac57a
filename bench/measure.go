package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// command is one process the harness starts and times: argv, working
// directory, extra environment, and what it reads on stdin.
type command struct {
	Argv  []string
	Dir   string
	Env   []string
	Stdin []byte
	// Before runs before each timed start (outside the timed window).
	Before func() error
	// Exits are the exit statuses that count as success; {0} when empty.
	Exits []int
}

// sample is one timed run.
type sample struct {
	Wall   time.Duration
	CPU    time.Duration // user+system time of the child
	MaxRSS int64         // KiB, from getrusage of the child
	Stdout []byte
	Stderr []byte
}

// runner starts processes with stdin from a file and stdout/stderr into
// files, so no copying goroutine runs in the harness while a child is
// timed: the window is fork+exec to wait(2).
type runner struct {
	tmp string
	env []string
	n   int
}

func newRunner(tmp string, env []string) *runner {
	return &runner{tmp: tmp, env: env}
}

// run starts c once and returns its wall time. A non-zero exit is an error
// carrying the child's stderr.
func (r *runner) run(c *command) (sample, error) {
	s, code, err := r.runStatus(c)
	ok := code == 0
	if len(c.Exits) > 0 {
		ok = slices.Contains(c.Exits, code)
	}
	if err == nil && !ok {
		err = fmt.Errorf("%s exited %d: %s%s", filepath.Base(c.Argv[0]), code, bytes.TrimSpace(s.Stdout), bytes.TrimSpace(s.Stderr))
	}
	return s, err
}

// runStatus starts c once and returns its sample and exit status.
func (r *runner) runStatus(c *command) (sample, int, error) {
	if c.Before != nil {
		if err := c.Before(); err != nil {
			return sample{}, 0, err
		}
	}
	r.n++
	base := filepath.Join(r.tmp, fmt.Sprintf("io-%d", r.n%4))
	if err := os.WriteFile(base+".in", c.Stdin, 0o644); err != nil {
		return sample{}, 0, err
	}
	in, err := os.Open(base + ".in")
	if err != nil {
		return sample{}, 0, err
	}
	defer in.Close()
	out, err := os.Create(base + ".out")
	if err != nil {
		return sample{}, 0, err
	}
	defer out.Close()
	errf, err := os.Create(base + ".err")
	if err != nil {
		return sample{}, 0, err
	}
	defer errf.Close()
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(slices.Clone(r.env), c.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, errf
	start := time.Now()
	err = cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	wall := time.Since(start)
	s := sample{Wall: wall}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.MaxRSS = ru.Maxrss
		}
		s.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	s.Stdout, _ = os.ReadFile(base + ".out")
	s.Stderr, _ = os.ReadFile(base + ".err")
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return s, ee.ExitCode(), nil
		}
		return s, 0, err
	}
	return s, 0, nil
}

// series is the wall times of repeated runs of one command.
type series struct {
	Walls  []time.Duration
	CPUs   []time.Duration
	MaxRSS int64 // largest seen, KiB
}

func (s *series) add(x sample) {
	s.Walls = append(s.Walls, x.Wall)
	s.CPUs = append(s.CPUs, x.CPU)
	s.MaxRSS = max(s.MaxRSS, x.MaxRSS)
}

// quantile returns the q-quantile (0..1) of the wall times by nearest rank.
func (s *series) quantile(q float64) time.Duration { return quantile(s.Walls, q) }

func (s *series) median() time.Duration { return s.quantile(0.5) }

// cpu returns the median CPU time (user+system) of the runs: less
// sensitive than wall time to other load on the machine.
func (s *series) cpu() time.Duration { return quantile(s.CPUs, 0.5) }

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	w := slices.Clone(d)
	slices.Sort(w)
	i := int(q*float64(len(w)-1) + 0.5)
	return w[i]
}

// alternate runs a and b n times each, interleaved ABBA so drift (cache,
// CPU frequency, background load) hits both equally, after warm runs of
// each. It returns both series.
func (r *runner) alternate(n, warm int, a, b *command) (*series, *series, error) {
	s, err := r.rotate(n, warm, a, b)
	if err != nil {
		return nil, nil, err
	}
	return s[0], s[1], nil
}

// rotate runs every command n times, interleaved: round i starts with
// command i mod k and goes round, so each command runs in every position
// equally often. warm rounds run first, untimed.
func (r *runner) rotate(n, warm int, cmds ...*command) ([]*series, error) {
	for range warm {
		for _, c := range cmds {
			if _, err := r.run(c); err != nil {
				return nil, err
			}
		}
	}
	out := make([]*series, len(cmds))
	for i := range out {
		out[i] = &series{}
	}
	for i := range n {
		for j := range cmds {
			k := (i + j) % len(cmds)
			if i%2 == 1 {
				k = (i + len(cmds) - 1 - j) % len(cmds)
			}
			x, err := r.run(cmds[k])
			if err != nil {
				return nil, err
			}
			out[k].add(x)
		}
	}
	return out, nil
}

// repeat runs c n times after warm runs.
func (r *runner) repeat(n, warm int, c *command) (*series, error) {
	for range warm {
		if _, err := r.run(c); err != nil {
			return nil, err
		}
	}
	s := &series{}
	for range n {
		x, err := r.run(c)
		if err != nil {
			return nil, err
		}
		s.add(x)
	}
	return s, nil
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
