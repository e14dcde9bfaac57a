package hook

import (
	"io"

	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/guard"
)

// Answers in Claude Code's hook protocol. The hook writes at
// most one of them, as one JSON object on stdout followed by a newline, and
// exits 0; no answer at all means "no opinion".

// deny refuses a tool call with reason, at most guard.MaxReasonBytes.
func deny(reason string) contract.PreToolUseAnswer {
	return contract.PreToolUseAnswer{HookSpecificOutput: contract.PreToolUseOutput{HookEventName: PreToolUse, PermissionDecision: "deny", PermissionDecisionReason: guard.FitReason(reason)}}
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
