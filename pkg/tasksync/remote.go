package tasksync

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// remoteFiles lists the store files of the remote's tree rtree and checks
// every one that would come into the store (its blob differs from the
// local tree's and the base's) as strictly as a record or a plan given on
// stdin: a regular file (mode 100644 or 100755, not a symbolic link or a
// submodule), its size (read from git before the content) within the cap
// (store.MaxRecordBytes for a record, plan.MaxBytes for a plan), a record
// that satisfies the strict schema (task.DecodeRecord), whose id is its
// file name and whose claim does not outlast the longest lease
// (claimBeyondLease), a plan that is UTF-8 text without NUL bytes. A refused file
// is taken out of the listing: it is replaced by the local tree's version,
// or left out when the local tree has none, so nothing of it is written
// and local work stays. The refusals are returned, sorted by path.
func (r *repo) remoteFiles(rtree string, local, base files) (files, []contract.SyncRefusal, error) {
	var refused []contract.SyncRefusal
	rfiles, err := r.treeModes(rtree, func(p, mode string) {
		what := "not a regular file"
		switch mode {
		case "120000":
			what = "a symbolic link"
		case "160000":
			what = "a submodule"
		case "40000":
			what = "a directory"
		}
		refused = append(refused, contract.SyncRefusal{Path: p, Reason: fmt.Sprintf("%s on the branch (mode %s), not a regular file", what, mode)})
	})
	if err != nil {
		return nil, nil, err
	}
	var check []string
	for p, oid := range rfiles {
		if oid != local[p] && oid != base[p] {
			check = append(check, p)
		}
	}
	slices.Sort(check)
	if len(check) > 0 {
		sizes, err := r.sizes(check, rfiles)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range check {
			if reason := r.checkRemote(p, rfiles[p], sizes[rfiles[p]]); reason != "" {
				refused = append(refused, contract.SyncRefusal{Path: p, Reason: shorten(reason)})
			}
		}
	}
	for _, f := range refused {
		if oid, ok := local[f.Path]; ok {
			rfiles[f.Path] = oid
		} else {
			delete(rfiles, f.Path)
		}
	}
	slices.SortFunc(refused, func(a, b contract.SyncRefusal) int { return strings.Compare(a.Path, b.Path) })
	return rfiles, refused, nil
}

// blobInfo is what git cat-file --batch-check says of an object.
type blobInfo struct {
	typ  string
	size int64
}

// sizes asks git for the type and size of the blobs of paths (one git
// cat-file --batch-check), without reading them.
func (r *repo) sizes(paths []string, fs files) (map[string]blobInfo, error) {
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(fs[p])
		in.WriteByte('\n')
	}
	out, err := r.run(in.Bytes(), nil, "cat-file", "--batch-check")
	if err != nil {
		return nil, errcode.Wrap(GitFailed, err, "sizing the remote's files")
	}
	info := map[string]blobInfo{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue // "<oid> missing": checkRemote refuses it
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		info[f[0]] = blobInfo{typ: f[1], size: n}
	}
	return info, nil
}

// checkRemote says why the remote's file p (blob oid, as git described
// it) may not come into the store, or "" when it may.
func (r *repo) checkRemote(p, oid string, info blobInfo) string {
	limit := int64(store.MaxRecordBytes)
	switch {
	case strings.HasPrefix(p, "plans/"):
		limit = plan.MaxBytes
	case strings.HasPrefix(p, "history/"):
		limit = history.MaxFileBytes
	}
	switch {
	case info.typ == "":
		return "its blob " + oid + " is missing from the repository"
	case info.typ != "blob":
		return "a " + info.typ + " on the branch, not a file"
	case info.size > limit:
		return fmt.Sprintf("%d bytes, over the %d-byte cap (not read)", info.size, limit)
	}
	data, err := r.blob(oid)
	if err != nil {
		return errcode.As(err).Message
	}
	if strings.HasPrefix(p, "history/") {
		return history.CheckFile(strings.TrimSuffix(filepath.Base(p), history.Ext), data)
	}
	if strings.HasPrefix(p, "plans/") {
		if !utf8.Valid(data) {
			return "the plan is not valid UTF-8 text"
		}
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return fmt.Sprintf("the plan holds a NUL byte (at byte %d); plans are text", i)
		}
		return ""
	}
	t, err := task.DecodeRecord(data)
	if err != nil {
		return "not a valid record: " + errcode.As(err).Message
	}
	if want := strings.TrimSuffix(filepath.Base(p), ".json"); t.ID != want {
		return fmt.Sprintf("the record's id %s is not its file name's %s", t.ID, want)
	}
	return claimBeyondLease(t, time.Now())
}

// shorten cuts a reason to at most 300 bytes (on a character boundary).
func shorten(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
