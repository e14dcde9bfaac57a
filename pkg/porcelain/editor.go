package porcelain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// maxText is the most -d @FILE or -d - reads: a record is at most 16 MiB.
const maxText = 16 << 20

// textArg is the text of a flag that takes a description: "-" reads
// stdin, "@FILE" reads FILE, "@@…" is text starting with one "@", anything
// else is the text itself.
func (r *runner) textArg(flag, val string) (string, error) {
	var (
		src  io.Reader
		name string
	)
	switch {
	case val == "-":
		src, name = r.stdin, "stdin"
	case strings.HasPrefix(val, "@@"):
		return val[1:], nil
	case strings.HasPrefix(val, "@"):
		path := val[1:]
		f, err := os.Open(path)
		if err != nil {
			return "", errcode.New(errcode.FileNotFound, "%s %s: %v (a description that starts with @ is written @@…)", flag, val, errors.Unwrap(err))
		}
		defer f.Close()
		src, name = f, path
	default:
		return val, nil
	}
	if src == nil {
		src = strings.NewReader("")
	}
	b, err := io.ReadAll(io.LimitReader(src, maxText+1))
	if err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "%s: reading %s", flag, name)
	}
	if len(b) > maxText {
		return "", errcode.New(errcode.InputTooLarge, "%s: %s holds more than %d MiB (a task record holds at most 16 MiB)", flag, name, maxText>>20)
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return "", errcode.New(errcode.ValidationError, "%s: %s is not text (not valid UTF-8, or holds NUL bytes)", flag, name)
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// editor is the command that edits a file: $VISUAL, else $EDITOR.
func (r *runner) editor() (string, error) {
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(r.getenv(k)); e != "" {
			return e, nil
		}
	}
	return "", errcode.New(errcode.InvalidArguments, "no editor: neither $VISUAL nor $EDITOR is set (export EDITOR=nano, or give the fields as flags: matrixx edit ID --subject TEXT -p high -d @FILE)")
}

// editInEditor is matrixx edit without field flags: the task as a form in
// the user's editor, the changes applied in one update that is a
// compare-and-swap against the version shown (docs/porcelain.md).
func (r *runner) editInEditor(c *editCmd) error {
	ed, err := r.editor()
	if err != nil {
		return err
	}
	p, v, t, err := r.target(c.ID)
	if err != nil {
		return err
	}
	h := v.h(t.ID)
	shown, hidden := formOf(v, t)
	parent := ""
	if t.ParentID != "" {
		parent = v.h(t.ParentID)
		if x := v.get(t.ParentID); x != nil {
			parent += fmt.Sprintf(" %q", clean(trimTo(x.Subject, 60)))
		}
	}
	text := shown.render(h, t.ID, parent, hidden)
	version, err := task.Encode(t)
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "encoding %s", t.ID)
	}
	f, err := os.CreateTemp("", "matrixx-edit-"+h+"-*.txt")
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "creating the file to edit")
	}
	path := f.Name()
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return errcode.Wrap(errcode.InternalError, werr, "writing %s", path)
	}
	kept := func(err error) error {
		e := errcode.As(err)
		return &errcode.Error{Code: e.Code, Message: fmt.Sprintf("%s; nothing was changed; your text is kept in %s", e.Message, path)}
	}
	// The editor gets the terminal: what was printed so far goes first.
	if fl, ok := r.stdout.(interface{ Flush() error }); ok {
		_ = fl.Flush()
	}
	cmd := exec.Command("sh", "-c", ed+` "$@"`, ed, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.stdin, r.real, r.stderr
	if err := cmd.Run(); err != nil {
		what := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			what = fmt.Sprintf("exited with status %d", ee.ExitCode())
		}
		return kept(errcode.New(errcode.EditorFailed, "the editor (%s) %s", ed, what))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return errcode.Wrap(errcode.InternalError, err, "reading %s back", path)
	}
	edited := string(raw)
	noChange := func(why string) error {
		os.Remove(path)
		fmt.Fprintf(r.stdout, "no change %s %q (%s)%s\n", h, clean(t.Subject), t.ID, why)
		return nil
	}
	if edited == text {
		return noChange("")
	}
	if !utf8.ValidString(edited) {
		return kept(errcode.New(errcode.ValidationError, "the edited text is not valid UTF-8"))
	}
	got, err := parseForm(edited)
	if err != nil {
		return kept(err)
	}
	if got.empty() {
		return noChange(": the file was emptied, nothing applied")
	}
	req, changed, err := got.request(shown, t, func(typed string) (string, error) { return r.resolve(p, typed) })
	if err != nil {
		return kept(err)
	}
	if len(changed) == 0 {
		return noChange("")
	}
	if req.Status != nil {
		if err := r.othersClaim(p, v, t, c.Force, "edit"); err != nil {
			return kept(err)
		}
		req.Force = c.Force
	}
	// Compare-and-swap: applied only if the record, read under the lock,
	// is still the version the form showed.
	var current *task.Task
	req.ID = t.ID
	req.If = func(now *task.Task) bool {
		b, err := task.Encode(now)
		if err == nil && bytes.Equal(b, version) {
			return true
		}
		current = now
		return false
	}
	_, a := r.updateOp(&req)
	a.stderr = nil
	if err := r.check(a); err != nil {
		return kept(r.refused(p, err))
	}
	if current != nil {
		return kept(errcode.New(errcode.PreconditionFailed, "%s changed while you edited it (%s)", h, strings.Join(differences(t, current), "; ")))
	}
	os.Remove(path)
	fmt.Fprintf(r.stdout, "edited %s %q (%s): %s\n", h, clean(got.subjectOr(t.Subject)), t.ID, strings.Join(changed, ", "))
	return nil
}

// subjectOr is the edited subject, else old.
func (f *form) subjectOr(old string) string {
	if s := unquoteValue(f.values["subject"]); s != "" {
		return s
	}
	return old
}

// differences says which fields differ between was and now: "field: old →
// new" (long values cut), as matrixx log shows a change.
func differences(was, now *task.Task) []string {
	var out []string
	for _, c := range history.Diff(was, now) {
		out = append(out, changeText(history.Updated, c))
	}
	if len(out) == 0 {
		out = append(out, "its file was rewritten")
	}
	return out
}
