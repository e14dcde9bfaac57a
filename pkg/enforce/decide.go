package enforce

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// MaxBlocks is how many times in a row one task state (fingerprint) blocks
// a stop: the fourth stop without task progress is let through. Any change
// to the in-scope tasks (a status, a new task, a touched file) is progress
// and starts the count again. The host gives up on its own after 8
// consecutive blocks; we stop insisting well before.
const MaxBlocks = 3

// State is what the enforcer remembers per session (and per subagent)
// between stops, in a small JSON file (see States).
type State struct {
	// Fingerprint of the in-scope tasks at the last block.
	Fingerprint string `json:"fingerprint"`
	// Blocks counts consecutive blocks issued for Fingerprint.
	Blocks int `json:"blocks"`
	// Updated is when the state was last written (RFC 3339).
	Updated string `json:"updated,omitempty"`
	// Turn and TurnBlocks count the blocks issued within one turn of a
	// host that does not cap them itself (Codex CLI, Gemini CLI): Turn
	// identifies the turn, TurnBlocks counts its blocks, whatever the
	// task state (see MaxTurnBlocks).
	Turn       string `json:"turn,omitempty"`
	TurnBlocks int    `json:"turnBlocks,omitempty"`
	// Off turns continuation off for this session (matrixx-hook
	// continuation off): its stops are let through until it is turned on
	// again. A block never writes it, so it stays until then.
	Off bool `json:"off,omitempty"`
}

// MaxTurnBlocks is how many stops one turn may have blocked in all, task
// progress or not, on hosts that do not stop a blocking hook themselves
// (Codex CLI, Gemini CLI): the ninth stop of a turn is let through, as
// Claude Code does after 8 consecutive blocks.
const MaxTurnBlocks = 8

// Outcome is the decision.
type Outcome struct {
	// Block is set when the stop must be blocked; Reason is then the
	// directive shown to the agent.
	Block  bool
	Reason string
	// Why explains the decision for the debug log.
	Why string
	// Save is set when State must be stored (before blocking).
	Save  bool
	State State
	// Queue is the classified work.
	Queue Queue
}

// Decide applies the rules of the package doc and the no-progress cap:
// allow when background work runs, when nothing is incomplete, when only
// stale or blocked work is left, or when the same task state has already
// been blocked MaxBlocks times; block otherwise.
func Decide(in Input, prev State) Outcome {
	if in.Background > 0 {
		return Outcome{Why: fmt.Sprintf("allow: %d background task(s) running", in.Background)}
	}
	q := Build(in)
	out := Outcome{Queue: q}
	switch {
	case len(q.Items) == 0:
		out.Why = "allow: no incomplete tasks in scope"
		return out
	case q.Actionable == 0:
		out.Why = "allow: only stale or blocked tasks left: " + StatusLine(q)
		return out
	}
	if prev.Off {
		out.Why = "allow: continuation is off for this session (matrixx-hook continuation on turns it back on): " + StatusLine(q)
		return out
	}
	if !in.Subagent && AwaitsUser(in.LastMessage) {
		out.Why = "allow: the last message asks the user a question and waits for the answer: " + StatusLine(q)
		return out
	}
	fp := Fingerprint(q)
	st := State{Fingerprint: fp, Blocks: 1, Updated: in.Now.UTC().Format(time.RFC3339)}
	if prev.Fingerprint == fp {
		if prev.Blocks >= MaxBlocks {
			out.Why = fmt.Sprintf("allow: no task progress since the last %d blocks (%s)", prev.Blocks, StatusLine(q))
			return out
		}
		st.Blocks = prev.Blocks + 1
	}
	out.Block, out.Save, out.State = true, true, st
	out.Reason = Directive(in, q)
	out.Why = fmt.Sprintf("block %d/%d for this task state: %s", st.Blocks, MaxBlocks, StatusLine(q))
	return out
}

// Fingerprint hashes id, status and file mtime of every in-scope task.
// task-update writes a record only when the update changes it
// (docs/design/decisions.md), so an empty or same-value update is no progress.
func Fingerprint(q Queue) string {
	lines := make([]string, 0, len(q.Scope))
	for _, e := range q.Scope {
		lines = append(lines, fmt.Sprintf("%s\x00%s\x00%d", e.Task.ID, e.Task.Status, e.ModTime.UnixNano()))
	}
	sort.Strings(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:16])
}

// StatusLine is the queue's counts: "3 incomplete (1 in_progress, 2
// pending; 1 blocked)", with "N stale" added when there are stale tasks.
func StatusLine(q Queue) string {
	s := fmt.Sprintf("%d incomplete (%d in_progress, %d pending", len(q.Items), q.InProgress, q.Pending)
	var extra []string
	if q.Blocked > 0 {
		extra = append(extra, fmt.Sprintf("%d blocked", q.Blocked))
	}
	if q.Stale > 0 {
		extra = append(extra, fmt.Sprintf("%d stale", q.Stale))
	}
	if len(extra) > 0 {
		s += "; " + strings.Join(extra, ", ")
	}
	return s + ")"
}

// maxListed caps the tasks listed in a directive.
const maxListed = 20

// Directive is the text that blocks the stop: the status line, the tasks
// (as many as fit), what to do, and notes on stuck and stale tasks. It is
// at most MaxReasonBytes less in.Reserve, whatever the store holds: the
// fixed text is kept whole, the stuck notes take at most half of what is
// left, and the task lines fill the rest, then "- … and N more".
func Directive(in Input, q Queue) string {
	var head, tail strings.Builder
	if in.Subagent {
		who := in.AgentType
		if in.AgentID != "" {
			who = strings.TrimSpace(who + " " + in.AgentID)
		}
		fmt.Fprintf(&head, "matrixx: you (%s) still hold %d in_progress task(s). Do not stop yet.\n\n", who, len(q.Items))
	} else {
		fmt.Fprintf(&head, "matrixx: %s. Do not stop yet: keep working.\n\n", StatusLine(q))
	}
	tail.WriteByte('\n')
	if in.Subagent {
		tail.WriteString("Finish the work, then mark each task completed (task-update <id> --status completed). If you cannot finish, set it back to pending and say why in its description (task-update <id> --status pending --description …) so the parent agent can take over.")
	} else {
		tail.WriteString("Continue any in_progress task, else take the next pending task that is not blocked. Start a task with task-claim <id> --owner <you> (task-claim --owner <you> takes the next ready one) and mark it completed when it is done (task-update <id> --status completed). Respect blockedBy: a blocked task waits until its blockers are completed. If a task no longer applies, set its status to deleted. Stop only when no task is left.")
	}
	stale := ""
	if q.Stale > 0 {
		stale = fmt.Sprintf("\nTasks marked stale have had no file activity for over %s and may be orphans of an earlier session: finish them, or complete or delete them if they no longer apply.", Window(in.staleWindow()))
	}
	max := MaxReasonBytes - in.Reserve
	room := max - head.Len() - tail.Len() - len(stale)
	stuck := stuckAdvice(q, room/2)
	lines := make([]string, 0, min(len(q.Items), maxListed))
	for _, it := range q.Items[:min(len(q.Items), maxListed)] {
		lines = append(lines, Line(it))
	}
	return Fit(max, head.String(), lines, len(q.Items), tail.String()+stuck+stale)
}

// Fit joins head, the lines that fit (one line each, in order), a line
// "- … and N more (task-list shows them all)" for the total items not
// shown, and tail, in at most max bytes. head and tail are kept whole;
// when even they do not fit, the whole is cut (Cap).
func Fit(max int, head string, lines []string, total int, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	room := max - len(head) - len(tail)
	more := func(n int) string { return fmt.Sprintf("- … and %d more (task-list shows them all)\n", n) }
	for i, l := range lines {
		need := len(l) + 1
		if left := total - i - 1; left > 0 {
			need += len(more(left))
		}
		if need > room {
			b.WriteString(more(total - i))
			return Cap(b.String()+tail, max)
		}
		b.WriteString(l)
		b.WriteByte('\n')
		room -= len(l) + 1
	}
	if n := total - len(lines); n > 0 {
		b.WriteString(more(n))
	}
	return Cap(b.String()+tail, max)
}

// maxStuck caps the stuck tasks explained in a directive.
const maxStuck = 5

// stuckAdvice explains the blocked tasks whose blockers are deleted or
// missing (they would wait forever), at most maxStuck of them and room
// bytes in all; "" when there are none.
func stuckAdvice(q Queue, room int) string {
	const more = "\n(More tasks wait on deleted or missing blockers: task-list shows them.)"
	var b strings.Builder
	n := 0
	for _, it := range q.Items {
		if !it.Stuck() {
			continue
		}
		one := stuckLine(it)
		if n++; n > maxStuck || b.Len()+len(one)+len(more) > room {
			if b.Len()+len(more) <= room {
				b.WriteString(more)
			}
			break
		}
		b.WriteString(one)
	}
	return b.String()
}

// stuckLine is the advice for one stuck task.
func stuckLine(it Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s can never start as things stand:", it.Task.ID)
	if len(it.Deleted) > 0 {
		id := "<id>"
		if len(it.Deleted) == 1 {
			id = it.Deleted[0]
		}
		fmt.Fprintf(&b, " its blocker %s %s deleted (if that work is done or no longer needed, mark it completed: task-update %s --status completed);",
			fewIDs(it.Deleted), isAre(len(it.Deleted)), id)
	}
	if len(it.Missing) > 0 {
		fmt.Fprintf(&b, " its blocker %s %s not in the task store, so %s never be completed;",
			fewIDs(it.Missing), isAre(len(it.Missing)), itThey(len(it.Missing)))
	}
	fmt.Fprintf(&b, " re-plan it (create a replacement task with task-create without that blocker, then task-update %s --status deleted), or delete it if it no longer applies.", it.Task.ID)
	return b.String()
}

// fewIDs joins at most 2 ids, then "and N more" (the task's line names
// up to MaxBlockersShown).
func fewIDs(list []string) string {
	if len(list) <= 2 {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:2], ", ") + fmt.Sprintf(" and %d more", len(list)-2)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThey(n int) string {
	if n == 1 {
		return "it can"
	}
	return "they can"
}

// MaxBlockersShown caps the blockers named on one Line: a task with
// thousands of blockers is shown with the first few and a count.
const MaxBlockersShown = 5

// MaxReasonBytes caps a Stop or SubagentStop directive, whatever the
// store holds: 2 KiB, about 512 tokens at 4 bytes a token (the estimate
// docs/hooks.md states). Its fixed text is kept whole and the task lines
// fill what is left (Fit).
const MaxReasonBytes = 2 << 10

// MaxSummaryBytes caps the SessionStart text (the task summary, or the
// onboarding lines): 1.5 KiB, about 384 tokens, whether the store holds
// 50 tasks or 50,000.
const MaxSummaryBytes = 1536

// Line renders one item: "- T-… [pending, blocked by T-…] subject (stale: 30h)";
// a blocker that is deleted or missing is marked "T-… (deleted)" or "T-…
// (missing)". At most MaxBlockersShown blockers are named, then "and N
// more".
func Line(it Item) string {
	t := it.Task
	state := string(t.Status)
	if it.Blocked() {
		shown := it.Blockers[:min(len(it.Blockers), MaxBlockersShown)]
		ids := make([]string, len(shown))
		for i, id := range shown {
			ids[i] = id
			switch {
			case slices.Contains(it.Deleted, id):
				ids[i] += " (deleted)"
			case slices.Contains(it.Missing, id):
				ids[i] += " (missing)"
			}
		}
		state += ", blocked by " + strings.Join(ids, ", ")
		if n := len(it.Blockers) - len(shown); n > 0 {
			state += fmt.Sprintf(" and %d more", n)
		}
	}
	s := fmt.Sprintf("- %s [%s] %s", t.ID, state, subject(t))
	if it.Stale {
		s += fmt.Sprintf(" (stale: %s)", hours(it.Idle))
	}
	return s
}

// Cap cuts text to at most max bytes, at the last line break that fits,
// adding a line that says the rest was left out.
func Cap(text string, max int) string {
	if len(text) <= max {
		return text
	}
	const note = "\n(… cut to fit; task-list shows every task.)"
	cut := max - len(note)
	if cut < 0 {
		cut = 0
	}
	if i := strings.LastIndexByte(text[:cut], '\n'); i > 0 {
		cut = i
	}
	for cut > 0 && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut] + note
}

// hours renders an idle time as people write it: whole hours from one
// hour up ("30h", rounded down), whole minutes below ("40m").
func hours(d time.Duration) string {
	if d >= time.Hour {
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}

// Window renders a configured window (tasks.stale_after_hours,
// background_stale_after_hours) exactly as people write it: "24h", "1.5h",
// "2.25h" (at most two decimals), and minutes below an hour ("15m" for
// 0.25, "45m").
func Window(d time.Duration) string {
	if d < time.Hour {
		m := d.Minutes()
		if m == float64(int(m)) {
			return fmt.Sprintf("%dm", int(m))
		}
		return strconv.FormatFloat(math.Round(m*100)/100, 'f', -1, 64) + "m"
	}
	return strconv.FormatFloat(math.Round(d.Hours()*100)/100, 'f', -1, 64) + "h"
}

// maxSubjectShown caps a subject on a task's line, in bytes.
const maxSubjectShown = 100

// subject is the task's subject on one line, at most maxSubjectShown
// bytes (then "…").
func subject(t *task.Task) string {
	s := strings.Join(strings.Fields(t.Subject), " ")
	if len(s) > maxSubjectShown {
		cut := maxSubjectShown
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
