package board

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/notepad"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Action is one POST /api/action body. Op is claim, complete, reopen,
// edit, add, depend or undepend. Every op but add names a task (ID) and
// the Version of it the page showed: the store applies the action only
// if the record still has that version (checked under the lock), else the
// answer is 409 with what changed since (Seen is what the page showed).
type Action struct {
	Op      string `json:"op"`
	ID      string `json:"id,omitempty"`
	Version string `json:"v,omitempty"`
	Seen    *Seen  `json:"seen,omitempty"`
	// edit and add
	Subject     *string        `json:"subject,omitempty"`
	Description *string        `json:"description,omitempty"`
	Priority    *task.Priority `json:"priority,omitempty"`
	Labels      *[]string      `json:"labels,omitempty"`
	// add: the parent and the blockers of the new task
	ParentID  string   `json:"parentID,omitempty"`
	BlockedBy []string `json:"blockedBy,omitempty"`
	// depend, undepend: the blocker to add or remove
	Blocker string `json:"blocker,omitempty"`
	// complete: complete someone else's live claim too
	Force bool `json:"force,omitempty"`
}

// Seen is what the page showed of a task (for the conflict's message).
type Seen struct {
	Subject   string        `json:"subject"`
	Status    task.Status   `json:"status"`
	Owner     string        `json:"owner"`
	Priority  task.Priority `json:"priority"`
	BlockedBy []string      `json:"blockedBy"`
	Labels    []string      `json:"labels"`
	ParentID  string        `json:"parentID"`
}

// Changed is one field that differs between what the page showed and
// the record.
type Changed struct {
	Field string `json:"field"`
	Seen  any    `json:"seen"`
	Now   any    `json:"now"`
}

// conflictError is a refused compare-and-swap: the task as it is now.
type conflictError struct {
	msg     string
	current *task.Task
}

func (e *conflictError) Error() string { return e.msg }

func (s *Server) action(w http.ResponseWriter, r *http.Request) {
	var a Action
	if err := json.UnmarshalRead(r.Body, &a, json.RejectUnknownMembers(true)); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, string(errcode.InputTooLarge), fmt.Sprintf("an action body is at most %d bytes", tooLarge.Limit))
			return
		}
		s.fail(w, r, errcode.New(errcode.InvalidArguments, "the action is not valid JSON: %v", err))
		return
	}
	t, err := s.do(&a)
	if err != nil {
		var ce *conflictError
		if errorsAs(err, &ce) {
			s.conflict(w, r, &a, ce)
			return
		}
		if c := errcode.Of(err); c == errcode.ClaimConflict || c == errcode.PreconditionFailed || c == errcode.TaskNotClaimable || c == errcode.TaskBlocked || c == errcode.LeaseConflict || c == errcode.ChildrenActive {
			cur, _ := s.st.Get(a.ID)
			s.conflict(w, r, &a, &conflictError{msg: errcode.As(err).Message, current: cur})
			return
		}
		s.fail(w, r, err)
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]any{"ok": true, "id": t.ID, "v": Version(t), "task": rawJSON(t)})
}

func errorsAs(err error, ce **conflictError) bool {
	c, ok := err.(*conflictError)
	if ok {
		*ce = c
	}
	return ok
}

// conflict answers 409 with the task as it is and the fields that differ
// from what the page showed.
func (s *Server) conflict(w http.ResponseWriter, r *http.Request, a *Action, ce *conflictError) {
	body := map[string]any{"error": "conflict", "message": ce.msg}
	if ce.current != nil {
		body["task"] = rawJSON(ce.current)
		body["v"] = Version(ce.current)
		if a.Seen != nil {
			body["changed"] = diffSeen(a.Seen, ce.current)
		}
	}
	fmt.Fprintf(s.opt.Log, "board: refused %s of %s: %s\n", a.Op, a.ID, ce.msg)
	writeJSON(w, r, http.StatusConflict, body)
}

func diffSeen(seen *Seen, t *task.Task) []Changed {
	out := []Changed{}
	add := func(field string, was, now any, differ bool) {
		if differ {
			out = append(out, Changed{field, was, now})
		}
	}
	add("subject", seen.Subject, t.Subject, seen.Subject != t.Subject)
	add("status", seen.Status, t.Status, seen.Status != t.Status)
	add("owner", seen.Owner, t.Owner, seen.Owner != t.Owner)
	add("priority", seen.Priority, t.Priority, seen.Priority != t.Priority)
	add("blockedBy", seen.BlockedBy, t.BlockedBy, !sameSet(seen.BlockedBy, t.BlockedBy))
	labels := t.Labels()
	add("labels", seen.Labels, labels, !sameSet(seen.Labels, labels))
	add("parentID", seen.ParentID, t.ParentID, seen.ParentID != t.ParentID)
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// fail answers an operation's error with its code and an HTTP status.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := errcode.As(err)
	status := http.StatusInternalServerError
	switch e.Code {
	case errcode.TaskNotFound, errcode.FileNotFound:
		status = http.StatusNotFound
	case errcode.InvalidArguments, errcode.ValidationError, errcode.InvalidTaskID, errcode.AmbiguousID:
		status = http.StatusBadRequest
	case errcode.DependencyCycle:
		status = http.StatusUnprocessableEntity
	case errcode.TaskLockUnavailable:
		status = http.StatusServiceUnavailable
	}
	fmt.Fprintf(s.opt.Log, "board: %s %s: %s\n", r.Method, r.URL.Path, e.Message)
	writeJSON(w, r, status, map[string]any{"error": e.Code, "message": e.Message})
}

// ops are the typed operations one action runs (pkg/ops), in the
// board's environment: the same operations, validation, lock, history and
// integrity records as task-claim, task-update and task-create.
func (s *Server) ops() *ops.Ops { return ops.New(s.opt.Env) }

// do runs one action through the typed operations and returns the task
// as stored.
func (s *Server) do(a *Action) (*task.Task, error) {
	o := s.ops()
	if a.Op == "add" {
		return s.add(o, a)
	}
	if a.ID == "" {
		return nil, errcode.New(errcode.InvalidArguments, "%s needs the task's id", a.Op)
	}
	if err := o.ResolveHandles([]*string{&a.ID}, nil); err != nil {
		return nil, err
	}
	if err := task.CheckID(errcode.InvalidTaskID, "id", a.ID); err != nil {
		return nil, err
	}
	id := a.ID
	if a.Version == "" {
		return nil, errcode.New(errcode.InvalidArguments, "%s needs the version of the task the page showed (v)", a.Op)
	}
	switch a.Op {
	case "claim":
		return s.claim(o, a)
	case "complete":
		st := task.Completed
		t, err := s.update(o, a, &task.UpdateRequest{ID: id, Status: &st, Force: a.Force}, func(t *task.Task) string {
			switch t.Status {
			case task.Completed:
				return "it is already completed"
			case task.Deleted:
				return "it is deleted (reopen it first)"
			}
			if c := claim.Live(t, time.Now()); c != nil && c.Owner != "" && c.Owner != s.opt.Me && !a.Force {
				return "it is claimed by " + c.Owner
			}
			return ""
		})
		if err == nil && planOf(t) != "" {
			// As matrixx done does: the plan's item of the task is ticked;
			// a failure leaves the task completed and is only logged.
			if _, perr := s.ops().PlanSync(planOf(t)); perr != nil {
				fmt.Fprintf(s.opt.Log, "board: the plan %s was not updated: %s (plan sync %s ticks it)\n", planOf(t), errcode.As(perr).Message, planOf(t))
			}
		}
		return t, err
	case "reopen":
		st := task.Pending
		return s.update(o, a, &task.UpdateRequest{ID: id, Status: &st}, func(t *task.Task) string {
			if t.Status != task.Completed && t.Status != task.Deleted {
				return "only a completed or deleted task can be reopened; it is " + string(t.Status)
			}
			return ""
		})
	case "edit":
		req := &task.UpdateRequest{ID: id, Subject: a.Subject, Description: a.Description, Priority: a.Priority}
		if a.Subject != nil && task.Blank(*a.Subject) {
			return nil, errcode.Field(errcode.ValidationError, "subject", "must not be blank")
		}
		if a.Priority != nil && *a.Priority != "" && !a.Priority.Valid() {
			return nil, errcode.Field(errcode.ValidationError, "priority", "%q is not one of low, medium, high", *a.Priority)
		}
		if a.Labels != nil {
			v, err := labelsValue(*a.Labels)
			if err != nil {
				return nil, err
			}
			req.Metadata = task.Metadata{"labels": v}
		}
		return s.update(o, a, req, nil)
	case "depend":
		b := a.Blocker
		if err := o.ResolveHandles([]*string{&b}, nil); err != nil {
			return nil, err
		}
		if err := task.CheckID(errcode.InvalidTaskID, "blocker", b); err != nil {
			return nil, err
		}
		if b == id {
			return nil, errcode.New(errcode.DependencyCycle, "a task cannot wait for itself")
		}
		return s.update(o, a, &task.UpdateRequest{ID: id, AddBlockedBy: []string{b}}, nil)
	case "undepend":
		b := a.Blocker
		if err := o.ResolveHandles([]*string{&b}, nil); err != nil {
			return nil, err
		}
		if err := task.CheckID(errcode.InvalidTaskID, "blocker", b); err != nil {
			return nil, err
		}
		return s.update(o, a, &task.UpdateRequest{ID: id, RemoveBlockedBy: []string{b}}, func(t *task.Task) string {
			if !slices.Contains(t.BlockedBy, b) {
				return "it does not wait for " + b
			}
			return ""
		})
	}
	return nil, errcode.New(errcode.InvalidArguments, "unknown action %q (claim, complete, reopen, edit, add, depend, undepend)", a.Op)
}

// labelsValue is metadata.labels: an array of non-blank strings, each
// trimmed, duplicates dropped; an empty list removes the key.
func labelsValue(labels []string) (jsontext.Value, error) {
	var out []string
	for _, l := range labels {
		l = strings.TrimSpace(l)
		if l == "" || slices.Contains(out, l) {
			continue
		}
		if len(l) > 100 {
			return nil, errcode.Field(errcode.ValidationError, "labels", "a label is at most 100 bytes")
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return jsontext.Value("null"), nil
	}
	return rawJSON(out), nil
}

// update runs req through task-update's operation, applied only when the
// record as read under the lock still has the page's version and check
// (when given) finds nothing wrong with it; otherwise nothing is written
// and the answer is a conflict naming the task as it is.
func (s *Server) update(o *ops.Ops, a *Action, req *task.UpdateRequest, check func(*task.Task) string) (*task.Task, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	var refused string
	var current *task.Task
	req.If = func(t *task.Task) bool {
		if v := Version(t); v != a.Version {
			refused, current = "the task changed since the page showed it", t
			return false
		}
		if check != nil {
			if why := check(t); why != "" {
				refused, current = why, t
				return false
			}
		}
		return true
	}
	ans, err := o.Update(req)
	if err != nil {
		return nil, err
	}
	if refused != "" {
		return nil, &conflictError{msg: refused, current: current}
	}
	return ans.Task, nil
}

// claim takes the task for the page's owner through task-claim's
// operation (the lease of tasks.claim_lease unless --lease, the worktree
// and branch the board runs in, the task's declared paths leased). The
// page's version is compared under the lock, before the claim's own
// compare-and-swap against every other claimant (claim_conflict,
// task_blocked, task_not_claimable, lease_conflict answer 409).
func (s *Server) claim(o *ops.Ops, a *Action) (*task.Task, error) {
	if s.opt.Me == "" {
		return nil, errcode.New(errcode.InvalidArguments, "who claims? start the board with --owner NAME (or set $MATRIXX_OWNER)")
	}
	var current *task.Task
	stale := errcode.New(errcode.PreconditionFailed, "the task changed since the page showed it")
	req := store.ClaimRequest{ID: a.ID, Owner: s.opt.Me, Lease: s.opt.Lease, If: func(t *task.Task) error {
		if Version(t) != a.Version {
			current = t
			return stale
		}
		return nil
	}}
	ans, err := o.Claim(req, "")
	if err == stale {
		return nil, &conflictError{msg: "the task changed since the page showed it", current: current}
	}
	if err != nil {
		return nil, err
	}
	return ans.Task, nil
}

// add creates a task through task-create's operation (one item).
func (s *Server) add(o *ops.Ops, a *Action) (*task.Task, error) {
	it := task.CreateItem{ParentID: a.ParentID, BlockedBy: slices.Clone(a.BlockedBy)}
	if a.Subject != nil {
		it.Subject = *a.Subject
	}
	if a.Description != nil {
		it.Description = *a.Description
	}
	if a.Priority != nil {
		it.Priority = *a.Priority
	}
	if err := o.ResolveHandles([]*string{&it.ParentID}, []*[]string{&it.BlockedBy}); err != nil {
		return nil, err
	}
	if a.Labels != nil && len(*a.Labels) > 0 {
		v, err := labelsValue(*a.Labels)
		if err != nil {
			return nil, err
		}
		it.Metadata = task.Metadata{"labels": v}
	}
	if err := it.Validate(); err != nil {
		return nil, err
	}
	res, err := o.Create(&task.CreateRequest{Items: []task.CreateItem{it}, Index: []int{0}, Total: 1})
	if err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		return nil, &errcode.Error{Code: res.Errors[0].Error, Message: res.Errors[0].Message}
	}
	if len(res.Tasks) == 0 {
		return nil, errcode.New(errcode.InternalError, "the store created nothing")
	}
	ans, err := o.Get(res.Tasks[0].ID, false)
	if err != nil {
		return nil, err
	}
	if ans.Task == nil {
		return nil, errcode.New(errcode.InternalError, "the new task %s is gone", res.Tasks[0].ID)
	}
	return ans.Task, nil
}

// findNotepad is the task's notepad relative to root ("" when none).
func findNotepad(root, id, planName string) (string, error) {
	return notepad.Find(root, planName, id)
}
