package guard

import (
	"path"
	"strings"
	"unicode/utf8"
)

// The deny reasons are read by the agent: they say what was refused, which
// path, and which binary does the job instead.

const (
	tasksWay = "Task files change only through task-create, task-update and task-cleanup " +
		"(they lock, validate and write atomically); read tasks with task-get or task-list."
	plansWay = "Plans change only through plan create, plan update (edits anchored on the " +
		"LINE#ID tags that plan read prints), plan check (ticks an item) and plan delete."
	rootWay = "It holds the task store and the plans: remove tasks with task-cleanup " +
		"and plans with plan delete."
	configWay = "The configuration (disabled_hooks, tasks.*) is the user's to edit, by hand, " +
		"outside the agent: ask the user if a setting should change."
	stateWay = "It is the hooks' own state (kept by matrixx-hook, for the continuation hook and " +
		"the integrity check): leave it to the hooks."
)

// storeWhat names the store in a reason.
func storeWhat(st store) string {
	switch st {
	case tasks:
		return "in the task store (.matrixx/tasks)"
	case plans:
		return "a plan file (.matrixx/plans)"
	case extra:
		return "in the task store"
	case config:
		return "a matrixx config file"
	case configDir:
		return "the directory of the user's matrixx config"
	case state:
		return "in the hooks' state or records"
	}
	return "the .matrixx directory"
}

func storeWay(st store) string {
	switch st {
	case tasks, extra:
		return tasksWay
	case plans:
		return plansWay
	case config, configDir:
		return configWay
	case state:
		return stateWay
	}
	return rootWay
}

// MaxReasonBytes caps a deny reason: 600 bytes, about 150 tokens at 4
// bytes a token (docs/hooks.md states the estimate). Paths in a reason are
// shortened to their last maxPathShown bytes, and a reason still longer
// (a long command name or pattern in it) loses its middle (FitReason).
const MaxReasonBytes = 600

// maxPathShown caps a path named in a reason, in bytes: longer ones keep
// their end (the file and its directory), after "…".
const maxPathShown = 100

// FitReason returns reason when it fits MaxReasonBytes; else its start and
// its end (what to do instead) joined by " (…) ", cut on character
// boundaries, in at most MaxReasonBytes.
func FitReason(reason string) string {
	if len(reason) <= MaxReasonBytes {
		return reason
	}
	const gap = " (…) "
	tail := MaxReasonBytes / 2
	head := MaxReasonBytes - tail - len(gap)
	for head > 0 && !utf8.RuneStart(reason[head]) {
		head--
	}
	from := len(reason) - tail
	for from < len(reason) && !utf8.RuneStart(reason[from]) {
		from++
	}
	return reason[:head] + gap + reason[from:]
}

// clip keeps the last maxPathShown bytes of a long path, from a "/" when
// there is one there, after "…".
func clip(p string) string {
	if len(p) <= maxPathShown {
		return p
	}
	from := len(p) - (maxPathShown - len("…"))
	if i := strings.IndexByte(p[from:], '/'); i >= 0 && i < maxPathShown/2 {
		from += i
	}
	for from < len(p) && !utf8.RuneStart(p[from]) {
		from++
	}
	return "…" + p[from:]
}

// shown is the path as the agent wrote it, plus where a symlink led, each
// at most maxPathShown bytes.
func shown(p, resolved string) string {
	p = strings.ReplaceAll(p, selfUser, "$USER")
	p = clip(strings.ReplaceAll(p, string(unknown), "…"))
	if resolved != "" {
		return p + " (a link to " + clip(resolved) + ")"
	}
	return p
}

// writeReason is the reason for a refused write through Bash or a tool.
func writeReason(via string, st store, p, resolved string) string {
	return "Blocked: " + via + " would change " + shown(p, resolved) + ", " + storeWhat(st) + ". " + storeWay(st)
}

// handedReason is the reason for a program (an interpreter) handed a
// store path: the guard cannot tell what its code does with it.
func handedReason(via string, st store, p, resolved string) string {
	return "Blocked: " + via + " is handed " + shown(p, resolved) + ", " + storeWhat(st) +
		": a program given a store path may change it, and the guard cannot tell what its code does. " + storeWay(st)
}

// copyReason is the reason for a walk (rm -r, chmod -R) that reaches the
// store of another directory than the project the agent works in (proj:
// a snapshot, a backup).
func copyReason(via string, st store, p, resolved, proj string) string {
	return "Blocked: " + via + " would change " + shown(p, resolved) + ", " + storeWhat(st) + " of " + clip(proj) +
		": a copy, a backup or another worktree is guarded like the live store. If it is a copy to throw away, " +
		"ask the user to remove it by hand, outside the agent; task-cleanup and plan delete change only this project's store."
}

// planReadReason is the reason for a refused generic read of a plan.
func planReadReason(via, p, resolved string) string {
	name := strings.TrimSuffix(path.Base(slashes(p)), ".md")
	if name == "" || name == "." || name == "/" || strings.EqualFold(name, "plans") {
		name = "NAME"
	}
	return "Blocked: " + via + " reads " + shown(p, resolved) + ", a plan file (.matrixx/plans). " +
		"Read plans with plan read " + name + " (each line carries the LINE#ID anchor that plan update needs); " +
		"plan list shows every plan."
}

// toolReason is the reason for a refused file tool call.
func toolReason(tool string, st store, p, resolved string, read bool) string {
	if read {
		return planReadReason(tool, p, resolved)
	}
	return writeReason(tool, st, p, resolved)
}

// rawReason is the reason for a Bash command the guard could not parse,
// or not analyse reliably or in full (why says what happened), that
// names a guarded path next to a write.
func (e *env) rawReason(hit, why string) string {
	st := tasks
	switch {
	case indexFold(hit, ".matrixx/plans") == 0:
		st = plans
	case indexFold(hit, ".matrixx/state") == 0:
		st = state
	case indexFold(hit, ".matrixx/tasks") == 0:
	case containsFold(hit, "matrixx.json"):
		st = config
	default:
		for _, c := range e.config {
			if strings.EqualFold(c, hit) {
				st = config
			}
		}
		for _, c := range e.state {
			if strings.EqualFold(c, hit) {
				st = state
			}
		}
	}
	if why == "" {
		why = "it does not parse"
	}
	return "Blocked: the shell command could not be analysed reliably (" + why + ") and it names " + clip(hit) +
		" together with a write. " + storeWay(st)
}

// gitCleanReason is the reason for a git clean that would delete a
// guarded path (lost) of a .matrixx directory that git may not track
// (the guard cannot know what git tracks: it says so); mode is 'u'
// (plain), 'x' or 'X'.
func gitCleanReason(lost string, mode byte) string {
	var how string
	switch mode {
	case 'X':
		how = "if git does not track it (the guard cannot tell; -X deletes what is ignored, -e " +
			"patterns included). Drop -X, or name the paths to clean; "
	case 'x':
		how = "if git does not track it (the guard cannot tell; -x does not spare what is ignored). Add -e " +
			".matrixx to keep it (git clean -fdx -e .matrixx: the -e patterns still count with -x), or name " +
			"the paths to clean; "
	default:
		how = "if git does not track it (the guard cannot tell). Add -e .matrixx to keep it (git clean -fd " +
			"-e .matrixx; a \"!\" pattern keeps nothing), or name the paths to clean; "
	}
	return "Blocked: Bash (git clean) would delete " + clip(lost) + ", in the .matrixx directory, " + how + rootWay
}

// gitStashReason is the reason for a git stash -u/-a that would take a
// guarded path (lost) out of the work tree if git does not track it (the
// guard cannot know).
func gitStashReason(lost, what string) string {
	return "Blocked: Bash (" + what + ") would stash away " + clip(lost) + ", in the .matrixx directory, if git does " +
		"not track it (the guard cannot tell; the stash takes such a file out of the work tree). Name the paths " +
		"to stash (git stash push -u -- src/) or leave the store out (git stash push -u -- ':!.matrixx'); " +
		rootWay
}

// acceptReason is the reason for matrixx-hook accept inside an agent's
// command: accept records the stores and config as they are now as good
// (docs/integrity.md), which only the person who edited them by hand may
// say.
const acceptReason = "Blocked: matrixx-hook accept records the task store, plans, config files and hook state " +
	"as they are now as good, so the post-call check stops reporting hand edits. Only the user runs it, " +
	"in their own terminal, after checking the changes; an agent never does. Change tasks with task-update " +
	"and plans with plan update; for anything else, tell the user what changed and let them decide."
