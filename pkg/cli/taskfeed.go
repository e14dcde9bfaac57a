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
	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
)

// feedCmd is task-feed's command line (commands.TaskFeed) and what it runs.
type feedCmd struct{ commands.TaskFeed }

// TaskFeed is the task-feed binary.
func TaskFeed(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &feedCmd{}
	return app.Run("task-feed", commands.Help("task-feed"), c, c.run, args, stdin, stdout, stderr)
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
