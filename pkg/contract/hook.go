package contract

// The answers of matrixx-hook, as the hosts read them on its stdout (at
// most one JSON object per event; no output means no opinion). pkg/hook
// builds them; docs/schemas/matrixx-hook.output.json describes them.

// PreToolUseAnswer denies a tool call:
//
//	{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"…"}}
type PreToolUseAnswer struct {
	HookSpecificOutput PreToolUseOutput `json:"hookSpecificOutput"`
}

// PreToolUseOutput is a denial's hookSpecificOutput.
type PreToolUseOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// StopAnswer blocks a stop (Stop, SubagentStop): {"decision":"block","reason":"…"}.
// With systemMessage (to the person) when the integrity check adopted or
// undid something; a stop that is not blocked then carries only it.
type StopAnswer struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// ContextAnswer adds context at session start:
//
//	{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"…"}}
type ContextAnswer struct {
	HookSpecificOutput ContextOutput `json:"hookSpecificOutput"`
}

// ContextOutput is added context's hookSpecificOutput.
type ContextOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// PostToolUseAnswer reports after a tool call: additionalContext to the agent,
// systemMessage to the person.
//
//	{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"…"},"systemMessage":"…"}
type PostToolUseAnswer struct {
	HookSpecificOutput *ContextOutput `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string         `json:"systemMessage,omitempty"`
}
