package store

import (
	"bytes"
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Created is one entry of task-create's "tasks" array.
type Created struct {
	ID           string `json:"id"`
	Subject      string `json:"subject"`
	Deduplicated bool   `json:"deduplicated,omitzero"`

	// Index is the item's input index; NotApplied, for a deduplicated
	// item, names the fields it gave that differ from the existing task
	// and so were not applied (the answer keeps the original's keys; task-create
	// says this on stderr). Neither is part of the answer.
	Index      int      `json:"-"`
	NotApplied []string `json:"-"`
}

// CreateResult is task-create's answer: always both arrays. Refs maps
// each batch item's ref to the id it was created (or deduplicated) as;
// absent when no item had one.
type CreateResult struct {
	Tasks  []Created         `json:"tasks"`
	Errors []task.ItemError  `json:"errors"`
	Refs   map[string]string `json:"refs,omitempty"`
}

// Create creates the request's valid items in order under one lock (spec
// the original's specification). An item whose trimmed subject matches an active task of the
// same project written within DedupWindow, and whose metadata names the
// same plan item as that task's (planName and planItem, both absent
// counting as equal; docs/design/decisions.md), is answered with that task and
// deduplicated:true instead. An item's "@NAME" references are replaced by
// the ids of the earlier items of that ref (task.ResolveItemRefs); one
// naming an item that failed fails too. Items that fail (validation, dependency_cycle,
// a write error) are reported in Errors with their input index; the others
// are still created. The returned error is non-nil only when the whole
// request failed (lock unavailable, unreadable directory).
func (s *Store) Create(req *task.CreateRequest) (*CreateResult, error) {
	res := &CreateResult{Tasks: []Created{}, Errors: append([]task.ItemError{}, req.Errors...)}
	if len(req.Items) == 0 {
		return res, nil
	}
	err := s.transact(func(tx *txn) error {
		tx.migrateLegacy()
		if err := tx.ensureRecent(); err != nil {
			return err
		}
		refs := map[string]string{}
		for i := range req.Items {
			it := &req.Items[i]
			c, err := (*Created)(nil), task.ResolveItemRefs(it, refs)
			if err == nil {
				c, err = tx.createOne(it)
			}
			if err != nil {
				e := errcode.As(err)
				res.Errors = append(res.Errors, task.ItemError{Index: req.Index[i], Error: e.Code, Message: e.Message})
				continue
			}
			c.Index = req.Index[i]
			res.Tasks = append(res.Tasks, *c)
			if it.Ref != "" {
				refs[it.Ref] = c.ID
			}
		}
		if len(refs) > 0 {
			res.Refs = refs
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortErrors(res.Errors)
	return res, nil
}

func (tx *txn) createOne(it *task.CreateItem) (*Created, error) {
	s := tx.s
	subject := strings.TrimSpace(it.Subject)
	dup, err := tx.findDuplicate(subject, it.Metadata.PlanKey())
	if err != nil {
		return nil, err
	}
	if dup != nil {
		return &Created{ID: dup.ID, Subject: dup.Subject, Deduplicated: true, NotApplied: notApplied(it, dup)}, nil
	}
	id, err := task.NewID()
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "")
	}
	if err := tx.checkParent(it.ParentID); err != nil {
		return nil, err
	}
	mirrors, err := tx.mirrorsFor(id, it.BlockedBy, it.Blocks, "blockedBy", "blocks")
	if err != nil {
		return nil, err
	}
	if len(it.BlockedBy) > 0 && len(it.Blocks) > 0 {
		// Only a task that is both blocked and blocking can close a cycle:
		// nothing existing refers to a fresh id.
		if err := tx.addEdges(task.EdgesOf(id, it.BlockedBy, it.Blocks)); err != nil {
			return nil, err
		}
	}
	t := &task.Task{
		ID:          id,
		Subject:     it.Subject,
		Description: it.Description,
		Status:      task.Pending,
		ActiveForm:  it.ActiveForm,
		Blocks:      it.Blocks,
		BlockedBy:   it.BlockedBy,
		Owner:       it.Owner,
		Priority:    it.Priority,
		Metadata:    it.Metadata,
		RepoURL:     it.RepoURL,
		ParentID:    it.ParentID,
		ThreadID:    s.Session,
		ProjectRoot: s.Root,
	}
	tx.remember(id, nil) // a new file: created only where none exists
	if err := tx.write(t); err != nil {
		return nil, err
	}
	if err := tx.writeMirrors(mirrors); err != nil {
		return nil, err
	}
	return &Created{ID: t.ID, Subject: t.Subject}, nil
}

// findDuplicate returns the active task of this project with the same
// trimmed subject and the same plan key (task.Metadata.PlanKey) whose file
// was written within DedupWindow, checking the dedup
// index's candidates against their files. "This project" is
// project.Matcher's rule: any record of the project's own store; in
// a shared store, a record whose projectRoot names the same directory.
// A shard of the index that does not parse (a torn write) is rebuilt by
// scanning, as a stale index is.
func (tx *txn) findDuplicate(subject, plan string) (*task.Task, error) {
	now := tx.s.now()
	if tx.match == nil {
		tx.match = tx.s.Matcher()
	}
	ids, err := tx.recent.candidates(subject, plan)
	if err != nil {
		tx.recent = nil
		if err := tx.ensureRecent(); err != nil {
			return nil, err
		}
		if ids, err = tx.recent.candidates(subject, plan); err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		t, mtime, err := tx.s.read(id)
		if err != nil || t == nil {
			continue
		}
		same := strings.TrimSpace(t.Subject) == subject && t.Metadata.PlanKey() == plan
		if t.Status.Active() && same && tx.match.Same(t.ProjectRoot) && now.Sub(mtime) <= DedupWindow {
			return t, nil
		}
	}
	return nil, nil
}

func sortErrors(errs []task.ItemError) {
	for i := 1; i < len(errs); i++ {
		for j := i; j > 0 && errs[j].Index < errs[j-1].Index; j-- {
			errs[j], errs[j-1] = errs[j-1], errs[j]
		}
	}
}

// notApplied names the fields of a create item that differ from the task
// it was deduplicated against, in the item's field order: what the caller
// asked for and did not get. The subject matched (trimmed), so it is never
// listed; metadata is compared key by key as raw JSON.
func notApplied(it *task.CreateItem, t *task.Task) []string {
	var out []string
	add := func(name string, differs bool) {
		if differs {
			out = append(out, name)
		}
	}
	add("description", it.Description != "" && it.Description != t.Description)
	add("activeForm", it.ActiveForm != "" && it.ActiveForm != t.ActiveForm)
	add("blocks", len(it.Blocks) > 0 && !slices.Equal(it.Blocks, t.Blocks))
	add("blockedBy", len(it.BlockedBy) > 0 && !slices.Equal(it.BlockedBy, t.BlockedBy))
	add("owner", it.Owner != "" && it.Owner != t.Owner)
	add("priority", it.Priority != "" && it.Priority != t.Priority)
	md := false
	for k, v := range it.Metadata {
		if old, ok := t.Metadata[k]; !ok || !bytes.Equal(old, v) {
			md = true
		}
	}
	add("metadata", md)
	add("repoURL", it.RepoURL != "" && it.RepoURL != t.RepoURL)
	add("parentID", it.ParentID != "" && it.ParentID != t.ParentID)
	return out
}
