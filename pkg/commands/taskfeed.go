package commands

import "time"

const taskFeedHelp = `Example: task-feed --only completed,ready

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
On Linux the kernel reports each change (inotify) and it is printed at once; the store is also
polled (one stat every --poll, a full look every 2s) for what the kernel cannot report. Reading never takes the lock and never writes. docs/board.md is the guide.`

// TaskFeed is task-feed's command line.
type TaskFeed struct {
	Globals
	Only  string        `name:"only" placeholder:"KINDS" help:"Only these kinds, comma-separated (created, updated, claimed, lease_expired, completed, deleted, outside, ready, blocked, unreadable)."`
	Since string        `name:"since" placeholder:"CURSOR" help:"Replay the task history's events after this cursor, then follow."`
	Count int           `name:"count" placeholder:"N" help:"Exit after N events (0: never)."`
	Poll  time.Duration `name:"poll" default:"200ms" placeholder:"DUR" help:"How often to look at the store (at least 10ms)."`
}
