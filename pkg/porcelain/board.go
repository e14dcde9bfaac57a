package porcelain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/board"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// ---- board ----

type boardCmd struct {
	Addr   string        `placeholder:"127.0.0.1:PORT" help:"Listen here (127.0.0.1 only; default: a free port)."`
	Open   bool          `help:"Open the page in a browser (xdg-open) when there is one."`
	Export *string       `placeholder:"DIR" help:"Write a self-contained static page (DIR/index.html) and exit."`
	Owner  string        `placeholder:"NAME" help:"Claim from the page under this name (default: $MATRIXX_OWNER, else git config user.name, else $USER)."`
	Lease  time.Duration `placeholder:"DUR" help:"Lease of claims made from the page (default 15m)."`
}

func (c *boardCmd) Help() string {
	return `Example: matrixx board --open

A live web page of the task store: columns by state (ready; blocked, with what blocks it; in
progress, with owner and lease left; done), parents with their progress, labels, priorities,
plans, the dependency graph and each task's detail, with filters. Changes by anyone (agents,
binaries, other machines after task-sync) appear within a second. Claim, done, reopen, edit, add
and dependencies from the page go through the store's own operations with compare-and-swap: a
page that shows an old version of a task gets a conflict, never a lost update.

The first line of stdout is the page's URL, with this run's secret after '#'. The board listens
on 127.0.0.1 only, answers only its own page (Host and Origin checked, the secret required on
every API request, no CORS) and runs until interrupted. --export DIR writes a static snapshot
instead. docs/board.md is the guide.`
}

func (c *boardCmd) run(r *runner) error {
	if r.g.JSON {
		return errcode.New(errcode.InvalidArguments, "matrixx board has no --json (task-feed is the JSON stream)")
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	me := strings.TrimSpace(c.Owner)
	if me == "" {
		me = r.whoami(p.Root)
	}
	srv, err := board.New(p.Store, p.Plans(), p.Root, board.Options{Addr: c.Addr, Me: me, Lease: c.Lease, Log: r.stderr,
		Env: ops.Env{Name: "matrixx board", Dir: r.g.Dir, Session: r.g.Session, Write: true}})
	if err != nil {
		return err
	}
	if c.Export != nil {
		// An empty DIR (an unset variable in a script) is refused rather
		// than taken for "no --export", which would start a server.
		if strings.TrimSpace(*c.Export) == "" {
			return errcode.New(errcode.InvalidArguments, "--export needs a directory (it was given an empty one)")
		}
		path, err := srv.Export(*c.Export)
		if err != nil {
			return err
		}
		fmt.Fprintf(r.stdout, "wrote %s\n", path)
		return nil
	}
	ln, url, err := srv.Listen()
	if err != nil {
		return err
	}
	defer ln.Close()
	if err := srv.Load(); err != nil {
		return err
	}
	// The URL is the first line of stdout, written through at once:
	// scripts and tests read it to find the page.
	fmt.Fprintln(r.real, url)
	fmt.Fprintf(r.stderr, "%s: board of %s (Ctrl-C stops it)\n", Name, p.Store.Dir)
	if c.Open {
		openBrowser(url, r)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.Serve(ctx, ln)
}

// openBrowser starts xdg-open (or $BROWSER) on url when there is one; a
// machine without a browser only gets a note.
func openBrowser(url string, r *runner) {
	name := strings.TrimSpace(r.getenv("BROWSER"))
	if name == "" {
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: no browser to open (%s not found): open the URL above\n", Name, name)
		return
	}
	cmd := exec.Command(path, url)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(r.stderr, "%s: could not start %s: %v: open the URL above\n", Name, name, err)
		return
	}
	go func() { _ = cmd.Wait() }()
}

// ---- watch ----

type watchCmd struct {
	On      string   `placeholder:"KINDS" help:"Run the command for these kinds of event only, comma-separated (e.g. completed,blocked)."`
	Count   int      `placeholder:"N" help:"Exit after N events (0: never)."`
	Command []string `arg:"" optional:"" passthrough:"" placeholder:"-- CMD [ARG...]" help:"Run CMD for each event: the event's JSON on its stdin and in $MATRIXX_EVENT."`
}

func (c *watchCmd) Help() string {
	return `Example: matrixx watch --on completed,ready -- notify-send "matrixx"

Follow the task store's changes as they happen, one line each: created, updated (which fields),
claimed, lease_expired, completed, deleted, outside (changed by something other than the toolkit),
ready (every blocker done now), blocked, unreadable. --json prints task-feed's JSON Lines instead.

With -- CMD, runs CMD once per event (those --on names, else every event), one at a time, in
order: the event's JSON document on its stdin and in $MATRIXX_EVENT, its kind in
$MATRIXX_EVENT_KIND, the task in $MATRIXX_TASK_ID and $MATRIXX_TASK_SUBJECT, the cursor in
$MATRIXX_EVENT_CURSOR. A command that fails is reported and watching goes on.
Runs until interrupted or --count events. docs/board.md is the guide.`
}

func (c *watchCmd) run(r *runner) error {
	if c.Count < 0 {
		return errcode.New(errcode.InvalidArguments, "--count must be 0 or more")
	}
	cmdArgs := c.Command
	if len(cmdArgs) > 0 && cmdArgs[0] == "--" {
		cmdArgs = cmdArgs[1:]
	}
	var kinds []feed.Kind
	if c.On != "" {
		var err error
		// Without a command, --on narrows what is printed.
		if kinds, err = feed.ParseKinds(c.On); err != nil {
			return err
		}
	}
	p, err := r.project()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := feed.New(p.Store)
	hs := handles{}
	n := 0
	errEnough := errors.New("enough events")
	err = f.Follow(ctx, feed.Options{Kinds: kinds, Started: func() {
		fmt.Fprintf(r.stderr, "%s: watching %s (Ctrl-C stops)\n", Name, p.Store.Dir)
	}}, func(ev *feed.Event) error {
		b, err := json.Marshal(ev, json.Deterministic(true))
		if err != nil {
			return err
		}
		if r.g.JSON {
			fmt.Fprintf(r.real, "%s\n", b)
		} else {
			fmt.Fprintln(r.real, clean(feed.Line(ev, hs.of(f.Tasks()))))
		}
		if len(cmdArgs) > 0 {
			runHook(ctx, r, cmdArgs, ev, b)
		}
		n++
		if c.Count > 0 && n >= c.Count {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) || errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

// runHook runs the watch command for one event and waits for it.
func runHook(ctx context.Context, r *runner, args []string, ev *feed.Event, doc []byte) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(string(doc) + "\n")
	cmd.Stdout, cmd.Stderr = r.real, r.stderr
	cmd.Env = append(os.Environ(),
		"MATRIXX_EVENT="+string(doc),
		"MATRIXX_EVENT_KIND="+string(ev.Kind),
		"MATRIXX_EVENT_CURSOR="+ev.Cursor,
		"MATRIXX_TASK_ID="+ev.ID,
		"MATRIXX_TASK_SUBJECT="+ev.Subject,
	)
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(r.stderr, "%s: %s for %s %s: %v\n", Name, args[0], ev.Kind, ev.ID, err)
	}
}

// handles names tasks by their shortest unique handle, recomputed when
// the set of tasks changed size.
type handles struct {
	n  int
	by map[string]string
}

func (h *handles) of(tasks map[string]*task.Task) func(string) string {
	if h.by == nil || h.n != len(tasks) {
		ids := make([]string, 0, len(tasks))
		for id := range tasks {
			ids = append(ids, id)
		}
		short := task.ShortHandles(ids)
		h.by = make(map[string]string, len(ids))
		for i, id := range ids {
			h.by[id] = short[i]
		}
		h.n = len(tasks)
	}
	return func(id string) string {
		if s, ok := h.by[id]; ok {
			return s
		}
		return id
	}
}
