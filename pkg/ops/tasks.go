package ops

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
	"github.com/matrixx-dev/matrixx-tasks/pkg/tasksync"
)

// The task operations: one per task binary. Each opens the project (once
// per Ops), does the work, prints its diagnostics on Stderr and returns
// the answer the binary prints.

// Create creates the tasks of req (task-create). Items that fail are in
// the answer's errors and on Stderr; CreateExit gives the exit status.
func (o *Ops) Create(req *task.CreateRequest) (*store.CreateResult, error) {
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	o.checkDeclaredPaths(p, req)
	res, err := p.Store.Create(req)
	if err != nil {
		return nil, err
	}
	for _, e := range res.Errors {
		o.Warnf("item %d: %s: %s", e.Index, e.Error, e.Message)
	}
	for _, t := range res.Tasks {
		if t.Deduplicated && len(t.NotApplied) > 0 {
			o.Warnf("warning: item %d: deduplicated against %s (an active task with the same subject written in the last 10 minutes); not applied: %s (change them with task-update %s)",
				t.Index, t.ID, strings.Join(t.NotApplied, ", "), t.ID)
		}
	}
	o.NoteNewStore(p.Before)
	return res, nil
}

// CreateExit is task-create's exit status for res: 0 all created, 1 all
// failed, 3 some items failed.
func CreateExit(res *store.CreateResult) int {
	switch {
	case len(res.Errors) == 0:
		return errcode.ExitOK
	case len(res.Tasks) == 0:
		return errcode.ExitTool
	default:
		return errcode.ExitPartial
	}
}

// Get reads one task (task-get); the answer's task is nil when no such
// task exists. id must be a full id (invalid_task_id otherwise). With
// history the answer adds the task's history (docs/history.md), a removed
// task's too.
func (o *Ops) Get(id string, history bool) (*contract.TaskAnswer, error) {
	if err := task.CheckID(errcode.InvalidTaskID, "id", id); err != nil {
		return nil, err
	}
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	t, err := p.Store.Get(id)
	if err != nil {
		return nil, err
	}
	ans := &contract.TaskAnswer{Task: t}
	if history {
		if ans.HistoryAnswer, err = p.Store.HistoryOf(id); err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "reading the history of %s", id)
		}
	}
	return ans, nil
}

// GetHandle is Get for an id or short handle given on a command line: a
// handle that names no task answers a nil task, like a missing id.
func (o *Ops) GetHandle(id string, history bool) (*contract.TaskAnswer, error) {
	err := o.ResolveHandles([]*string{&id}, nil)
	if errcode.Of(err) == errcode.TaskNotFound {
		return &contract.TaskAnswer{}, nil
	}
	if err != nil {
		return nil, err
	}
	return o.Get(id, history)
}

// Update applies req to one task (task-update). An update that changes
// nothing writes nothing and says so on Stderr.
func (o *Ops) Update(req *task.UpdateRequest) (*contract.TaskAnswer, error) {
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	if err := o.declaredPathsOf(p, req.Metadata); err != nil {
		return nil, err
	}
	t, changed, err := p.Store.Update(req)
	if err != nil {
		return nil, err
	}
	if !changed {
		o.Warnf("%s unchanged: the update changes nothing, so the file was not written (see docs/design/decisions.md)", t.ID)
	}
	if changed && req.LeaseDur > 0 {
		p.ResetSchedule()
	}
	return &contract.TaskAnswer{Task: t}, nil
}

// UpdateFlags is Update for a request built from a command line's flags:
// short handles among its ids are resolved and a validation error is a
// usage error (invalid_arguments), as for every binary's flags.
func (o *Ops) UpdateFlags(req *task.UpdateRequest) (*contract.TaskAnswer, error) {
	if err := o.ResolveHandles([]*string{&req.ID}, []*[]string{&req.AddBlocks, &req.AddBlockedBy, &req.RemoveBlocks, &req.RemoveBlockedBy}); err != nil {
		return nil, err
	}
	if err := FlagError(req.Validate()); err != nil {
		return nil, err
	}
	return o.Update(req)
}

// Listing answers task-list's request: the wave plan (waves), the whole
// records (full) or the short entries; the answer is a *store.WavesResult,
// a *store.FullListResult or a *store.ListResult.
func (o *Ops) Listing(req *task.ListRequest) (any, error) {
	switch {
	case req.Waves:
		return o.Waves(req)
	case req.Full:
		return o.ListFull(req)
	}
	return o.List(req)
}

// ListFull lists tasks with their whole records (task-list --full).
func (o *Ops) ListFull(req *task.ListRequest) (*store.FullListResult, error) {
	p, err := o.listProject()
	if err != nil {
		return nil, err
	}
	res, err := p.Store.ListFull(req)
	if err != nil {
		return nil, err
	}
	for _, pr := range res.Problems {
		o.Warnf("skipped %s: %s", pr.File, pr.Error)
	}
	return res, nil
}

// List lists tasks (task-list without waves). Unreadable files are in the
// answer's problems and on Stderr.
func (o *Ops) List(req *task.ListRequest) (*store.ListResult, error) {
	p, err := o.listProject()
	if err != nil {
		return nil, err
	}
	res, err := p.Store.List(req)
	if err != nil {
		return nil, err
	}
	for _, pr := range res.Problems {
		o.Warnf("skipped %s: %s", pr.File, pr.Error)
	}
	return res, nil
}

// listProject is the project a listing reads, its store set up to use the
// list index. Writers never use it: their latency is the durable write's.
func (o *Ops) listProject() (*Project, error) {
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	env := o.env.Proc
	// The list index serves the files that did not change since the last
	// listing (docs/design/decisions.md, "The list index"); it lives beside
	// the integrity ledgers, outside the project.
	p.Store.ListIndex = store.ListIndexFor(integrity.Home(env.Getenv, env.Home, p.Root), integrity.ProjectHome(p.Root), p.Store.Dir, env.Getenv("MATRIXX_NO_LIST_INDEX") == "1")
	return p, nil
}

// ListIndexSize is the size in bytes of the project's list index (about
// 240 bytes a task since its rows hold blocks), 0 when there is none yet
// or no project: a listing's memory grows with it, which task-list uses to
// size its soft memory limit before it lists.
func (o *Ops) ListIndexSize() int64 {
	p, err := o.listProject()
	if err != nil || p.Store.ListIndex == "" {
		return 0
	}
	fi, err := os.Stat(p.Store.ListIndex)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// Waves plans the active tasks in waves (task-list --waves).
func (o *Ops) Waves(req *task.ListRequest) (*store.WavesResult, error) {
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	res, err := p.Store.Waves(req)
	if err != nil {
		return nil, err
	}
	for _, pr := range res.Problems {
		o.Warnf("skipped %s: %s", pr.File, pr.Error)
	}
	return res, nil
}

// Cleanup deletes finished tasks' files (task-cleanup).
func (o *Ops) Cleanup(req *task.CleanupRequest) (*store.CleanupResult, error) {
	p, err := o.Project()
	if err != nil {
		return nil, err
	}
	res, err := p.Store.Cleanup(req, plan.NewOpenItems(p.Root, p.Store.Matcher().Same).Has)
	if err != nil {
		return nil, err
	}
	for _, pr := range res.Problems {
		o.Warnf("skipped %s: %s", pr.File, pr.Error)
	}
	o.NoteNewStore(p.Before)
	return res, nil
}

// Claim claims one task for an owner, or the next ready one when req.ID
// is "" (task-claim); the answer's task is nil when nothing is ready. A
// zero lease is tasks.claim_lease, else claim.DefaultLease. remote, when
// not "", is the git remote of a claim across machines (task-claim
// --remote): the claim counts only once pushed there.
func (o *Ops) Claim(req store.ClaimRequest, remote string) (*contract.TaskAnswer, error) {
	// A claim without id that must rebuild the ready index scans the
	// store as task-list does, through the list index.
	p, err := o.listProject()
	if err != nil {
		return nil, err
	}
	if err := o.placeClaim(p, &req); err != nil {
		return nil, err
	}
	if req.Lease == 0 && !req.Person {
		req.Lease = claim.DefaultLease
		if p.Config.Tasks.ClaimLease != "" {
			if d, err := task.ParseLease("tasks.claim_lease", p.Config.Tasks.ClaimLease); err == nil {
				req.Lease = d
			}
		}
	}
	var t *task.Task
	if remote != "" {
		opt := o.SyncOptions(p)
		opt.Remote = remote
		req.Skew = tasksync.MaxClockSkew
		// The store's own claim, run under the lock the sync holds,
		// tolerating tasksync.MaxClockSkew with other machines' claims.
		t, _, err = tasksync.RemoteClaim(opt, req.ID, func(l *lock.Lock) (*task.Task, error) {
			return p.Store.ClaimLocked(l, req)
		})
	} else {
		t, err = p.Store.Claim(req)
	}
	if err != nil {
		return nil, err
	}
	if t != nil {
		p.ResetSchedule()
	}
	return &contract.TaskAnswer{Task: t}, nil
}

// Doctor checks the store, and with repair applies the safe repairs
// (task-doctor). Findings not repaired are also on Stderr; DoctorExit
// gives the exit status.
func (o *Ops) Doctor(repair bool) (*store.DoctorReport, error) {
	p, err := o.listProject() // the check reads through the list index

	if err != nil {
		return nil, err
	}
	rep, err := p.Store.Doctor(repair)
	if err != nil {
		return nil, err
	}
	worktreeStores(rep, p.Root)
	// The lines Warnf would print, written in blocks of 1 MiB (tens of
	// thousands of findings on a large store).
	w := bufio.NewWriterSize(o.env.Stderr, 1<<20)
	for _, f := range rep.Findings {
		if !f.Repaired {
			fmt.Fprintf(w, "%s: %s %s: %s\n", o.env.Name, f.Severity, f.Kind, f.Message)
		}
	}
	_ = w.Flush()
	return rep, nil
}

// DoctorExit is task-doctor's exit status: 1 when it found errors, or
// warnings under strict.
func DoctorExit(rep *store.DoctorReport, strict bool) int {
	if rep.Errors > 0 || (strict && rep.Warnings > 0) {
		return errcode.ExitTool
	}
	return errcode.ExitOK
}

// FlagError turns a validation error about a value given in a flag into
// the usage error it is; invalid_task_id keeps its own code.
func FlagError(err error) error {
	if err == nil {
		return nil
	}
	e := errcode.As(err)
	if e.Code != errcode.ValidationError {
		return err
	}
	return &errcode.Error{Code: errcode.InvalidArguments, Message: e.Message, Field: e.Field, Err: e.Err}
}
