package feed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// State is where a task stands on the board.
type State string

const (
	StateReady   State = "ready"       // pending, every blocker completed
	StateBlocked State = "blocked"     // pending, waits for a blocker
	StateWorking State = "in_progress" // in_progress
	StateDone    State = "completed"   // completed
	StateDeleted State = "deleted"     // deleted
)

// Class is a task's state and what it waits for.
type Class struct {
	State State
	// Waits are the blockers that are not completed (blocked only),
	// missing ones included.
	Waits []string
}

// Classify gives every task its state in O(tasks + edges).
func Classify(tasks map[string]*task.Task) map[string]Class {
	out := make(map[string]Class, len(tasks))
	for id, t := range tasks {
		out[id] = ClassOf(t, tasks)
	}
	return out
}

// ClassOf is one task's Class given every task.
func ClassOf(t *task.Task, tasks map[string]*task.Task) Class {
	switch t.Status {
	case task.InProgress:
		return Class{State: StateWorking}
	case task.Completed:
		return Class{State: StateDone}
	case task.Deleted:
		return Class{State: StateDeleted}
	}
	var waits []string
	for _, b := range t.BlockedBy {
		if bt := tasks[b]; bt == nil || bt.Status != task.Completed {
			waits = append(waits, b)
		}
	}
	if len(waits) > 0 {
		return Class{State: StateBlocked, Waits: waits}
	}
	return Class{State: StateReady}
}

// Feed turns a Watcher's changes into events with cursors. Step runs one
// tick; Run ticks until the context ends.
type Feed struct {
	W *Watcher
	// Poll is the tick (default 200ms).
	Poll time.Duration

	started bool
	epoch   int64
	seq     uint64
	tasks   map[string]*task.Task
	classes map[string]Class
	leases  map[string]time.Time // in_progress tasks' lease ends, not yet reported
	h       *historyState        // nil: the store keeps no history
	dirty   bool                 // tasks changed since ready/blocked were derived
}

// Cursor formats a live cursor: the feed's start (Unix ms) and the event's
// number.
func (f *Feed) cursor() string {
	f.seq++
	return fmt.Sprintf("live-%d-%d", f.epoch, f.seq)
}

// Tasks are the records as of the last step, by id.
func (f *Feed) Tasks() map[string]*task.Task { return f.tasks }

// Classes are the tasks' states as of the last step.
func (f *Feed) Classes() map[string]Class { return f.classes }

// Step sweeps the store when it is due, reads the history's new events
// (when the store keeps one) and returns the events of what changed, and
// the changes themselves (the board applies them). The first step reads
// the store and reports nothing, unless Follow was given a cursor: then it
// replays the history after it.
func (f *Feed) Step(now time.Time) ([]Event, []Change, error) {
	if !f.started {
		if _, err := f.W.Sweep(now); err != nil {
			return nil, nil, err
		}
		f.started, f.epoch = true, now.UnixMilli()
		f.tasks = f.W.Tasks()
		f.classes = Classify(f.tasks)
		f.leases = map[string]time.Time{}
		for id, t := range f.tasks {
			if end, ok := leaseEnd(t); ok && end.After(now) {
				f.leases[id] = end
			}
		}
		if f.h == nil {
			return nil, nil, nil
		}
		if f.h.cursor == "" {
			c, err := endCursor(f.h.log)
			if err != nil {
				return nil, nil, err
			}
			f.h.cursor = c
			f.h.moved()
			return nil, nil, nil
		}
		f.h.moved()
		evs, err := f.fromHistory(true)
		return evs, nil, err
	}
	var evs []Event
	var changes []Change
	if f.W.Due(now) {
		var err error
		changes, err = f.W.Sweep(now)
		if err != nil {
			return nil, nil, err
		}
	}
	at := now.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	if len(changes) > 0 {
		f.tasks = f.W.Tasks()
		for _, c := range changes {
			if c.New != nil {
				if end, ok := leaseEnd(c.New); ok && end.After(now) {
					f.leases[c.New.ID] = end
				} else {
					delete(f.leases, c.New.ID)
				}
			} else if c.Old != nil {
				delete(f.leases, c.Old.ID)
			}
		}
	}
	if f.h != nil {
		if f.h.moved() {
			hevs, err := f.fromHistory(false)
			if err != nil {
				return nil, nil, err
			}
			evs = append(evs, hevs...)
		}
		for _, c := range changes {
			f.h.pending = append(f.h.pending, pendingChange{c: c, seen: now})
		}
		keep := f.h.pending[:0]
		for _, p := range f.h.pending {
			switch {
			case f.h.explained(p.c):
			case p.c.Outside || now.Sub(p.seen) >= outsideAfter:
				p.c.Outside = true
				if ev, ok := changeEvent(p.c); ok {
					ev.At, ev.Cursor = at, f.h.cursor
					f.h.outside[ev.ID] = true
					evs = append(evs, ev)
				}
			default:
				keep = append(keep, p)
			}
		}
		f.h.pending = keep
	} else {
		for _, c := range changes {
			if ev, ok := changeEvent(c); ok {
				ev.At = at
				evs = append(evs, ev)
			}
		}
	}
	var derived []Event
	if len(changes) > 0 {
		f.dirty = true
	}
	// Derived events wait until the history explained the changes that
	// caused them, so they follow their cause.
	if f.dirty && (f.h == nil || len(f.h.pending) == 0) {
		f.dirty = false
		classes := Classify(f.tasks)
		// ready and blocked: transitions of any task, in id order.
		var ids []string
		for id, c := range classes {
			if p, ok := f.classes[id]; !ok || p.State != c.State {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			c := classes[id]
			p, had := f.classes[id]
			t := f.tasks[id]
			switch {
			case c.State == StateReady && had:
				// A new task that is ready says so by created.
				derived = append(derived, Event{Kind: Ready, ID: id, Subject: t.Subject, Status: t.Status, Owner: t.Owner, At: at})
			case c.State == StateBlocked && (!had || p.State != StateBlocked):
				derived = append(derived, Event{Kind: Blocked, ID: id, Subject: t.Subject, Status: t.Status, Owner: t.Owner, BlockedBy: c.Waits, At: at})
			}
		}
		f.classes = classes
	}
	for id, end := range f.leases {
		if !now.Before(end) {
			delete(f.leases, id)
			if t := f.tasks[id]; t != nil && t.Status == task.InProgress {
				derived = append(derived, Event{Kind: LeaseExpired, ID: id, Subject: t.Subject, Status: t.Status, Owner: t.Owner, At: at})
				if f.h != nil {
					f.h.expired[id] = true
				}
			}
		}
	}
	slices.SortStableFunc(derived, func(a, b Event) int { return strings.Compare(a.ID, b.ID) })
	evs = append(evs, derived...)
	for i := range evs {
		switch {
		case f.h != nil && evs[i].Cursor == "":
			evs[i].Cursor = f.h.cursor
		case f.h == nil:
			evs[i].Cursor = f.cursor()
		}
	}
	return evs, changes, nil
}

// fromHistory reads the history's new events. replay says they are old
// ones (--since): nothing this run saw live can explain them.
func (f *Feed) fromHistory(replay bool) ([]Event, error) {
	hevs, err := f.h.read()
	if err != nil {
		if errors.Is(err, history.ErrCursor) {
			return nil, errcode.New(errcode.InvalidArguments, "--since %s: %v", f.h.cursor, err)
		}
		return nil, errcode.Wrap(errcode.InternalError, err, "reading the task history")
	}
	var out []Event
	for i := range hevs {
		e := &hevs[i]
		f.h.remember(e)
		if !replay {
			switch {
			case e.Kind == history.External && f.h.outside[e.Task]:
				delete(f.h.outside, e.Task)
				continue
			case e.Kind == history.LeaseExpired && f.h.expired[e.Task]:
				delete(f.h.expired, e.Task)
				continue
			}
		}
		if ev, ok := historyEvent(e, f.tasks[e.Task]); ok {
			out = append(out, ev)
		}
	}
	return out, nil
}

// leaseEnd is an in_progress task's claim expiry.
func leaseEnd(t *task.Task) (time.Time, bool) {
	if t.Status != task.InProgress {
		return time.Time{}, false
	}
	if _, ok := t.Metadata[claim.Key]; !ok {
		return time.Time{}, false
	}
	c := claim.Of(t)
	if c == nil {
		return time.Time{}, false
	}
	return c.Expiry()
}

// Run steps every Poll until ctx ends, calling emit with each step's
// events and changes (only steps that have some); a change the kernel
// reports (Watcher.Notify) runs a step at once, after settle (the
// history's event of a write follows its rename closely: one step sees
// both). tick, when set, is called after every step.
func (f *Feed) Run(ctx context.Context, emit func([]Event, []Change) error, tick func()) error {
	poll := f.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	defer f.W.Close()
	var wake <-chan struct{}
	var tried time.Time
	for {
		if wake != nil && f.W.n == nil {
			wake = nil // the reports stopped (the directory went away): polling, and asked again
		}
		if wake == nil && time.Since(tried) >= FullEvery {
			// The directory may not exist yet: asked again until it does.
			tried = time.Now()
			wake = f.W.Notify()
		}
		evs, chs, err := f.Step(time.Now())
		if err != nil {
			return err
		}
		if len(evs) > 0 || len(chs) > 0 {
			if err := emit(evs, chs); err != nil {
				return err
			}
		}
		if tick != nil {
			tick()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		case <-wake:
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(settle):
			}
		}
	}
}

// settle is how long a step waits after the kernel's first word of a
// change, so that a write's history event and the other files of its
// transaction are seen by the same step.
const settle = 10 * time.Millisecond

// New is the feed of st's task directory, with outside-the-toolkit
// detection when st records its writes in an integrity ledger.
func New(st *store.Store) *Feed {
	w := &Watcher{Dir: st.Dir}
	if st.History != nil {
		w.WakeDirs = []string{st.History.Dir}
	}
	if st.Record != nil {
		w.Ledger = st.Record.Ledger
	}
	f := &Feed{W: w}
	if st.History != nil {
		f.h = &historyState{log: st.History, sums: map[string][]string{}, outside: map[string]bool{}, expired: map[string]bool{}}
	}
	return f
}

// Options tune Follow.
type Options struct {
	// Since resumes after this cursor ("" starts now).
	Since string
	// Kinds keeps only these kinds (Matches); empty keeps all.
	Kinds []Kind
	// Poll is the tick (default 200ms).
	Poll time.Duration
	// Started, when set, is called once the store has been read: every
	// change after it is reported.
	Started func()
}

// Follow streams f's events to emit until ctx ends or emit fails.
func (f *Feed) Follow(ctx context.Context, opt Options, emit func(*Event) error) error {
	if opt.Since != "" {
		if f.h == nil {
			return errcode.New(errcode.InvalidArguments, "--since %s: this store keeps no task history to resume from (follow from now without --since)", opt.Since)
		}
		if strings.HasPrefix(opt.Since, "live-") {
			return errcode.New(errcode.InvalidArguments, "--since %s: a cursor of a feed without history cannot be resumed", opt.Since)
		}
		f.h.cursor = opt.Since
	}
	if opt.Poll > 0 {
		f.Poll = opt.Poll
	}
	started := false
	return f.Run(ctx, func(evs []Event, _ []Change) error {
		for i := range evs {
			if Matches(&evs[i], opt.Kinds) {
				if err := emit(&evs[i]); err != nil {
					return err
				}
			}
		}
		return nil
	}, func() {
		if !started && opt.Started != nil {
			started = true
			opt.Started()
		}
	})
}
