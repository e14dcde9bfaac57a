package tasksync

import (
	"bytes"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// statusRank orders statuses for status_order: a status further along the
// lifecycle wins when both sides changed it.
func statusRank(s task.Status) int {
	switch s {
	case task.Pending:
		return 1
	case task.InProgress:
		return 2
	case task.Completed:
		return 3
	case task.Deleted:
		return 4
	}
	return 0
}

// MergeTask merges two versions of one T-*.json record against their
// merge base, field by field (docs/sync.md "The record merge"). ours is
// the local version, theirs the one already pushed (the remote ref). base
// may be nil (the record was created on both sides). The answer is the
// encoded record (task.Encode) and the decisions taken; the merge never
// needs a person unless a side is not a valid record, when it fails with
// task_corrupt and the caller keeps ours.
//
// Rules: a field changed on one side only takes that change; blocks and
// blockedBy merge as sets (added on either side: kept; removed on one side
// and untouched on the other: removed); metadata merges key by key the same
// way; a scalar (or one metadata key) changed differently on both sides
// keeps theirs (first_push), except status, which keeps the later status
// (status_order); a merged status other than in_progress drops
// metadata.claim (claim_ended); threadID, the last writer's session, keeps
// theirs without a report.
func MergeTask(base, ours, theirs []byte) ([]byte, []contract.SyncConflict, error) {
	o, err := task.DecodeRecord(ours)
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.TaskCorrupt, err, "the local version is not a valid record")
	}
	t, err := task.DecodeRecord(theirs)
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.TaskCorrupt, err, "the remote version is not a valid record")
	}
	var b *task.Task
	if len(base) > 0 {
		if b, err = task.DecodeRecord(base); err != nil {
			b = nil // a corrupt base: merge as if created on both sides
		}
	}
	if o.ID != t.ID {
		return nil, nil, errcode.New(errcode.TaskCorrupt, "the two versions are different tasks (%s, %s)", o.ID, t.ID)
	}
	if b != nil && b.ID != o.ID {
		b = nil
	}
	m, conflicts := mergeRecords(b, o, t)
	out, err := task.Encode(m)
	if err != nil {
		return nil, nil, err
	}
	return out, conflicts, nil
}

func mergeRecords(b, o, t *task.Task) (*task.Task, []contract.SyncConflict) {
	var cs []contract.SyncConflict
	id := o.ID
	if b == nil {
		b = &task.Task{ID: id}
	}
	str := func(field string, bv, ov, tv string, fallback func() (string, string)) string {
		switch {
		case ov == tv:
			return ov
		case ov == bv:
			return tv
		case tv == bv:
			return ov
		}
		kept, lost := tv, ov
		rule := "first_push"
		if fallback != nil {
			kept, lost = fallback()
			rule = "status_order"
		}
		if field != "threadID" {
			cs = append(cs, contract.SyncConflict{ID: id, Field: field, Kept: jsonString(kept), Lost: jsonString(lost), Rule: rule})
		}
		return kept
	}
	m := &task.Task{ID: id}
	m.Subject = str("subject", b.Subject, o.Subject, t.Subject, nil)
	m.Description = str("description", b.Description, o.Description, t.Description, nil)
	m.Status = task.Status(str("status", string(b.Status), string(o.Status), string(t.Status), func() (string, string) {
		if statusRank(o.Status) > statusRank(t.Status) {
			return string(o.Status), string(t.Status)
		}
		return string(t.Status), string(o.Status)
	}))
	m.ActiveForm = str("activeForm", b.ActiveForm, o.ActiveForm, t.ActiveForm, nil)
	m.Owner = str("owner", b.Owner, o.Owner, t.Owner, nil)
	m.Priority = task.Priority(str("priority", string(b.Priority), string(o.Priority), string(t.Priority), nil))
	m.RepoURL = str("repoURL", b.RepoURL, o.RepoURL, t.RepoURL, nil)
	m.ParentID = str("parentID", b.ParentID, o.ParentID, t.ParentID, nil)
	m.ThreadID = str("threadID", b.ThreadID, o.ThreadID, t.ThreadID, nil)
	m.ProjectRoot = str("projectRoot", b.ProjectRoot, o.ProjectRoot, t.ProjectRoot, nil)
	m.Blocks = mergeSet(b.Blocks, o.Blocks, t.Blocks)
	m.BlockedBy = mergeSet(b.BlockedBy, o.BlockedBy, t.BlockedBy)
	m.Metadata = mergeMetadata(id, b.Metadata, o.Metadata, t.Metadata, &cs)
	if m.Status != task.InProgress {
		if raw, ok := m.Metadata[claimKey]; ok && (hasKeyDiff(o.Metadata, t.Metadata, claimKey) || o.Status != t.Status) {
			cs = append(cs, contract.SyncConflict{ID: id, Field: "metadata." + claimKey, Lost: compact(raw), Rule: "claim_ended"})
			delete(m.Metadata, claimKey)
			if len(m.Metadata) == 0 {
				m.Metadata = nil
			}
		}
	}
	return m, cs
}

// claimKey is the metadata key of a claim (docs/claims.md).
const claimKey = "claim"

func hasKeyDiff(a, b task.Metadata, k string) bool {
	av, aok := a[k]
	bv, bok := b[k]
	return aok != bok || !bytes.Equal(av, bv)
}

// mergeSet merges id lists: the base's order, then ours' additions, then
// theirs' additions; an id removed on either side (and kept on the other
// unchanged) is dropped.
func mergeSet(b, o, t []string) []string {
	out := []string{}
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, id := range b {
		if slices.Contains(o, id) && slices.Contains(t, id) {
			add(id)
		}
	}
	for _, id := range o {
		if !slices.Contains(b, id) {
			add(id)
		}
	}
	for _, id := range t {
		if !slices.Contains(b, id) {
			add(id)
		}
	}
	return out
}

// mergeMetadata merges metadata key by key (values compared as compact
// JSON).
func mergeMetadata(id string, b, o, t task.Metadata, cs *[]contract.SyncConflict) task.Metadata {
	keys := map[string]bool{}
	for _, m := range []task.Metadata{b, o, t} {
		for k := range m {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	out := task.Metadata{}
	for _, k := range sorted {
		bv, bok := b[k]
		ov, ook := o[k]
		tv, tok := t[k]
		eq := func(x jsontext.Value, xok bool, y jsontext.Value, yok bool) bool {
			return xok == yok && (!xok || bytes.Equal(compact(x), compact(y)))
		}
		var v jsontext.Value
		var ok bool
		switch {
		case eq(ov, ook, tv, tok):
			v, ok = ov, ook
		case eq(ov, ook, bv, bok):
			v, ok = tv, tok
		case eq(tv, tok, bv, bok):
			v, ok = ov, ook
		default:
			v, ok = tv, tok
			c := contract.SyncConflict{ID: id, Field: "metadata." + k, Rule: "first_push"}
			if tok {
				c.Kept = compact(tv)
			}
			if ook {
				c.Lost = compact(ov)
			}
			*cs = append(*cs, c)
		}
		if ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func compact(v jsontext.Value) []byte {
	c := v.Clone()
	if err := c.Compact(); err != nil {
		return v
	}
	return c
}

func jsonString(s string) jsontext.Value {
	v, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		return jsontext.Value(`""`)
	}
	return jsontext.Value(v)
}
