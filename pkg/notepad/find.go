package notepad

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxLine is the longest line the marker scan looks at; a longer line
// cannot be a marker and is skipped.
const maxLine = 4096

// notepads lists the names counted as notepads in a bucket directory: the
// *.md entries that are not directories and not hidden (temp files and
// dotfiles are invisible to the readers' *.md glob). A missing directory
// has none.
func notepads(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".md") {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// found is a notepad located by its marker.
type found struct {
	path      string
	bucket    string
	completed bool // the file holds a "## Completion" line
}

// find looks for the notepad of id in the buckets, in order: a file with a
// line whose trimmed content is exactly "**Task ID**: <id>".
func find(root string, buckets []string, id string) (*found, error) {
	marker := MarkerPrefix + id
	for _, b := range buckets {
		dir := filepath.Join(Dir(root), b)
		names, err := notepads(dir)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			path := filepath.Join(dir, n)
			hit, completed, err := scanFile(path, marker)
			if err != nil {
				continue // unreadable file: not ours to judge
			}
			if hit {
				return &found{path: path, bucket: b, completed: completed}, nil
			}
		}
	}
	return nil, nil
}

// scanFile reports whether the file has the marker line and whether it has
// a "## Completion" line. Lines are streamed, never the whole file held.
func scanFile(path, marker string) (hit, completed bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 16<<10)
	for {
		line, long, err := readLine(r)
		if !long {
			switch strings.TrimSpace(line) {
			case marker:
				hit = true
			case CompletionHeading:
				completed = true
			}
		}
		if err == io.EOF {
			return hit, completed, nil
		}
		if err != nil {
			return false, false, err
		}
	}
}

// readLine reads one line (without its newline); long reports a line over
// maxLine bytes, which is consumed but not returned.
func readLine(r *bufio.Reader) (line string, long bool, err error) {
	var b []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if len(b)+len(chunk) > maxLine {
			long = true
		} else {
			b = append(b, chunk...)
		}
		if err != nil {
			return string(b), long, err
		}
		if !isPrefix {
			return string(b), long, nil
		}
	}
}

// Find returns the path of task id's notepad (relative to root), looking
// in the plan bucket of planName first and then in adhoc, or "" when the
// task has none. Unreadable files are skipped.
func Find(root, planName, id string) (string, error) {
	hit, err := find(root, candidates(planName), id)
	if err != nil || hit == nil {
		return "", err
	}
	if r, err := filepath.Rel(root, hit.path); err == nil {
		return r, nil
	}
	return hit.path, nil
}
