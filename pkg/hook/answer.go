package hook

import (
	"io"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
)

// Answers in Claude Code's hook protocol. The hook writes at
// most one of them, as one JSON object on stdout followed by a newline, and
// exits 0; no answer at all means "no opinion".

// preToolUseAnswer denies a tool call:
//
//	{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"…"}}
type preToolUseAnswer struct {
	HookSpecificOutput preToolUseOutput `json:"hookSpecificOutput"`
}

type preToolUseOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// deny refuses a tool call with reason, at most guard.MaxReasonBytes.
func deny(reason string) preToolUseAnswer {
	return preToolUseAnswer{preToolUseOutput{PreToolUse, "deny", guard.FitReason(reason)}}
}

// stopAnswer blocks a stop (Stop, SubagentStop): {"decision":"block","reason":"…"}.
// With systemMessage (to the person) when the integrity check adopted or
// undid something; a stop that is not blocked then carries only it.
type stopAnswer struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// contextAnswer adds context at session start:
//
//	{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"…"}}
type contextAnswer struct {
	HookSpecificOutput contextOutput `json:"hookSpecificOutput"`
}

type contextOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// writeAnswer writes v as the one JSON object on stdout.
func writeAnswer(w io.Writer, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
