package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
)

const feedHelp = `Example: task-feed --only completed,ready

Stream the task store's changes as JSON Lines, one event a line, as they happen, until
interrupted (SIGINT, SIGTERM) or --count events were printed. Any writer's change is seen:
our binaries, agents' hooks, task-sync bringing another machine's work, a person's editor.

  task-feed                          every change from now on
  task-feed --only completed         only completions
  task-feed --count 1 --only ready   wait for the next task to become ready, print it, exit

Each line: {"cursor","kind","id","subject"?,"status"?,"owner"?,"was"?,"fields"?,"blockedBy"?,
"removed"?,"outside"?,"synced"?,"by"?,"command"?,"event"?,"problem"?,"at"}. Kinds: created,
updated (fields names what changed), claimed, lease_expired, completed, deleted (removed:true when
the file went away), reopened, released, outside (fields changed by something other than the
toolkit; every event of such a change has outside:true), ready (a pending task's blockers are all
completed now), blocked (a pending task now waits: blockedBy), unreadable (the file is no longer a
valid record).

  task-feed --since 4711             resume after the cursor 4711: the task history's events
                                     after it, then what happens next

Cursors come from the task history (docs/history.md): store the last one handled and --since
misses and repeats nothing across restarts. ready, blocked, lease_expired seen by the clock and
changes outside the toolkit seen as they happen are not in the history and are not replayed.

"task-feed: watching DIR" on stderr says the store has been read: every later change is reported.
The store is polled (one stat every --poll, a full look every 2s), so a change appears within
about --poll. Reading never takes the lock and never writes. docs/board.md is the guide.`

type feedCmd struct {
	app.Globals
	Only  string        `name:"only" placeholder:"KINDS" help:"Only these kinds, comma-separated (created, updated, claimed, lease_expired, completed, deleted, outside, ready, blocked, unreadable)."`
	Since string        `name:"since" placeholder:"CURSOR" help:"Replay the task history's events after this cursor, then follow."`
	Count int           `name:"count" placeholder:"N" help:"Exit after N events (0: never)."`
	Poll  time.Duration `name:"poll" default:"200ms" placeholder:"DUR" help:"How often to look at the store (at least 10ms)."`
}

// TaskFeed is the task-feed binary.
func TaskFeed(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &feedCmd{}
	return app.Run("task-feed", feedHelp, c, c.run, args, stdin, stdout, stderr)
}

func (c *feedCmd) run(a *app.App) error {
	if c.Count < 0 {
		return errcode.New(errcode.InvalidArguments, "--count must be 0 or more")
	}
	if c.Poll < 10*time.Millisecond {
		return errcode.New(errcode.InvalidArguments, "--poll must be at least 10ms")
	}
	var kinds []feed.Kind
	if c.Only != "" {
		var err error
		if kinds, err = feed.ParseKinds(c.Only); err != nil {
			return err
		}
	}
	e, err := a.Open(&c.Globals, nil)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n := 0
	errEnough := errors.New("enough events") // ends the feed after --count
	f := feed.New(e.Store)
	err = f.Follow(ctx, feed.Options{
		Since: c.Since, Kinds: kinds, Poll: c.Poll,
		Started: func() { a.Warnf("watching %s", e.Store.Dir) },
	}, func(ev *feed.Event) error {
		b, err := json.Marshal(ev, json.Deterministic(true))
		if err != nil {
			return err
		}
		if _, err := a.Stdout.Write(append(b, '\n')); err != nil {
			return err // a closed pipe ends the feed
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
