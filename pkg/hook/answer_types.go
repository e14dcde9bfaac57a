package hook

// The answers' types under exported names, for their JSON Schemas
// (pkg/schema, docs/schemas/matrixx-hook.output.json).
type (
	// PreToolUseAnswer is a denial (see preToolUseAnswer).
	PreToolUseAnswer = preToolUseAnswer
	// StopAnswer blocks a stop (see stopAnswer).
	StopAnswer = stopAnswer
	// ContextAnswer adds context (see contextAnswer).
	ContextAnswer = contextAnswer
	// PostToolUseAnswer reports what the integrity check put back, with
	// the notepad writer's context (see postAnswer).
	PostToolUseAnswer = postAnswer
)
