package tasksync

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// merge3 merges the remote tree into the local one against their base,
// file by file, then resolves dependency cycles the union of edges closed.
// New contents go to contents; the answer is the merged listing.
func (r *repo) merge3(o *Options, res *contract.SyncResult, base, ours, theirs files, local map[string][]byte, contents map[string][]byte) (files, error) {
	out := files{}
	paths := map[string]bool{}
	for _, f := range []files{base, ours, theirs} {
		for p := range f {
			paths[p] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	slices.Sort(sorted)
	read := func(oid string, p string) ([]byte, error) {
		if oid == "" {
			return nil, nil
		}
		if d, ok := local[p]; ok && r.hashBlob(d) == oid {
			return d, nil
		}
		return r.blob(oid)
	}
	// sides reads our and their version of p (nil for a side without it).
	sides := func(ob, tb, p string) (od, td []byte, err error) {
		if od, err = read(ob, p); err != nil {
			return nil, nil, err
		}
		if td, err = read(tb, p); err != nil {
			return nil, nil, err
		}
		return od, td, nil
	}
	for _, p := range sorted {
		b, ob, tb := base[p], ours[p], theirs[p]
		switch {
		case ob == tb:
			if ob != "" {
				out[p] = ob
			}
			continue
		case ob == b:
			if tb != "" {
				out[p] = tb
			}
			continue
		case tb == b:
			if ob != "" {
				out[p] = ob
			}
			continue
		}
		id := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), history.Ext), ".json"), ".md")
		if strings.HasPrefix(p, "history/") {
			// A history merges as the union of its events: never a
			// conflict (a side that lost the file keeps the other's).
			od, td, err := sides(ob, tb, p)
			if err != nil {
				return nil, err
			}
			merged, err := history.MergeFiles(id, od, td)
			if err != nil {
				return nil, errcode.Wrap(errcode.InternalError, err, "merging the history of %s", id)
			}
			oid := r.hashBlob(merged)
			contents[p] = merged
			out[p] = oid
			continue
		}
		if ob == "" || tb == "" {
			keep := ob + tb
			out[p] = keep
			c := contract.SyncConflict{ID: id, Field: "file", Rule: "removed_vs_changed"}
			res.Conflicts = append(res.Conflicts, c)
			continue
		}
		res.Merged++
		bd, err := read(b, p)
		if err != nil {
			return nil, err
		}
		od, td, err := sides(ob, tb, p)
		if err != nil {
			return nil, err
		}
		var merged []byte
		var cs []contract.SyncConflict
		if strings.HasPrefix(p, "plans/") {
			merged, cs, err = MergePlan(id, bd, od, td, r.scratchDir())
			if err != nil {
				return nil, err
			}
		} else {
			merged, cs, err = MergeTask(bd, od, td)
			if errcode.Of(err) == errcode.TaskCorrupt {
				out[p] = ob
				saved := r.saveRemote(o, p, tb, td)
				res.Conflicts = append(res.Conflicts, contract.SyncConflict{ID: id, Field: "file", Rule: "unmergeable", Saved: saved})
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		res.Conflicts = append(res.Conflicts, cs...)
		oid := r.hashBlob(merged)
		contents[p] = merged
		out[p] = oid
	}
	if err := r.breakCycles(res, ours, theirs, out, local, contents, read); err != nil {
		return nil, err
	}
	return out, nil
}

func (r *repo) scratchDir() string {
	if r.scratch == "" {
		if d, err := os.MkdirTemp(r.gitDir, "matrixx-sync-"); err == nil {
			r.scratch = d
		}
	}
	return r.scratch
}

// saveRemote keeps the remote version of an unmergeable record under
// <state>/sync/ and returns the path ("" if it could not be saved; the
// version stays in the remote ref's history either way).
func (r *repo) saveRemote(o *Options, p, oid string, data []byte) string {
	if o.StateDir == "" {
		return ""
	}
	dir := filepath.Join(o.StateDir, "sync")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	short := oid
	if len(short) > 12 {
		short = short[:12]
	}
	path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(p), ".json")+".remote-"+short+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return ""
	}
	return path
}

type edge = task.Edge

func edgesOf(t *task.Task) []edge { return task.EdgesOf(t.ID, t.BlockedBy, t.Blocks) }

// breakCycles drops the edges this machine added that close a dependency
// cycle with the remote's edges (rule "cycle"): the remote's graph is
// taken as given (it was pushed first), then each edge of the merged
// records that the remote lacks is added in order (by the blocked task's
// id, then the blocker's), and one that would close a cycle is removed from
// both records that carry it.
func (r *repo) breakCycles(res *contract.SyncResult, ours, theirs, merged files, local map[string][]byte, contents map[string][]byte, read func(string, string) ([]byte, error)) error {
	// Only records whose merged content differs from the remote's can
	// bring new edges.
	var changed []string
	for p, oid := range merged {
		if strings.HasPrefix(p, "tasks/") && theirs[p] != oid {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	decode := func(p string) *task.Task {
		data, ok := contents[p]
		if !ok {
			var err error
			if data, err = read(merged[p], p); err != nil {
				return nil
			}
		}
		t, err := task.DecodeRecord(data)
		if err != nil {
			return nil
		}
		return t
	}
	decodeTheirs := func(p string) *task.Task {
		d, err := read(theirs[p], p)
		if err != nil || d == nil {
			return nil
		}
		t, err := task.DecodeRecord(d)
		if err != nil {
			return nil
		}
		return t
	}
	theirCache := map[string]map[edge]bool{}
	theirHas := func(id string, e edge) bool {
		m, ok := theirCache[id]
		if !ok {
			m = map[edge]bool{}
			if t := decodeTheirs("tasks/" + task.FileName(id)); t != nil {
				for _, x := range edgesOf(t) {
					m[x] = true
				}
			}
			theirCache[id] = m
		}
		return m[e]
	}
	var fresh []edge
	for _, p := range changed {
		m := decode(p)
		if m == nil {
			continue
		}
		for _, e := range edgesOf(m) {
			if !theirHas(e.To, e) && !theirHas(e.From, e) {
				fresh = append(fresh, e)
			}
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	// The whole merged graph without the fresh edges.
	recs := map[string]*task.Task{}
	for p := range merged {
		if strings.HasPrefix(p, "tasks/") {
			if t := decode(p); t != nil {
				recs[t.ID] = t
			}
		}
	}
	isFresh := map[edge]bool{}
	for _, e := range fresh {
		isFresh[e] = true
	}
	g := task.Graph{}
	for _, t := range recs {
		for _, e := range edgesOf(t) {
			if !isFresh[e] {
				g[e.From] = append(g[e.From], e.To)
			}
		}
	}
	slices.SortFunc(fresh, func(a, b edge) int {
		if c := strings.Compare(a.To, b.To); c != 0 {
			return c
		}
		return strings.Compare(a.From, b.From)
	})
	fresh = slices.Compact(fresh)
	touched := map[string]bool{}
	for _, e := range fresh {
		if err := g.Add([]edge{e}); err == nil {
			continue
		}
		// drop e from both ends
		if t := recs[e.To]; t != nil {
			if i := slices.Index(t.BlockedBy, e.From); i >= 0 {
				t.BlockedBy = slices.Delete(t.BlockedBy, i, i+1)
				touched[t.ID] = true
			}
		}
		if f := recs[e.From]; f != nil {
			if i := slices.Index(f.Blocks, e.To); i >= 0 {
				f.Blocks = slices.Delete(f.Blocks, i, i+1)
				touched[f.ID] = true
			}
		}
		res.Conflicts = append(res.Conflicts, contract.SyncConflict{ID: e.To, Field: "blockedBy", Lost: jsonString(e.From), Rule: "cycle"})
	}
	for id := range touched {
		data, err := task.Encode(recs[id])
		if err != nil {
			return err
		}
		p := "tasks/" + task.FileName(id)
		contents[p] = data
		merged[p] = r.hashBlob(data)
	}
	return nil
}
