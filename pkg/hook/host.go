package hook

import (
	"fmt"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Host is the agent host whose hook protocol an event follows
// (docs/hosts.md). Each host's events, tool names and answers are mapped
// onto the same four hooks: the guard, the notepad writer, the
// continuation enforcer and the session start.
type Host int

// The hosts. HostAuto recognises the host from the event (see detect).
const (
	HostAuto Host = iota
	HostClaude
	HostCodex
	HostGemini
)

// ParseHost reads a --host value: claude, codex or gemini ("" is auto).
func ParseHost(s string) (Host, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return HostAuto, nil
	case "claude", "claude-code":
		return HostClaude, nil
	case "codex":
		return HostCodex, nil
	case "gemini", "gemini-cli":
		return HostGemini, nil
	}
	return HostAuto, fmt.Errorf("unknown host %q (want claude, codex or gemini)", s)
}

func (h Host) String() string {
	switch h {
	case HostClaude:
		return "claude"
	case HostCodex:
		return "codex"
	case HostGemini:
		return "gemini"
	}
	return "auto"
}

// Gemini CLI's hook events (the ones matrixx-hook answers, and the others
// that only Gemini CLI sends, by which it is recognised).
const (
	BeforeTool  = "BeforeTool"
	AfterTool   = "AfterTool"
	AfterAgent  = "AfterAgent"
	BeforeAgent = "BeforeAgent"
)

// geminiEvents maps Gemini CLI's event names onto Claude Code's; the
// events without a counterpart map to "" (no hook: no opinion).
var geminiEvents = map[string]string{
	BeforeTool:            PreToolUse,
	AfterTool:             PostToolUse,
	AfterAgent:            Stop,
	BeforeAgent:           "",
	"BeforeModel":         "",
	"AfterModel":          "",
	"BeforeToolSelection": "",
	"PreCompress":         "",
}

// detect recognises the host of an event that came without --host:
//   - Gemini CLI by its own event names (BeforeTool, AfterTool, AfterAgent,
//     …), or a SessionStart or SessionEnd with a "timestamp" member (every
//     Gemini event has one, Claude Code's and Codex's have none; the rule
//     is kept to the events whose answers are the same on every host, so
//     a timestamp a future Claude Code adds cannot change a deny's shape);
//   - Codex CLI by "turn_id" (on every event but SessionStart), or the tool
//     name apply_patch;
//   - else Claude Code. A Codex SessionStart is taken for Claude Code's:
//     the two hosts read the same SessionStart answer.
func detect(ev *Event) Host {
	if _, ok := geminiEvents[ev.Name]; ok {
		return HostGemini
	}
	if ev.HasTimestamp && (ev.Name == SessionStart || ev.Name == "SessionEnd") {
		return HostGemini
	}
	if ev.TurnID != "" || ev.Tool == "apply_patch" {
		return HostCodex
	}
	return HostClaude
}

// normalise maps a Codex or Gemini event onto Claude Code's names so the
// hooks see one shape:
//
//   - Gemini: BeforeTool → PreToolUse, AfterTool → PostToolUse, AfterAgent
//     → Stop; run_shell_command → Bash (its dir_path or directory becomes
//     the cwd field the guard resolves the command from); tool_response's
//     returnDisplay (the command's output), else llmContent, is the text
//     the notepad writer reads. Other tools keep their names (write_file,
//     replace, read_file, … are judged by the words in their names), and
//     relative paths resolve from the event's cwd.
//   - Codex: apply_patch's patch text (tool_input.command) is parsed and
//     every file it adds, updates, deletes or moves (both names) becomes a
//     path value the guard judges as a write; a Bash command holding a
//     patch (apply_patch run through the shell) has those paths judged
//     too. A patch cut for size (over MaxString) is marked truncated, so
//     the guard refuses it when it mentions a guarded directory.
func normalise(ev *Event, host Host) {
	ev.Host = host
	switch host {
	case HostGemini:
		if name, ok := geminiEvents[ev.Name]; ok {
			ev.HostName, ev.Name = ev.Name, name
			if name == "" {
				ev.Name = "Gemini" + ev.HostName // no hook answers it
			}
		}
		if ev.Tool == "run_shell_command" {
			ev.HostTool, ev.Tool = ev.Tool, "Bash"
			for _, f := range []string{"dir_path", "directory"} {
				if v, ok := ev.Input.Paths[f]; ok {
					delete(ev.Input.Paths, f)
					ev.Input.Paths["cwd"] = append(ev.Input.Paths["cwd"], v...)
				}
			}
		}
		if ev.Response.Display != "" {
			ev.Response.Stdout = ev.Response.Display
		} else if ev.Response.LLM != "" {
			ev.Response.Stdout = ev.Response.LLM
		}
	case HostCodex:
		switch {
		case ev.Tool == "apply_patch":
			paths, cut := patchPaths(ev.Input.Command)
			ev.Input.Command = ""
			addPaths(ev, paths, cut)
		case ev.Tool == "Bash" && strings.Contains(ev.Input.Command, patchBegin):
			paths, cut := patchPaths(ev.Input.Command)
			addPaths(ev, paths, cut)
		}
	}
}

// addPaths adds the files of a patch as file_path values.
func addPaths(ev *Event, paths []string, cut bool) {
	if cut {
		ev.Input.Truncated = true
	}
	if len(paths) == 0 {
		return
	}
	if ev.Input.Paths == nil {
		ev.Input.Paths = map[string][]string{}
	}
	for _, p := range paths {
		if len(ev.Input.Paths["file_path"]) >= maxPaths {
			ev.Input.Truncated = true
			break
		}
		ev.Input.Paths["file_path"] = append(ev.Input.Paths["file_path"], p)
	}
}

// The markers of Codex's patch format (apply_patch).
const (
	patchBegin  = "*** Begin Patch"
	patchAdd    = "*** Add File:"
	patchDelete = "*** Delete File:"
	patchUpdate = "*** Update File:"
	patchMove   = "*** Move to:"
)

// patchPaths returns every file a Codex patch names: after "*** Add
// File:", "*** Delete File:", "*** Update File:" and "*** Move to:", in
// order, each trimmed of surrounding blanks. Header lines are recognised
// wherever they occur (leading blanks allowed), in every patch of the text;
// cut is set when the text ends with the cut sentinel (only its first
// MaxString bytes were seen).
func patchPaths(text string) (paths []string, cut bool) {
	text, cut = strings.CutSuffix(text, "\x00")
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if !strings.HasPrefix(l, "*** ") {
			continue
		}
		for _, m := range []string{patchAdd, patchDelete, patchUpdate, patchMove} {
			if rest, ok := strings.CutPrefix(l, m); ok {
				if p := strings.TrimSpace(rest); p != "" {
					paths = append(paths, p)
				}
				break
			}
		}
	}
	return paths, cut
}

// geminiAnswer is Gemini CLI's decision answer: {"decision":"deny",
// "reason":R}. On BeforeTool the tool does not run and R reaches the model
// ("Tool execution blocked: R"); on AfterAgent R is sent as a new user
// turn. Gemini CLI ignores Claude Code's permissionDecision.
type geminiAnswer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// geminiToolInput rewrites a tool call's arguments before it runs:
//
//	{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"…"}}}
type geminiToolInput struct {
	HookSpecificOutput geminiToolInputOutput `json:"hookSpecificOutput"`
}

type geminiToolInputOutput struct {
	HookEventName string            `json:"hookEventName"`
	ToolInput     map[string]string `json:"tool_input"`
}

// translate turns an answer in Claude Code's shape into the host's. Codex
// CLI reads Claude Code's answers as they are, but voids an answer with any
// field it does not know, so its answers are exactly those shapes.
func translate(host Host, v any) any {
	if host == HostCodex {
		// systemMessage is not one of Codex's answer fields: the line for
		// the agent rides in additionalContext alone.
		if a, ok := v.(contract.PostToolUseAnswer); ok {
			if a.HookSpecificOutput == nil {
				return nil
			}
			a.SystemMessage = ""
			return a
		}
		if a, ok := v.(contract.StopAnswer); ok && a.SystemMessage != "" {
			if a.Decision == "" {
				return nil
			}
			a.Reason = a.SystemMessage + "\n" + a.Reason
			a.SystemMessage = ""
			return a
		}
		return v
	}
	if host != HostGemini {
		return v
	}
	switch a := v.(type) {
	case contract.PreToolUseAnswer:
		return geminiAnswer{Decision: "deny", Reason: a.HookSpecificOutput.PermissionDecisionReason}
	case contract.StopAnswer:
		return geminiAnswer{Decision: "deny", Reason: a.Reason}
	}
	return v
}

// geminiStamp is the answer for a Gemini run_shell_command that runs
// task-create or task-update (and that the guard allowed): Gemini's shell
// carries no session variable, so the command is rewritten to
// `export MATRIXX_SESSION_ID=<session_id>; <command>` and the tasks it
// writes get the session's threadID, as under Claude Code (where
// SessionStart exports it) and Codex (CODEX_SESSION_ID). A command that
// already sets MATRIXX_SESSION_ID or passes --session is left alone; nil
// when nothing is to be done.
func (r *Runner) geminiStamp(ev *Event) any {
	if ev.Host != HostGemini || ev.Tool != "Bash" || ev.SessionID == "" || ev.Input.Command == "" {
		return nil
	}
	if strings.Contains(ev.Input.Command, sessionVar) || strings.Contains(ev.Input.Command, "--session") {
		return nil
	}
	if c, u := taskCalls(ev.Input.Command); !c && !u {
		return nil
	}
	q, err := syntax.Quote(ev.SessionID, syntax.LangBash)
	if err != nil {
		r.log.Printf(NameGuard, "session id not stamped: %v", err)
		return nil
	}
	cmd := "export " + sessionVar + "=" + q + "; " + ev.Input.Command
	r.log.Printf(NameGuard, "allow, with %s=%s set for the task binaries", sessionVar, ev.SessionID)
	return geminiToolInput{geminiToolInputOutput{HookEventName: BeforeTool, ToolInput: map[string]string{"command": cmd}}}
}
