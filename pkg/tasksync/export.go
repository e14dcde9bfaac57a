package tasksync

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/durable"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/integrity"
	"github.com/matrixx-dev/matrixx-tasks/pkg/lock"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Line is one line of a JSON Lines export: a record with its file's
// modification time in ms since the epoch, or a plan with its text:
//
//	{"task":{…record…},"mtimeMs":1764626400000}
//	{"plan":"name","text":"# …","mtimeMs":1764626400000}
type Line struct {
	Task    *task.Task `json:"task,omitempty"`
	Plan    string     `json:"plan,omitempty"`
	Text    *string    `json:"text,omitempty"`
	MtimeMs int64      `json:"mtimeMs"`
}

// MaxImportBytes caps one import's input: 128 MiB (32 times the 4 MiB cap
// on one stdin document). Every line is validated before anything is
// written, so the import is held in memory: 128 MiB of lines peak near
// 230 MB of RSS (measured; 250 MiB reached 455 MB, so 1 GiB, the former
// cap, would need nearly 2 GB). An export of
// 100,000 tasks of 1 KB each fits; a larger one is split (the lines are
// independent: split -l). Past the cap: input_too_large, nothing written.
const MaxImportBytes = 128 << 20

// MaxMtimeAhead is how far past the importing machine's clock a line's
// mtimeMs may lie: 24 hours. A later time is a broken clock or a made-up
// number: it would win every "newer" conflict, and past the year 2262 it
// does not fit a file time in nanoseconds at all (it would wrap to 1976).
const MaxMtimeAhead = 24 * time.Hour

// checkMtime checks a line's mtimeMs: at least 1 (1970-01-01T00:00:00.001Z)
// and at most now plus MaxMtimeAhead.
func checkMtime(ms int64, now time.Time) error {
	if ms < 1 {
		return fmt.Errorf("%d is not a time: want ms since 1970-01-01T00:00:00Z, at least 1", ms)
	}
	if limit := now.Add(MaxMtimeAhead).UnixMilli(); ms > limit {
		return fmt.Errorf("%d is more than 24 hours past this machine's clock (the latest accepted now is %d)", ms, limit)
	}
	return nil
}

// ImportConflict is the code of an import with --on-conflict fail that met
// a record or plan the store holds with other content (nothing written).
const ImportConflict errcode.Code = "import_conflict"

// Export writes every readable record (by id) then every plan (by name) of
// the store as JSON Lines on w. Files that cannot be read as records or
// plans are not exported; they are returned as problems (path: reason).
func Export(tasksDir, plansDir string, w io.Writer) (n int, problems []string, err error) {
	bw := bufio.NewWriter(w)
	for _, d := range []struct{ dir, kind string }{{tasksDir, "tasks"}, {plansDir, "plans"}} {
		ents, err := os.ReadDir(d.dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return n, problems, errcode.Wrap(errcode.InternalError, err, "reading %s", d.dir)
		}
		for _, e := range ents {
			if !validPath(d.kind + "/" + e.Name()) {
				continue
			}
			path := filepath.Join(d.dir, e.Name())
			max := int64(16 << 20)
			if d.kind == "plans" {
				max = plan.MaxReadBytes
			}
			data, mtime, err := readWithMtime(path, max)
			if err != nil {
				problems = append(problems, path+": "+err.Error())
				continue
			}
			var l Line
			l.MtimeMs = mtime
			if d.kind == "tasks" {
				t, err := task.DecodeRecord(data)
				if err != nil {
					problems = append(problems, path+": "+errcode.As(err).Message)
					continue
				}
				l.Task = t
			} else {
				s := string(data)
				l.Plan, l.Text = strings.TrimSuffix(e.Name(), plan.Ext), &s
			}
			b, err := json.Marshal(l, json.Deterministic(true))
			if err != nil {
				problems = append(problems, path+": "+err.Error())
				continue
			}
			bw.Write(b)
			bw.WriteByte('\n')
			n++
		}
	}
	return n, problems, bw.Flush()
}

func readWithMtime(path string, max int64) ([]byte, int64, error) {
	data, err := readRegular(path, max)
	if err != nil {
		return nil, 0, err
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return nil, 0, err
	}
	return data, st.Mtim.Sec*1000 + st.Mtim.Nsec/1e6, nil
}

// Import reads JSON Lines (Line) from r and writes them into the store
// under its lock. A record or plan the store lacks is created; one it
// holds with the same content is unchanged; one it holds with other
// content is decided by onConflict: "skip" keeps the store's, "fail"
// refuses the whole import before anything is written (import_conflict),
// "newer" takes the line when its mtimeMs is later than the local file's
// modification time (a tie keeps the store's). Every line is validated
// before anything is written: a bad line is validation_error naming its
// line number, and nothing is written.
//
// Only o.TasksDir, o.PlansDir, o.Lock and the recorders are used: every
// write is recorded in the integrity ledgers (Options.TasksRecord).
func Import(o Options, r io.Reader, onConflict string) (*contract.SyncImportResult, error) {
	tasksDir, plansDir, lockOpt := o.TasksDir, o.PlansDir, o.Lock
	res := &contract.SyncImportResult{Skipped: []string{}}
	type item struct {
		path  string
		data  []byte
		mtime int64
		name  string
		lock  *lock.Lock
		rec   *integrity.Recorder
	}
	var items []item
	now := time.Now()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 17<<20)
	seen := map[string]int{}
	total := 0
	for ln := 1; sc.Scan(); ln++ {
		if total += len(sc.Bytes()) + 1; total > MaxImportBytes {
			return nil, errcode.New(errcode.InputTooLarge, "the import is over the %d-byte (128 MiB) cap at line %d; nothing was written (split it: the lines are independent)", MaxImportBytes, ln)
		}
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l struct {
			Task    jsontext.Value `json:"task"`
			Plan    string         `json:"plan"`
			Text    *string        `json:"text"`
			MtimeMs *int64         `json:"mtimeMs"`
		}
		// The line wraps a record in one more object than a stdin document.
		if err := input.DecodeDepth(b, &l, input.MaxDepth+1); err != nil {
			return nil, errcode.New(errcode.ValidationError, "line %d: %s", ln, errcode.As(err).Message)
		}
		var it item
		switch {
		case len(l.Task) > 0 && l.Plan == "":
			t, err := task.DecodeRecord(l.Task)
			if err != nil {
				return nil, errcode.New(errcode.ValidationError, "line %d: %s", ln, errcode.As(err).Message)
			}
			data, err := task.Encode(t)
			if err != nil {
				return nil, err
			}
			it = item{path: filepath.Join(tasksDir, task.FileName(t.ID)), data: data, name: t.ID}
		case l.Plan != "" && l.Text != nil && len(l.Task) == 0:
			if err := plan.CheckName(l.Plan); err != nil {
				return nil, errcode.New(errcode.ValidationError, "line %d: %s", ln, errcode.As(err).Message)
			}
			if len(*l.Text) > plan.MaxBytes {
				return nil, errcode.New(errcode.ValidationError, "line %d: plan %s is %d bytes, over the %d-byte cap", ln, l.Plan, len(*l.Text), plan.MaxBytes)
			}
			it = item{path: filepath.Join(plansDir, l.Plan+plan.Ext), data: []byte(*l.Text), name: "plan " + l.Plan}
		default:
			return nil, errcode.New(errcode.ValidationError, `line %d: want {"task":{…},"mtimeMs":N} or {"plan":"name","text":"…","mtimeMs":N}`, ln)
		}
		if prev, dup := seen[it.path]; dup {
			return nil, errcode.New(errcode.ValidationError, "line %d: %s is already on line %d", ln, it.name, prev)
		}
		seen[it.path] = ln
		if l.MtimeMs != nil {
			if err := checkMtime(*l.MtimeMs, now); err != nil {
				return nil, errcode.New(errcode.ValidationError, "line %d: mtimeMs: %s", ln, err.Error())
			}
			it.mtime = *l.MtimeMs
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errcode.New(errcode.InputTooLarge, "a line of the import is over 17 MiB (records are capped at 16 MiB); nothing was written")
		}
		return nil, errcode.Wrap(errcode.ValidationError, err, "reading the import")
	}
	tl, err := lock.Acquire(tasksDir, lockOpt)
	if err != nil {
		return nil, err
	}
	defer tl.Release()
	pl, err := lock.Acquire(plansDir, lockOpt)
	if err != nil {
		return nil, err
	}
	defer pl.Release()
	type write struct {
		it     item
		create bool
	}
	var writes []write
	for _, it := range items {
		max := int64(16 << 20)
		it.lock, it.rec = tl, o.TasksRecord
		if strings.HasPrefix(it.name, "plan ") {
			max, it.lock, it.rec = plan.MaxReadBytes, pl, o.PlansRecord
		}
		cur, mtime, err := readWithMtime(it.path, max)
		if os.IsNotExist(err) {
			writes = append(writes, write{it, true})
			continue
		}
		if err != nil {
			return nil, errcode.Wrap(errcode.InternalError, err, "reading %s", it.path)
		}
		if bytes.Equal(cur, it.data) {
			res.Unchanged++
			continue
		}
		switch onConflict {
		case "fail":
			return nil, errcode.New(ImportConflict, "%s exists with other content; nothing was imported (use --on-conflict skip or newer)", it.name)
		case "newer":
			if it.mtime > mtime {
				writes = append(writes, write{it, false})
				continue
			}
		}
		res.Skipped = append(res.Skipped, strings.TrimPrefix(it.name, "plan "))
	}
	for _, w := range writes {
		opt := durable.Options{BeforeRename: w.it.lock.Check, Perm: filePerm}
		if w.it.mtime > 0 {
			opt.ModTime = time.UnixMilli(w.it.mtime) // set before the rename, so the ledger records it
		}
		if err := w.it.rec.WriteFile(w.it.path, w.it.data, opt); err != nil {
			if errcode.Of(err) == errcode.TaskLockUnavailable {
				return nil, err
			}
			return nil, errcode.Wrap(errcode.InternalError, err, "writing %s (%d written before)", w.it.path, res.Created+res.Updated)
		}
		if w.create {
			res.Created++
		} else {
			res.Updated++
		}
	}
	slices.Sort(res.Skipped)
	_ = tl.Unlink()
	_ = pl.Unlink()
	return res, nil
}
