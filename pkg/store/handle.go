package store

import (
	"slices"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// maxCandidates caps the ids an ambiguous_id message lists.
const maxCandidates = 10

// ResolveID turns what a person typed for a task into an id. A full id
// (anything that is not a handle, task.IsHandle) is returned as it is,
// whether or not the task exists. A handle is matched against the ids of
// the store's T-*.json files (the directory listing only, no record is
// read; every status counts):
//
//   - one match: its id;
//   - none: task_not_found ("no task id ends in …");
//   - several: ambiguous_id, the message listing up to 10 candidates
//     sorted by id, and the full list in Candidates of the returned
//     *AmbiguousError.
func (s *Store) ResolveID(typed string) (string, error) {
	if !task.IsHandle(typed) {
		return typed, nil
	}
	names, err := s.names()
	if err != nil {
		return "", err
	}
	want := task.Digits(typed)
	var hits []string
	for _, n := range names {
		id := strings.TrimSuffix(n, ".json")
		if !task.ValidID(id) {
			continue
		}
		if strings.HasSuffix(task.Digits(id), want) {
			hits = append(hits, id)
		}
	}
	switch len(hits) {
	case 0:
		return "", errcode.New(errcode.TaskNotFound, "no task id ends in %s", typed)
	case 1:
		return hits[0], nil
	}
	slices.Sort(hits)
	return "", &AmbiguousError{Handle: typed, Candidates: hits}
}

// ResolveIDs resolves every entry of ids with ResolveID, in place order;
// the first failure is returned.
func (s *Store) ResolveIDs(ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		r, err := s.ResolveID(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// AmbiguousError is ambiguous_id: Handle names every id in Candidates.
type AmbiguousError struct {
	Handle     string
	Candidates []string
}

func (e *AmbiguousError) Error() string { return e.Unwrap().Error() }

// Unwrap gives the error as an *errcode.Error (ambiguous_id, exit 1).
func (e *AmbiguousError) Unwrap() error {
	shown := e.Candidates
	more := ""
	if len(shown) > maxCandidates {
		more = sprintf(" and %d more", len(shown)-maxCandidates)
		shown = shown[:maxCandidates]
	}
	return errcode.New(errcode.AmbiguousID, "%s names %d tasks: %s%s; give more digits or the full id",
		e.Handle, len(e.Candidates), strings.Join(shown, ", "), more)
}
