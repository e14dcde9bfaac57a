package ops

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/claim"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// checkout is the git checkout of the command's working directory (its
// top and branch; empty outside git).
func (o *Ops) checkout() project.Checkout {
	wd, err := o.env.Proc.Getwd()
	if err != nil {
		return project.Checkout{}
	}
	return project.CheckoutOf(wd)
}

// globTop is what lease globs are relative to: the checkout's top, else
// the project root.
func globTop(co project.Checkout, p *Project) string {
	if co.Dir == "" {
		return p.Root
	}
	return co.Dir
}

// placeClaim records where a claim is made (worktree and branch, inside
// git) and cleans its lease globs against that checkout
// (docs/leases.md).
func (o *Ops) placeClaim(p *Project, req *store.ClaimRequest) error {
	co := o.checkout()
	req.Worktree, req.Branch = co.Dir, co.Branch
	if req.Paths == nil {
		return nil
	}
	paths, err := claim.CleanGlobs(req.Paths, globTop(co, p), p.Root)
	if err != nil {
		return err
	}
	req.Paths = paths
	return nil
}

// DeclarePaths records the paths a new task will touch in its
// metadata.paths (task-create --paths), cleaned against the checkout of
// the working directory; task-claim leases them (docs/leases.md).
func (o *Ops) DeclarePaths(it *task.CreateItem, globs []string) error {
	p, err := o.Project()
	if err != nil {
		return err
	}
	paths, err := claim.CleanGlobs(globs, globTop(o.checkout(), p), p.Root)
	if err != nil {
		return FlagError(err)
	}
	data, err := json.Marshal(paths)
	if err != nil {
		return err
	}
	if it.Metadata == nil {
		it.Metadata = task.Metadata{}
	}
	it.Metadata[store.PathsKey] = jsontext.Value(data)
	return nil
}

// declaredPathsOf checks and cleans the metadata.paths a create item or
// an update sets (docs/leases.md): an array of lease globs under the rules
// of task-create --paths (claim.CleanGlobs: relative to the checkout's
// top, an absolute path inside it made relative, no "." or ".."
// component, not the whole checkout, at most 64), written back cleaned.
// An empty array declares no paths; null (an update removing the key) is
// left to the store. Errors: validation_error naming metadata.paths.
func (o *Ops) declaredPathsOf(p *Project, md task.Metadata) error {
	raw, ok := md[store.PathsKey]
	if !ok || raw.Kind() == 'n' {
		return nil
	}
	var globs []string
	if raw.Kind() != '[' || json.Unmarshal(raw, &globs) != nil {
		return errcode.Field(errcode.ValidationError, "metadata."+store.PathsKey, "must be an array of lease globs such as [\"src/api/**\"], got %s (docs/leases.md)", cutValue(raw))
	}
	paths, err := claim.CleanGlobs(globs, globTop(o.checkout(), p), p.Root)
	if err != nil {
		e := errcode.As(err)
		return errcode.Field(e.Code, "metadata."+store.PathsKey, "%s", strings.TrimPrefix(e.Message, "paths: "))
	}
	data, err := json.Marshal(paths)
	if err != nil {
		return err
	}
	md[store.PathsKey] = jsontext.Value(data)
	return nil
}

// cutValue is a JSON value for a message: at most 60 bytes.
func cutValue(v jsontext.Value) string {
	if len(v) <= 60 {
		return string(v)
	}
	return strings.ToValidUTF8(string(v[:60]), "") + "…"
}

// checkDeclaredPaths applies declaredPathsOf to every item of a create
// request: an item whose metadata.paths is refused fails alone, as any
// item's validation error (moved from Items to Errors).
func (o *Ops) checkDeclaredPaths(p *Project, req *task.CreateRequest) {
	keep, index := req.Items[:0], req.Index[:0]
	for i, it := range req.Items {
		if err := o.declaredPathsOf(p, it.Metadata); err != nil {
			e := errcode.As(err)
			req.Errors = append(req.Errors, task.ItemError{Index: req.Index[i], Error: e.Code, Message: e.Message})
			continue
		}
		keep, index = append(keep, it), append(index, req.Index[i])
	}
	req.Items, req.Index = keep, index
}

// worktreeStores reports the linked worktrees of the project's repository
// that hold a task store of their own (docs/worktrees.md): no command
// reads it since the worktrees share the main worktree's store.
func worktreeStores(rep *store.DoctorReport, root string) {
	for _, wt := range project.LinkedWorktrees(root) {
		names, _ := filepath.Glob(filepath.Join(wt, ".matrixx", "tasks", "T-*.json"))
		if len(names) == 0 {
			continue
		}
		rep.Add(store.Finding{Kind: store.KindWorktreeStore, Severity: store.SeverityWarning,
			Message: fmt.Sprintf("the worktree %s holds a task store of its own (%d task file(s)) that no command reads: every worktree of the repository shares %s", wt, len(names), filepath.Join(root, ".matrixx")),
			Repair: fmt.Sprintf("merge it: %s=own task-sync export -C %s | task-sync import -C %s --on-conflict newer; then remove %s by hand",
				project.OwnStoreVar, shellWord(wt), shellWord(root), shellWord(filepath.Join(wt, ".matrixx")))})
	}
}

// shellWord quotes s as one shell word for a command line shown to a
// person (left bare when it needs no quoting).
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
