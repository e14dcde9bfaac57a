package hook

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// leaseCheck returns the guard's Leased function for one PreToolUse call
// (docs/leases.md), or nil when no path lease is live: it reads the
// store's lease index (one failed open when there is none). A write is
// refused when it touches a path covered by a live lease that the call
// does not hold (claim.IndexEntry.HeldBy: the claim's session is the
// call's, or its owner is the session's name or the subagent's id).
// Paths are matched relative to the top of each checkout of the
// repository that the call can name: the main worktree (the store's
// root) and the checkout of the event's cwd.
func (r *Runner) leaseCheck(ev *Event, p *proj) func(string, bool) string {
	ix, err := claim.ReadIndex(claim.IndexFile(p.store.Dir))
	if err != nil {
		r.log.Printf(NameGuard, "lease index unreadable, leases not checked: %v", err)
		return nil
	}
	if ix.Empty() {
		return nil
	}
	tops := []string{filepath.ToSlash(p.root)}
	if filepath.IsAbs(ev.Cwd) {
		if co := project.CheckoutOf(ev.Cwd); co.Dir != "" {
			for _, d := range []string{co.Dir, project.Canonical(co.Dir)} {
				if d = filepath.ToSlash(d); d != tops[0] && (len(tops) < 2 || d != tops[1]) {
					tops = append(tops, d)
				}
			}
		}
	}
	now := r.Now()
	held := func(e *claim.IndexEntry) bool { return e.HeldBy(ev.SessionID, ev.AgentID) }
	return func(path string, tree bool) string {
		for _, top := range tops {
			rel, ok := strings.CutPrefix(path, strings.TrimSuffix(top, "/")+"/")
			if !ok {
				if path != top || !tree {
					continue
				}
				rel = ""
			}
			if e := ix.Find(rel, tree, now, held); e != nil {
				r.log.Printf(NameGuard, "lease %s of %s held by %s covers %s", e.Glob, e.Task, e.Owner, path)
				return leaseWhy(e, now)
			}
		}
		return ""
	}
}

// leaseWhy tells the agent whose lease it ran into and what to do; with
// the guard's start (leaseReason, the path cut to 100 bytes) the reason
// stays within 600 bytes.
func leaseWhy(e *claim.IndexEntry, now time.Time) string {
	holder := e.Owner
	if holder == "" {
		holder = "session " + e.Session
	}
	var b strings.Builder
	b.WriteString("is leased to " + shorten(holder, 40) + " for task " + shorten(e.Task, 40))
	if e.Subject != "" {
		b.WriteString(" (" + shorten(e.Subject, 40) + ")")
	}
	if t, err := time.Parse(time.RFC3339Nano, e.ExpiresAt); err == nil {
		b.WriteString(" until " + claim.Stamp(t) + " (in " + t.Sub(now).Round(time.Second).String() + ")")
	} else {
		b.WriteString(" until the holder completes it")
	}
	if e.Worktree != "" {
		wt := e.Worktree
		if len(wt) > 50 {
			wt = "…" + strings.ToValidUTF8(wt[len(wt)-49:], "") // the end names it
		}
		b.WriteString(", in " + wt)
		if e.Branch != "" {
			b.WriteString(" on " + shorten(e.Branch, 30))
		}
	}
	b.WriteString(". Do not change it now: pick other work (task-claim --owner <you> takes the next ready task), wait for the lease to end, or ask the holder. Reading is fine.")
	return b.String()
}
