package enforce

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// claimScope applies the claim rule of the scope (docs/claims.md): a task
// whose live claim (in_progress, lease not ended) names a session belongs
// to that session, whoever created it; decided reports whether the claim
// settled it. A claim without a session, an expired claim, or none leaves
// the threadID rule in force.
func (in Input) claimScope(t *task.Task) (inScope, decided bool) {
	c := claim.Live(t, in.Now)
	if c == nil || c.Session == "" || c.Session == project.NoSession {
		return false, false
	}
	return c.Session == in.Session, true
}

// claimOwner is the owner named by the task's live claim, "" when none.
func (in Input) claimOwner(t *task.Task) string {
	if c := claim.Live(t, in.Now); c != nil {
		return c.Owner
	}
	return ""
}
