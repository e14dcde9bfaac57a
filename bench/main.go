// Command bench measures the toolkit's speed against the bars of our design
// (issue 5) with whole-process timings: it builds the binaries into a temp
// directory, generates task stores, runs each binary many times alternated
// with its baseline, and prints Markdown tables of medians and ratios.
//
//	go run ./bench [-runs 31] [-quick] [-only goals,writes,ticks,swarm,hook,session,list,create,contention,growth,mcp,claim,hosts,integrity,porcelain,sync,budget] [-keep]
//
// `make bench` runs it. Needs nothing but the Go toolchain.
package main

import (
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

type config struct {
	cache string
	ticks string
	runs  int
	quick bool
	only  map[string]bool
	keep  bool
	goCmd string
	out   io.Writer
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == rssChildFlag {
		os.Exit(rssChild(os.Args[2:]))
	}
	var c config
	only := flag.String("only", "goals,writes,ticks,swarm,drain,hook,leases,session,list,create,contention,growth,mcp,claim,hosts,integrity,porcelain,sync,budget", "comma-separated sections to run")
	flag.IntVar(&c.runs, "runs", 31, "timed runs per figure (each alternated with its baseline)")
	flag.BoolVar(&c.quick, "quick", false, "fewer runs and no 50,000-task store (a smoke run)")
	flag.StringVar(&c.cache, "cache", filepath.Join(os.TempDir(), "matrixx-bench-stores"), "directory keeping generated stores between runs (they are only read; writers work on copies)")
	flag.StringVar(&c.ticks, "ticks", "", "the tk binary of ticks, for the peer comparison (default: tk on PATH; none: skipped)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temp directory (binaries and stores)")
	flag.StringVar(&c.goCmd, "go", "go", "go command used to build the binaries")
	flag.Parse()
	c.only = map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		c.only[strings.TrimSpace(s)] = true
	}
	if c.quick && c.runs == 31 {
		c.runs = 9
	}
	c.out = os.Stdout
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench is one run of the harness: the built binaries and a scratch area.
type bench struct {
	*config
	tmp string
	bin string
	r   *runner

	seq     int // names copies of cached stores
	stores  map[int]*scaleStore
	lists   map[int]*listResult
	creates map[int]*createResult
}

func (b *bench) exe(name string) string { return filepath.Join(b.bin, name) }

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func run(c *config) error {
	tmp, err := os.MkdirTemp("", "matrixx-bench-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "bench: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	b := &bench{
		config: c, tmp: tmp, bin: filepath.Join(tmp, "bin"),
		stores: map[int]*scaleStore{}, lists: map[int]*listResult{}, creates: map[int]*createResult{},
	}
	if err := b.build(); err != nil {
		return err
	}
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	// A clean environment: nothing inherited changes what the binaries do.
	b.r = newRunner(tmp, []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"OPENCODE_CONFIG_DIR=" + filepath.Join(home, ".config", "opencode"),
	})
	b.machine()
	for _, s := range []struct {
		name string
		fn   func() error
	}{
		{"goals", b.goals},
		{"hook", b.hook},
		{"leases", b.leases},
		{"session", b.session},
		{"hosts", b.hosts},
		{"list", b.list},
		{"create", b.create},
		{"contention", b.contention},
		{"growth", b.growth},
		{"writes", b.writes},
		{"ticks", b.ticksCompare},
		{"swarm", b.swarm},
		{"drain", b.drain},
		{"mcp", b.mcp},
		{"claim", b.claim},
		{"integrity", b.integrity},
		{"porcelain", b.porcelain},
		{"sync", b.syncBench},
		{"budget", b.budgetSection},
	} {
		if !c.only[s.name] {
			continue
		}
		start := time.Now()
		if err := s.fn(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		b.logf("%s done in %v", s.name, time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(b.out, "Load average at the end: %s.\n", loadavg())
	return nil
}

// build compiles every binary and the baseline program into b.bin.
func (b *bench) build() error {
	b.logf("building binaries into %s", b.bin)
	cmd := exec.Command(b.goCmd, "build", "-o", b.bin+string(filepath.Separator), "./cmd/...", "./bench/readstdin", "./bench/linkfloor")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// machine prints what the figures were measured on.
func (b *bench) machine() {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "model name") {
				model = strings.TrimSpace(line[strings.Index(line, ":")+1:])
				break
			}
		}
	}
	kernel := ""
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = strings.TrimSpace(string(data))
	}
	fs := fsType(b.tmp)
	fmt.Fprintf(b.out, "Machine: %s, %d CPUs (GOMAXPROCS %d), %s/%s, kernel %s, %s; temp dir on %s; %d runs per figure; load average at start %s.\n\n",
		model, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, kernel, runtime.Version(), fs, b.runs, loadavg())
	fmt.Fprintf(b.out, "Binaries built with `%s build` as `make build` does: %s.\n\n", b.goCmd, linking(b.exe("task-list")))
	if l, err := strconv.ParseFloat(loadavg(), 64); err == nil && l > 1 {
		fmt.Fprintf(b.out, "**Warning: the machine is busy (load %.1f on %d CPUs): wall times are inflated and parallel work gains less; the min and CPU columns are less affected.**\n\n", l, runtime.NumCPU())
	}
}

// loadavg returns the 1-minute load average ("?" where unknown): figures
// taken on a busy machine are slower, ratios less so (each figure is
// alternated with its baseline).
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// linking says whether the binary needs the dynamic loader (cgo, e.g. for
// os/user or net) or is static; the loader costs every process start.
func linking(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return "linking unknown"
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "dynamically linked (cgo; `CGO_ENABLED=0` makes them static)"
		}
	}
	return "statically linked"
}

// fsType names the filesystem holding path (from /proc/mounts, longest
// mount-point prefix).
func fsType(path string) string {
	data, err := os.ReadFile("/proc/mounts")
	if err != nil {
		return "unknown"
	}
	best, typ := "", "unknown"
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		if (path == mp || strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/")) && len(mp) > len(best) {
			best, typ = mp, f[2]
		}
	}
	return typ
}

// table prints a Markdown table.
func (b *bench) table(title string, head []string, rows [][]string) {
	fmt.Fprintf(b.out, "### %s\n\n", title)
	fmt.Fprintf(b.out, "| %s |\n", strings.Join(head, " | "))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(b.out, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rows {
		fmt.Fprintf(b.out, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(b.out)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func thousands(n int) string {
	s := fmt.Sprint(n)
	var out []string
	for len(s) > 3 {
		out = append([]string{s[len(s)-3:]}, out...)
		s = s[:len(s)-3]
	}
	return strings.Join(append([]string{s}, out...), ",")
}
