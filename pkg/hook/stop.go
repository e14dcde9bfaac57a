package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/enforce"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
)

// turnKey identifies the turn a stop ends, on hosts that keep blocking
// as long as the hook says so: Codex CLI's turn_id; for Gemini CLI, which
// has no turn id, a hash of AfterAgent's prompt (the user turn, which stays
// the same while blocks re-prompt the agent). "" on other hosts (Claude
// Code stops a hook after 8 consecutive blocks itself).
func turnKey(ev *Event) string {
	switch ev.Host {
	case HostCodex:
		if ev.TurnID != "" {
			return "codex:" + ev.TurnID
		}
	case HostGemini:
		sum := sha256.Sum256([]byte(ev.Prompt))
		return "gemini:" + hex.EncodeToString(sum[:12])
	}
	return ""
}

// StateDir returns where hook state lives: <root>/.matrixx/state.
func StateDir(root string) string { return filepath.Join(root, ".matrixx", "state") }

// stop is task-continuation-enforcer on Stop and
// SubagentStop: {"decision":"block","reason":…} while the session has
// actionable work (pkg/enforce), nothing otherwise. It never blocks because
// of its own error: an unreadable store, a broken config or a state file it
// cannot write all let the agent stop.
func (r *Runner) stop(ev *Event, sc *scan) any {
	out := r.integrityCheck(ev, atStop)
	line, note := out.agentLine(), out.adoptedNote()
	// The directive leaves room for the integrity line it may carry, so
	// the reason stays within enforce.MaxReasonBytes.
	reserve := 0
	if line != "" {
		reserve = len(line) + 1
	}
	a := r.continuation(ev, sc, reserve)
	switch {
	case a != nil && line != "":
		a.Reason += " " + line
	case a == nil && line != "" && !ev.StopHookActive:
		a = &contract.StopAnswer{Decision: "block", Reason: line}
	case line != "":
		note = strings.TrimSpace(line + " " + note)
	}
	if a == nil {
		if note == "" {
			return nil
		}
		return contract.StopAnswer{SystemMessage: note}
	}
	a.SystemMessage = note
	return *a
}

// continuation is task-continuation-enforcer's decision; its directive
// keeps reserve bytes of enforce.MaxReasonBytes free for the caller.
func (r *Runner) continuation(ev *Event, _ *scan, reserve int) *contract.StopAnswer {
	if ev.Background > 0 {
		r.log.Printf(NameContinuation, "allow: %d background task(s) running", ev.Background)
		return nil
	}
	if ev.StopHookActive {
		r.log.Printf(NameContinuation, "stop_hook_active: the agent is already continuing after a block (the no-progress cap applies)")
	}
	p, err := r.project(ev)
	if err != nil {
		r.log.Printf(NameContinuation, "allow: %v", err)
		return nil
	}
	if p.cfg.HookDisabled(NameContinuation) {
		r.log.Printf(NameContinuation, "disabled in disabled_hooks: allow")
		return nil
	}
	snap, err := p.store.Scan(store.ScanOptions{Mtime: true, ListFields: true, KeepMeta: claim.Key})
	if err != nil {
		r.log.Printf(NameContinuation, "allow: reading the task store: %v", err)
		return nil
	}
	if n := len(snap.Problems); n > 0 {
		r.log.Printf(NameContinuation, "%d unreadable task file(s) ignored (task-list shows them)", n)
	}
	in := enforce.Input{
		Subagent:      ev.Name == SubagentStop,
		Session:       ev.SessionID,
		AgentID:       ev.AgentID,
		AgentType:     ev.AgentType,
		SessionScoped: p.cfg.Tasks.SessionScoped,
		StaleAfter:    time.Duration(p.cfg.Tasks.StaleAfterHours * float64(time.Hour)),
		LastMessage:   ev.LastMessage,

		BackgroundStaleAfter: time.Duration(p.cfg.Tasks.BackgroundStaleAfterHours * float64(time.Hour)),
		Reserve:              reserve,
		Now:                  r.Now(),
		Entries:              snap.Entries,
	}
	states := enforce.States{Dir: filepath.Join(StateDir(p.root), "continuation"), Base: filepath.Join(p.root, ".matrixx"), Now: r.Now}
	if !p.cfg.HookDisabled(NameIntegrity) && !r.off() {
		states.Record = integrity.NewProject(p.root, p.store.Dir, "", r.integrityHome(p.root)).State().Recorder()
	}
	key := ev.SessionID
	if in.Subagent {
		key = enforce.Key(ev.SessionID, ev.AgentID)
	}
	prev, err := states.Load(key)
	if err != nil {
		r.log.Printf(NameContinuation, "state unreadable (starting over): %v", err)
	}
	out := enforce.Decide(in, prev)
	if !out.Block {
		r.log.Printf(NameContinuation, "%s", out.Why)
		return nil
	}
	if turn := turnKey(ev); turn != "" {
		out.State.Turn, out.State.TurnBlocks = turn, 1
		if prev.Turn == turn {
			if prev.TurnBlocks >= enforce.MaxTurnBlocks {
				r.log.Printf(NameContinuation, "allow: %d stops of this turn already blocked (%s has no cap of its own): %s", prev.TurnBlocks, ev.Host, out.Why)
				return nil
			}
			out.State.TurnBlocks = prev.TurnBlocks + 1
		}
	}
	if key == "" {
		r.log.Printf(NameContinuation, "allow: no session_id to count blocks against (%s)", out.Why)
		return nil
	}
	err = states.Save(key, out.State)
	if err != nil && states.Record != nil {
		// A ledger that cannot be written must not stop the count: at
		// worst the check puts the previous count back.
		r.log.Printf(NameContinuation, "state not recorded for the integrity check: %v", err)
		states.Record = nil
		err = states.Save(key, out.State)
	}
	if err != nil {
		r.log.Printf(NameContinuation, "allow: cannot record the block (%v), and a block without a count could loop", err)
		return nil
	}
	r.log.Printf(NameContinuation, "%s", out.Why)
	return &contract.StopAnswer{Decision: "block", Reason: out.Reason}
}

// ContinuationAnswer is matrixx-hook continuation's answer:
// {"session":"…","continuation":"on"|"off"}.
type ContinuationAnswer struct {
	Session      string `json:"session"`
	Continuation string `json:"continuation"`
}

// SetContinuation turns task-continuation-enforcer off (on false) or on
// again for one session's stops (Stop; its subagents keep their own
// counts), in the session's state file, recorded for the integrity check
// as the enforcer's own writes are. set nil only reports.
func (r *Runner) SetContinuation(session string, set *bool) (*ContinuationAnswer, error) {
	if session == "" || session == project.NoSession {
		return nil, errcode.New(errcode.InvalidArguments, "no session: give --session ID (the agent's shell has it in $MATRIXX_SESSION_ID, $CLAUDE_CODE_SESSION_ID or $CODEX_SESSION_ID)")
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	p, err := r.project(nil)
	if p == nil {
		return nil, err
	}
	states := enforce.States{Dir: filepath.Join(StateDir(p.root), "continuation"), Base: filepath.Join(p.root, ".matrixx"), Now: r.Now}
	if !p.cfg.HookDisabled(NameIntegrity) {
		states.Record = integrity.NewProject(p.root, p.store.Dir, "", r.integrityHome(p.root)).State().Recorder()
	}
	st, err := states.Load(session)
	if err != nil {
		return nil, errcode.New(errcode.InternalError, "reading the session's continuation state: %v", err)
	}
	if set != nil && st.Off == *set {
		st.Off = !*set
		st.Updated = r.Now().UTC().Format(time.RFC3339)
		if err := states.Save(session, st); err != nil {
			return nil, errcode.New(errcode.InternalError, "writing the session's continuation state: %v", err)
		}
	}
	a := &ContinuationAnswer{Session: session, Continuation: "on"}
	if st.Off {
		a.Continuation = "off"
	}
	return a, nil
}
