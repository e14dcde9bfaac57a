package tasksync

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
)

// markerSize is the conflict marker length asked of git merge-file: long
// enough that no plan line is mistaken for a marker.
const markerSize = 41

// MergePlan merges two versions of a plan as text against their base with
// git merge-file (diff3). Hunks that git cannot merge are resolved without
// a person (docs/sync.md "Plans"): when the base, ours and theirs hunks
// have the same number of lines (ticks and edits of the same items), line
// by line: a line changed on one side takes the change, a line changed on
// both sides keeps theirs (first_push); otherwise theirs' hunk is kept whole
// and ours' hunk is reported as lost (first_push). Anchors are recomputed on
// read, so nothing else needs fixing. tmp is a scratch directory.
func MergePlan(name string, base, ours, theirs []byte, tmp string) ([]byte, []contract.SyncConflict, error) {
	d, err := os.MkdirTemp(tmp, "plan-")
	if err != nil {
		return nil, nil, errcode.Wrap(errcode.InternalError, err, "merging plan %s", name)
	}
	defer os.RemoveAll(d)
	paths := []string{filepath.Join(d, "ours"), filepath.Join(d, "base"), filepath.Join(d, "theirs")}
	for i, data := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(paths[i], data, 0o600); err != nil {
			return nil, nil, errcode.Wrap(errcode.InternalError, err, "merging plan %s", name)
		}
	}
	cmd := exec.Command("git", "merge-file", "-p", "--diff3", "--marker-size=41", paths[0], paths[1], paths[2])
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128) {
		return nil, nil, errcode.Wrap(GitFailed, err, "git merge-file on plan %s: %s", name, strings.TrimSpace(errb.String()))
	}
	if err == nil {
		return out.Bytes(), nil, nil
	}
	return resolveHunks(name, out.Bytes())
}

// resolveHunks resolves the diff3 conflict hunks of git merge-file's output.
func resolveHunks(name string, text []byte) ([]byte, []contract.SyncConflict, error) {
	m := strings.Repeat("<", markerSize)
	bm := strings.Repeat("|", markerSize)
	sep := strings.Repeat("=", markerSize)
	em := strings.Repeat(">", markerSize)
	lines := strings.SplitAfter(string(text), "\n")
	var out strings.Builder
	var cs []contract.SyncConflict
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, m+" ") && strings.TrimRight(l, "\n") != m {
			out.WriteString(l)
			continue
		}
		var o, b, t []string
		part := 0
		j := i + 1
		for ; j < len(lines); j++ {
			s := strings.TrimRight(lines[j], "\n")
			switch {
			case part == 0 && (strings.HasPrefix(s, bm+" ") || s == bm):
				part = 1
				continue
			case part <= 1 && s == sep:
				part = 2
				continue
			case part == 2 && (strings.HasPrefix(s, em+" ") || s == em):
				part = 3
			}
			if part == 3 {
				break
			}
			switch part {
			case 0:
				o = append(o, lines[j])
			case 1:
				b = append(b, lines[j])
			case 2:
				t = append(t, lines[j])
			}
		}
		if part != 3 {
			return nil, nil, errcode.New(errcode.InternalError, "plan %s: unterminated merge hunk", name)
		}
		i = j
		if len(o) == len(b) && len(t) == len(b) {
			for k := range b {
				switch {
				case o[k] == t[k] || t[k] == b[k]:
					out.WriteString(o[k])
				case o[k] == b[k]:
					out.WriteString(t[k])
				default:
					out.WriteString(t[k])
					cs = append(cs, contract.SyncConflict{ID: name, Field: "plan", Kept: jsonString(strings.TrimRight(t[k], "\n")), Lost: jsonString(strings.TrimRight(o[k], "\n")), Rule: "first_push"})
				}
			}
			continue
		}
		for _, s := range t {
			out.WriteString(s)
		}
		cs = append(cs, contract.SyncConflict{ID: name, Field: "plan", Kept: jsonString(strings.Join(t, "")), Lost: jsonString(strings.Join(o, "")), Rule: "first_push"})
	}
	return []byte(out.String()), cs, nil
}
