// Package guard decides whether a tool call may touch the plan and task
// stores (spec §8.2, DESIGN D13): writes to .matrixx/plans and
// .matrixx/tasks and generic reads of .matrixx/plans are denied, through
// file tools and through Bash (parsed with mvdan.cc/sh/v3/syntax).
package guard

// Request is what the guard needs from a PreToolUse event.
type Request struct {
	// Tool is tool_name: "Bash", "Write", "Edit", "MultiEdit",
	// "NotebookEdit", "Read", "mcp__<server>__<tool>", …
	Tool string
	// Cwd is the event's cwd (absolute); relative paths resolve from it.
	Cwd string
	// Command is tool_input.command (Bash only).
	Command string
	// Paths are the path-like string fields of tool_input (see
	// IsPathField), field name → values. Large fields such as a Write's
	// content are never included.
	Paths map[string][]string
	// Extra lists further directories to guard like .matrixx/tasks (for
	// example a task store moved by tasks.storage_path).
	Extra []string
}

// Decision is the guard's answer. The zero value means "no opinion".
type Decision struct {
	// Deny is true when the call must be refused.
	Deny bool
	// Reason tells the agent what was refused and which binary to use.
	Reason string
	// Rule names the rule that fired (for MATRIXX_DEBUG logs).
	Rule string
}

// IsPathField reports whether a tool_input field name carries a path
// (file_path, notebook_path, path, …).
func IsPathField(name string) bool {
	switch name {
	case "file_path", "notebook_path", "path", "filePath", "filename", "file":
		return true
	}
	return false
}

// Check decides one tool call. Placeholder until the hook issue lands.
func Check(req Request) Decision {
	return Decision{}
}
