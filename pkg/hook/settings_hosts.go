package hook

import "path/filepath"

// CodexEntries are what `matrixx-hook install --host codex` adds to Codex
// CLI's hooks.json (the same shape as Claude Code's "hooks"; matchers are
// regular expressions over tool_name). PreToolUse covers the shell tool
// (Bash), apply_patch and MCP tools; PostToolUse the two ways the task
// tools run.
var CodexEntries = []Entry{
	{PreToolUse, "Bash|apply_patch|mcp__.*"},
	{PostToolUse, "Bash|mcp__.*"},
	{Stop, ""},
	{SessionStart, ""},
}

// GeminiEntries are what `matrixx-hook install --host gemini` adds to
// Gemini CLI's settings.json "hooks". BeforeTool runs for every tool (the
// guard judges file tools by the words in their names and has no opinion
// on the others); AfterTool for the shell tool, which runs the task
// binaries.
var GeminiEntries = []Entry{
	{BeforeTool, ".*"},
	{AfterTool, "run_shell_command"},
	{AfterAgent, ""},
	{SessionStart, ""},
	{SessionEnd, ""},
}

// HostSettings returns the settings file install writes for a host:
// Codex CLI's <root>/.codex/hooks.json (with user: $CODEX_HOME/hooks.json,
// CODEX_HOME defaulting to ~/.codex), Gemini CLI's
// <root>/.gemini/settings.json (with user: ~/.gemini/settings.json).
func HostSettings(h Host, root, home, codexHome string, user bool) string {
	switch h {
	case HostCodex:
		if user {
			if codexHome == "" {
				codexHome = filepath.Join(home, ".codex")
			}
			return filepath.Join(codexHome, "hooks.json")
		}
		return filepath.Join(root, ".codex", "hooks.json")
	case HostGemini:
		if user {
			return filepath.Join(home, ".gemini", "settings.json")
		}
		return filepath.Join(root, ".gemini", "settings.json")
	}
	return ""
}

// HostEntries returns the entries install writes for a host (Entries for
// Claude Code).
func HostEntries(h Host) []Entry {
	switch h {
	case HostCodex:
		return CodexEntries
	case HostGemini:
		return GeminiEntries
	}
	return Entries
}
