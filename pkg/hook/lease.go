package hook

import (
	"os"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
)

// renewLockTimeout bounds the lock wait of a renewal: the hook runs before
// the agent's next step, and a renewal that cannot get the lock now is
// simply tried at the next tool call.
const renewLockTimeout = 2 * time.Second

// renewLeases renews the leases of the session's claims on PostToolUse
// (docs/claims.md): while the agent makes tool calls its claims stay
// live. It reads only a small schedule file (claim.Schedule) unless a
// renewal may be due, so most calls touch neither the store nor its lock;
// a due claim is renewed at most once per third of its lease. Renewals
// keep the task file's mtime: they are not progress for the Stop hook's
// cap and do not reset staleness. PreToolUse never gets here. Failures are
// logged and ignored.
func (r *Runner) renewLeases(ev *Event) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Printf("lease", "internal error (a bug, please report): %v", p)
		}
	}()
	if ev.SessionID == "" {
		return
	}
	root, err := r.root(ev)
	if err != nil {
		return
	}
	sched := claim.Schedule{Dir: claim.ScheduleDir(root)}
	now := r.Now()
	if !sched.Due(ev.SessionID, now) {
		return
	}
	p, err := r.project(ev)
	if p == nil {
		r.log.Printf("lease", "no renewal: %v", err)
		return
	}
	if _, err := os.Stat(p.store.Dir); err != nil {
		return // no store, no claims: and nothing is created in the project
	}
	p.store.Lock.Timeout = renewLockTimeout
	renewed, next, err := p.store.RenewClaims(ev.SessionID)
	if err != nil {
		r.log.Printf("lease", "renewing the session's claims: %v (tried again at the next tool call)", err)
		return
	}
	if next.IsZero() || next.Sub(now) > claim.IdleRecheck {
		next = now.Add(claim.IdleRecheck)
	}
	if renewed > 0 {
		r.log.Printf("lease", "renewed %d claim(s) of session %s; next renewal due %s", renewed, ev.SessionID, claim.Stamp(next))
	}
	if err := sched.Set(ev.SessionID, next); err != nil {
		r.log.Printf("lease", "recording the renewal schedule: %v", err)
	}
}
