package plan

import (
	"bytes"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hashline"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
)

// Created is plan create's answer.
type Created struct {
	Info
	// TotalLines is the number of lines written.
	TotalLines int `json:"totalLines"`
	// Replaced is true when --force replaced an existing plan.
	Replaced bool `json:"replaced,omitzero"`
	// Template is true when the content was the template.
	Template bool `json:"template,omitzero"`
}

// Create writes plan name with content (raw markdown, kept byte for byte).
// An existing plan is refused with file_exists unless force, which replaces
// it. Errors: invalid_file_path, file_exists, file_too_large (content over
// MaxBytes), validation_error (content that is not UTF-8 text or holds NUL
// bytes), task_lock_unavailable, internal_error.
func (s *Store) Create(name string, content []byte, force bool) (*Created, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if err := checkContent(content); err != nil {
		return nil, err
	}
	var res *Created
	err := s.locked(func(l *lock.Lock) error {
		found, err := s.exists(name)
		if err != nil {
			return err
		}
		if found && !force {
			return errcode.New(errcode.FileExists, "plan %s already exists (%s); edit it with plan update, or replace it with plan create --force", name, s.rel(s.Path(name)))
		}
		var expect *durable.Expect // --force replaces whatever is there
		if !found {
			expect = &durable.Expect{Absent: true}
		}
		if err := s.write(l, name, content, expect); err != nil {
			return err
		}
		p := &Plan{Name: name, Size: len(content), Text: hashline.Split(string(content))}
		res = &Created{Info: p.Info(), TotalLines: len(p.Text.Lines), Replaced: found}
		return nil
	})
	return res, err
}

// checkContent refuses content that cannot be a plan.
func checkContent(content []byte) error {
	if len(content) > MaxBytes {
		return tooLarge(len(content))
	}
	if !utf8.Valid(content) {
		return errcode.New(errcode.ValidationError, "the plan is not valid UTF-8 text")
	}
	if i := bytes.IndexByte(content, 0); i >= 0 {
		return errcode.New(errcode.ValidationError, "the plan holds a NUL byte (at byte %d); plans are text", i)
	}
	return nil
}

// Updated is plan update's answer (and the base of check and sync).
type Updated struct {
	Info
	TotalLines int `json:"totalLines"`
	// Changed is false when the edits left the content as it was (nothing
	// was written).
	Changed bool `json:"changed"`
	// DryRun is true when nothing was written on purpose.
	DryRun bool `json:"dryRun,omitzero"`
	// Lines are the lines the edits wrote, with their fresh anchors, so the
	// next edit needs no new read.
	Lines []hashline.Line `json:"lines"`
}

// Update applies edits to plan name all-or-nothing under the lock (see
// hashline.Apply): the anchors are checked against the file as it is once
// the lock is held, so an edit based on a stale read fails with
// anchor_mismatch and changes nothing. With dryRun nothing is written.
// Errors: invalid_file_path, file_not_found, invalid_edit,
// anchor_mismatch (*hashline.MismatchError), file_too_large,
// validation_error (a NUL byte in a new line), task_lock_unavailable,
// internal_error.
func (s *Store) Update(name string, edits []hashline.Edit, dryRun bool) (*Updated, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	var res *Updated
	err := s.change(name, dryRun, func(p *Plan) (*hashline.Result, error) {
		r, err := hashline.Apply(p.Text, edits)
		if err != nil {
			return nil, err
		}
		for _, n := range r.Changed {
			if strings.IndexByte(r.Text.Lines[n-1], 0) >= 0 {
				return nil, errcode.New(errcode.ValidationError, "the edits would put a NUL byte in the plan (new line %d); plans are text", n)
			}
		}
		return r, nil
	}, func(p *Plan, r *hashline.Result, changed bool) {
		res = &Updated{Info: p.Info(), TotalLines: len(p.Text.Lines), Changed: changed, DryRun: dryRun, Lines: linesAt(p.Text, r.Changed)}
	})
	return res, err
}

// change runs one read-modify-write of plan name under the lock: edit
// computes the new text from the plan as it is now; done is told the new
// plan and whether its bytes differ (they are written only then, and never
// with dryRun).
func (s *Store) change(name string, dryRun bool, edit func(*Plan) (*hashline.Result, error), done func(*Plan, *hashline.Result, bool)) error {
	// A plan that does not exist is reported without creating the
	// directory for the lock.
	if found, err := s.exists(name); err != nil {
		return err
	} else if !found {
		return s.openError(name, os.ErrNotExist)
	}
	body := func(l *lock.Lock) error {
		old, err := s.readFile(name)
		if err != nil {
			return err
		}
		p := &Plan{Name: name, Size: len(old), Text: hashline.Split(string(old))}
		r, err := edit(p)
		if err != nil {
			return err
		}
		data := r.Text.Bytes()
		changed := !bytes.Equal(data, old)
		if len(data) > MaxBytes && changed {
			return tooLarge(len(data))
		}
		if changed && l != nil {
			if err := s.write(l, name, data, &durable.Expect{Data: old}); err != nil {
				return err
			}
		}
		done(&Plan{Name: name, Size: len(data), Text: hashline.Split(string(data))}, r, changed)
		return nil
	}
	if dryRun {
		return body(nil) // a dry run only reads: no lock, nothing written
	}
	return s.locked(body)
}

// linesAt returns lines ns (1-based) of t with their anchors.
func linesAt(t hashline.Text, ns []int) []hashline.Line {
	out := make([]hashline.Line, 0, len(ns))
	for _, n := range ns {
		if n >= 1 && n <= len(t.Lines) {
			out = append(out, t.At(n))
		}
	}
	return out
}

// Deleted is plan delete's answer.
type Deleted struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
}

// Delete removes plan name under the lock. Errors: invalid_file_path,
// file_not_found, task_lock_unavailable, internal_error.
func (s *Store) Delete(name string) (*Deleted, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if found, err := s.exists(name); err != nil {
		return nil, err
	} else if !found {
		return nil, s.openError(name, os.ErrNotExist)
	}
	err := s.locked(func(l *lock.Lock) error {
		if err := l.Check(); err != nil {
			return err
		}
		if fi, err := os.Lstat(s.Path(name)); err == nil && !fi.Mode().IsRegular() {
			return errcode.New(errcode.InvalidFilePath, "%s is not a plain file written by plan create (a symbolic link, directory or device); remove it by hand if it is yours", s.rel(s.Path(name)))
		}
		if err := s.Record.Remove(s.Path(name)); err != nil {
			if os.IsNotExist(err) {
				return s.openError(name, err)
			}
			return errcode.Wrap(errcode.InternalError, err, "deleting %s", s.rel(s.Path(name)))
		}
		if err := durable.SyncDir(s.Dir); err != nil {
			return errcode.Wrap(errcode.InternalError, err, "syncing %s", s.rel(s.Dir))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Deleted{Name: name, Deleted: true}, nil
}
