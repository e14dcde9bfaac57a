package ops

import (
	"errors"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
)

// Failure is what every front end prints for a failed operation: the
// answer document and the human line for stderr. The document is the flat
// envelope {"error","message"}, except for plan update's anchor_mismatch
// (contract.MismatchAnswer) and plan_link_broken (contract.LinkAnswer),
// which carry what the caller needs to retry.
func Failure(err error) (doc any, line string) {
	e := errcode.As(err)
	var me *hashline.MismatchError
	if errors.As(err, &me) {
		ms := make([]hashline.Mismatch, len(me.Mismatches))
		for i, m := range me.Mismatches {
			m.Current = ValidUTF8(m.Current)
			ctx := make([]string, len(m.Context))
			for k, c := range m.Context {
				ctx[k] = ValidUTF8(c)
			}
			m.Context = ctx
			ms[i] = m
		}
		return contract.MismatchAnswer{Error: e.Code, Message: ValidUTF8(e.Message), TotalLines: me.TotalLines, Mismatches: ms}, e.Error()
	}
	var le *plan.LinkError
	if errors.As(err, &le) {
		ans := contract.LinkAnswer{Error: e.Code, Message: ValidUTF8(e.Message), Links: []contract.BrokenLink{}}
		for _, br := range le.Broken {
			bl := contract.BrokenLink{Task: br.ID, Subject: ValidUTF8(br.Subject), PlanItem: br.Item, PlanItemText: ValidUTF8(br.Text), Reason: br.Reason, Candidates: []contract.CandidateItem{}}
			for _, c := range br.Candidates {
				bl.Candidates = append(bl.Candidates, contract.CandidateItem{Item: c.Number, Line: c.Line, Text: ValidUTF8(c.Text), Done: c.Done})
			}
			ans.Links = append(ans.Links, bl)
		}
		return ans, ValidUTF8(e.Error())
	}
	return contract.ErrorAnswer{Error: e.Code, Message: e.Message}, e.Error()
}
