package hook

import "strings"

// The task discipline in our words, in the forms the hosts take it: a
// Claude Code skill (Skill), a CLAUDE.md / AGENTS.md section for hosts
// without skills (Snippet, printed by `matrixx-hook snippet`), the few lines
// SessionStart adds when the store is empty (Onboarding), and the Claude
// Code slash commands (Commands). Install writes the skill and the
// commands next to the settings file; uninstall removes them
// (docs/hooks.md, "Onboarding").

// SkillName is the skill's name: its directory under .claude/skills.
const SkillName = "matrixx-tasks"

// discipline is the body shared by the skill and the snippet.
const discipline = `The project keeps its tasks in .matrixx/tasks, one JSON file per task, managed only through
the task binaries (each reads one JSON document on stdin, or flags, and answers one JSON document):

- task-create: new tasks (` + "`task-create --subject \"Build backend\" --blocked-by T-…`" + `, or a batch
  ` + "`{\"items\":[…]}`" + ` on stdin)
- task-list: active tasks and their unresolved blockers (` + "`task-list --ready`" + ` is the runnable work)
- task-get: one task's full record
- task-update: status, owner, blockers, metadata (` + "`task-update T-… --status completed`" + `)
- task-claim: take a task for yourself before working on it, so no other agent takes it too
- task-cleanup: remove old completed tasks
- plan: markdown plans in .matrixx/plans edited by anchored lines (` + "`plan read NAME`" + `, ` + "`plan update NAME`" + `)

Never read or write .matrixx/tasks or .matrixx/plans with file tools, shell redirections or
sed: the hooks deny it, and the binaries keep the files consistent under concurrent agents.

## Rules

1. Plan before you work: split the request into tasks (task-create) before touching code. One
   task is one unit of work you can finish and verify on its own.
2. Claim before you work: task-claim <id> --owner <you> (or task-claim --owner <you> for the
   next ready task) right before you start it, never earlier. Do not start with task-update
   --status in_progress: it takes no lease, and a task another agent has claimed refuses it.
3. One task in_progress per agent at a time. Finish or hand back the one you hold before taking
   another.
4. Complete as you go: mark each task completed (task-update --status completed) the moment it
   is done and verified. Never batch completions at the end.
5. Waves for parallelism: tasks whose blockedBy is empty form the current wave and can run at
   the same time, each by its own agent (task-list --ready lists them). The next wave is what
   their completion unblocks.
6. Reading blockedBy: task-list shows only the blockers that are not completed yet. An empty
   blockedBy means runnable now; a listed id means wait for that task (or work on it first).
   Express order with --blocked-by when you create tasks, not with prose.
7. Plans: for multi-step work write a plan (plan create NAME), then file one task per numbered
   item (plan tasks NAME | task-create). Edit a plan only with plan update, whose edits are
   anchored to the line ids plan read shows (N#ID), so two agents never overwrite each other.
8. Notes: each created task has a notepad under .matrixx/notepads (the hook says where). Write
   what you learn there, for whoever picks the task up next.
9. While tasks of yours are pending or in_progress, the Stop hook sends you back to work. If you
   are blocked, say why in the task (task-update --description or metadata) and ask the user.
`

// Skill is the Claude Code skill, .claude/skills/matrixx-tasks/SKILL.md.
const Skill = `---
name: ` + SkillName + `
description: Plan and track work as matrixx tasks (task-create, task-list, task-update, task-claim, plan). Use at the start of any multi-step request, before editing code, and whenever you pick up, finish or hand over a piece of work.
---
` + commandMarker + `

# matrixx tasks

` + discipline

// Snippet is the same text as a section for CLAUDE.md or AGENTS.md, for
// hosts without skills (`matrixx-hook snippet`).
const Snippet = `## Tasks (matrixx)

` + discipline

// Onboarding is what SessionStart adds in a project whose store has no
// active task: that the tools exist, and the rules in a few lines.
const Onboarding = `matrixx tasks: this project tracks work with the task binaries (no active tasks yet).
Before multi-step work, plan it into tasks: task-create (--subject "…", --blocked-by T-… for order), then task-list --ready for the runnable ones.
Start a task with task-claim <id> --owner <you> right before you work on it; hold one in_progress at a time; task-update --status completed the moment each is done, never in a batch.
Never edit .matrixx/tasks or .matrixx/plans directly: use the binaries (plans: plan read / plan update). The ` + SkillName + ` skill has the full rules.`

// SlashCommand is one Claude Code slash command: its file name under
// .claude/commands (without .md) and its content.
type SlashCommand struct {
	Name, Content string
}

// commandMarker is in every skill and command file install writes, so
// uninstall removes only its own files (a user's file of the same name
// stays).
const commandMarker = "<!-- written by matrixx-hook install; matrixx-hook uninstall removes it -->"

// Commands are the slash commands install writes (/task-list, /task-ready,
// /cleanup-tasks, /continuation).
var Commands = []SlashCommand{
	{"task-list", `---
description: List the project's active matrixx tasks and their blockers
allowed-tools: Bash(task-list:*)
---
` + commandMarker + `
Run ` + "`task-list`" + ` (with $ARGUMENTS as its flags when given, e.g. --ready, --status completed, --all) and show the tasks as a short table: id, status, subject, owner, unresolved blockedBy. Then say which tasks are runnable now (pending with an empty blockedBy).
`},
	{"task-ready", `---
description: Show the matrixx tasks that are ready to work on now, and pick one
allowed-tools: Bash(task-list:*), Bash(task-get:*)
---
` + commandMarker + `
Run ` + "`task-list --ready`" + `: these pending tasks have no unresolved blocker and form the current wave. List them (id, subject). If none are yours in_progress, propose the first one to claim (task-claim <id> --owner <you>) and wait for the user's go-ahead unless $ARGUMENTS says to start.
`},
	{"cleanup-tasks", `---
description: Remove old completed matrixx tasks (task-cleanup), after a dry run
allowed-tools: Bash(task-cleanup:*)
---
` + commandMarker + `
Run ` + "`task-cleanup --dry-run`" + ` first and show what it would remove. Then run ` + "`task-cleanup`" + ` (with $ARGUMENTS as its flags when given) and report what was removed. Tasks that still block others, and plan items, are kept.
`},
	{"continuation", `---
description: Turn the matrixx continuation hook off (or on) for this session only
argument-hint: off | on | status
allowed-tools: Bash(matrixx-hook continuation:*)
---
` + commandMarker + `
Run ` + "`matrixx-hook continuation $ARGUMENTS`" + ` (off when no argument is given) and report its answer. Off: this session's stops are no longer held back by open tasks until it is turned on again; other sessions are not affected.
`},
}

// GuideFile is one file install writes next to the settings file: its
// path relative to the .claude directory, and its content.
type GuideFile struct {
	Path, Content string
}

// GuideFiles are the skill and the slash commands, relative to a .claude
// directory: skills/matrixx-tasks/SKILL.md and commands/<name>.md.
func GuideFiles() []GuideFile {
	out := []GuideFile{{"skills/" + SkillName + "/SKILL.md", Skill}}
	for _, c := range Commands {
		out = append(out, GuideFile{"commands/" + c.Name + ".md", c.Content})
	}
	return out
}

// IsOurGuide reports whether a skill or command file was written by
// install (it carries the marker line).
func IsOurGuide(content []byte) bool {
	return strings.Contains(string(content), commandMarker)
}
