package hook

// hostTaskTools maps the host's own todo and task tools (Claude Code's
// TodoWrite, TodoRead in older versions, and the native TaskCreate,
// TaskUpdate, TaskList, TaskGet of versions that offer them) to the
// binary that does their job on the one task store ("no dual substrate":
// a second task list would drift from the store the continuation hook,
// the plans and the other agents read). Claude Code's Task and Agent tools
// (subagents) and TaskOutput/TaskStop (background shells) are not task
// lists and are not here.
var hostTaskTools = map[string]string{
	"TodoWrite":  "task-create --subject … for a new item, task-claim <id> --owner <you> to start one and task-update <id> --status completed to tick it off (task-list shows them)",
	"TodoRead":   "task-list (task-get <id> for one task)",
	"TaskCreate": "task-create --subject … (or a JSON document on stdin: task-create --help)",
	"TaskUpdate": "task-claim <id> --owner <you> to start a task, task-update <id> --status completed|pending|deleted for the rest (task-update --help)",
	"TaskList":   "task-list (--ready for what can run now)",
	"TaskGet":    "task-get <id>",
}

// hostToolDenial is the PreToolUse answer for one of the host's own task
// tools (docs/hooks.md): a denial naming the binary to use instead,
// unless tasks.deny_host_task_tools is false. Any other tool: nil. A
// broken config falls back to the defaults (deny).
func (r *Runner) hostToolDenial(ev *Event) any {
	use, ok := hostTaskTools[ev.Tool]
	if !ok {
		return nil
	}
	p, err := r.project(ev)
	if err != nil && p == nil {
		r.log.Printf(NameGuard, "host tool %s: %v (denied by default)", ev.Tool, err)
	}
	if p != nil && !p.cfg.Tasks.DenyHostTaskTools {
		r.log.Printf(NameGuard, "host tool %s allowed: tasks.deny_host_task_tools is false", ev.Tool)
		return nil
	}
	r.log.Printf(NameGuard, "deny (rule host-task-tool): %s", ev.Tool)
	return deny("matrixx-hook: this project keeps its tasks in one place, the matrixx task store (.matrixx/tasks), so the host's own " + ev.Tool + " tool is turned off: a second task list would drift from the store that the other agents, the plans and the stop hook read. Use the task binaries through Bash instead: " + use + ". To allow " + ev.Tool + ", set \"tasks\": {\"deny_host_task_tools\": false} in .matrixx/matrixx.jsonc (see docs/hooks.md).")
}

// preToolUseAll is the PreToolUse handler: the host's own task tools
// first, then task-edit-guard.
func (r *Runner) preToolUseAll(ev *Event, sc *scan) any {
	if a := r.hostToolDenial(ev); a != nil {
		return a
	}
	return r.preToolUse(ev, sc)
}
