package plan

import (
	"errors"
	"os"
	"sort"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// Listing is plan list's answer: the plans sorted by name, and the *.md
// files of the directory that are not readable plans (a bad name, a
// symbolic link, too large, …), sorted by file name and omitted when there
// are none.
type Listing struct {
	Plans    []Info    `json:"plans"`
	Problems []Problem `json:"problems,omitempty"`
}

// Problem is a file in the plans directory that is not a readable plan.
type Problem struct {
	File  string `json:"file"`
	Error string `json:"error"`
}

// List reads every plan. A missing directory has no plans. Hidden files
// and files not ending in ".md" are not plans and are skipped silently.
// Error: internal_error when the directory cannot be read.
func (s *Store) List() (*Listing, error) {
	res := &Listing{Plans: []Info{}}
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "listing %s", s.rel(s.Dir))
	}
	for _, e := range entries {
		file := e.Name()
		if strings.HasPrefix(file, ".") || !strings.HasSuffix(file, Ext) {
			continue
		}
		if e.IsDir() {
			res.Problems = append(res.Problems, Problem{File: file, Error: "is a directory, not a plan"})
			continue
		}
		name := strings.TrimSuffix(file, Ext)
		if !ValidName(name) {
			res.Problems = append(res.Problems, Problem{File: file, Error: errcode.As(CheckName(name)).Message})
			continue
		}
		p, err := s.Read(name)
		if errcode.Of(err) == errcode.FileNotFound {
			continue // deleted since the directory was read
		}
		if err != nil {
			res.Problems = append(res.Problems, Problem{File: file, Error: errcode.As(err).Message})
			continue
		}
		res.Plans = append(res.Plans, p.Info())
	}
	sort.Slice(res.Plans, func(i, j int) bool { return res.Plans[i].Name < res.Plans[j].Name })
	sort.Slice(res.Problems, func(i, j int) bool { return res.Problems[i].File < res.Problems[j].File })
	return res, nil
}
