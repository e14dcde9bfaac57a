// Package app is the command-line runner every binary's front end shares:
// it parses the arguments (kong), reads the stdin document by the
// toolkit's rules, prints the one JSON answer or the flat error envelope,
// and maps every outcome to an exit status. It never panics and never
// calls os.Exit. The work itself is an operation of pkg/ops.
package app

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/term"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// App is one invocation: its streams, environment and exit status.
type App struct {
	Name   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Env    project.Env
	Pretty bool
	Exit   int
	// ops are the operations of this invocation once Ops has made them
	// (one command, one project; config warnings print once).
	ops *ops.Ops
}

// exitRequest carries kong's exit status out of Parse (kong exits on its
// own for --help and --version).
type exitRequest int

// Version is what --version prints after the binary's name (every binary,
// docs/design/decisions.md):
//
//   - "v1.2.3" for go install …@v1.2.3 (or the pseudo-version of …@commit);
//   - "devel+<12 hex digits of the commit>[-dirty]" for a build inside a git
//     checkout (make build), "-dirty" when the tree had uncommitted changes;
//     on a tagged commit the tag replaces "devel" ("v1.2.3+<rev>");
//   - "devel" when the build recorded neither (go test, -buildvcs=false).
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(info.Main.Version, info.Settings)
}

// versionOf computes Version from the main module's version and the build
// settings (vcs.revision, vcs.modified).
func versionOf(mod string, settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := strings.TrimSuffix(strings.TrimSuffix(mod, "+dirty"), ".dirty")
	if rev == "" {
		if v == "" || v == "(devel)" {
			return "devel"
		}
		return v // go install …@version: no checkout, the module version says it all
	}
	if v == "" || v == "(devel)" || pseudoVersion(v) {
		v = "devel" // the revision below says more than a pseudo-version
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v += "+" + rev
	if dirty {
		v += "-dirty"
	}
	return v
}

// pseudoVersion reports whether v is a Go pseudo-version
// (v0.0.0-20240102150405-abcdef123456 and its variants): its last
// dash-separated part is 12 hex digits and the one before ends in a
// 14-digit timestamp.
func pseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	hash, stamp := parts[len(parts)-1], parts[len(parts)-2]
	if i := strings.LastIndexByte(stamp, '.'); i >= 0 {
		stamp = stamp[i+1:]
	}
	return len(hash) == 12 && strings.Trim(hash, "0123456789abcdef") == "" &&
		len(stamp) == 14 && strings.Trim(stamp, "0123456789") == ""
}

// Run parses args into cmd, a kong model (with kong, or QuickParse for
// the simplest command lines), and calls run, mapping every outcome to an
// exit status. It never panics and never calls os.Exit.
func Run(name, description string, cmd any, run func(*App) error, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	a := &App{Name: name, Stdin: stdin, Stdout: stdout, Stderr: stderr, Env: project.OS()}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if code, ok := r.(exitRequest); ok {
			status = int(code)
			return
		}
		status = a.Fail(errcode.New(errcode.InternalError, "unexpected failure (a bug, please report): %v", r))
	}()
	for i, arg := range args {
		// kong would silently replace invalid bytes with U+FFFD.
		if !utf8.ValidString(arg) {
			return a.Fail(errcode.New(errcode.InvalidArguments, "argument %d (%q) is not valid UTF-8", i+1, arg))
		}
	}
	if q, ok := cmd.(QuickParser); !ok || !q.QuickParse(args) {
		parser, err := NewParser(cmd, name, description, stdout, stderr,
			kong.Exit(func(code int) { panic(exitRequest(code)) }),
			kong.Vars{"version": name + " " + Version()},
			kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}),
		)
		if err != nil {
			return a.Fail(errcode.Wrap(errcode.InternalError, err, "building the command line"))
		}
		if _, err := parser.Parse(args); err != nil {
			return a.Fail(errcode.New(errcode.InvalidArguments, "%v (see %s --help)", err, name))
		}
	}
	// --where is answered here, for every binary with the common flags,
	// before the command runs: it prints what would be used and why, reads
	// no stdin and writes nothing (docs/design/decisions.md).
	if w, ok := cmd.(interface{ WhereGlobals() *commands.Globals }); ok && w.WhereGlobals().Where {
		if err := a.Where(w.WhereGlobals()); err != nil {
			return a.Fail(err)
		}
		return a.Exit
	}
	if err := run(a); err != nil {
		return a.Fail(err)
	}
	return a.Exit
}

// NewParser is kong.New for a binary named name whose --help starts with
// description (printed as written: no ${var} interpolation), writing to
// stdout and stderr.
//
// The description is set on the built model rather than passed to kong.New:
// kong runs its interpolation pattern over every help text while it builds
// the model, on every start, and the descriptions are the longest texts
// (a few KiB); only --help prints them. That is a third of kong's cost at
// start-up, which every hook and task binary pays before each answer.
func NewParser(grammar any, name, description string, stdout, stderr io.Writer, opts ...kong.Option) (*kong.Kong, error) {
	parser, err := kong.New(grammar, append([]kong.Option{kong.Name(name), kong.Writers(stdout, stderr)}, opts...)...)
	if err != nil {
		return nil, err
	}
	parser.Model.Help = description
	return parser, nil
}

// Fail prints err's answer on stdout (ops.Failure: the flat error
// envelope, or the richer answer of a few errors) and a human line on
// stderr, and returns its exit status.
func (a *App) Fail(err error) int {
	doc, line := ops.Failure(err)
	fmt.Fprintf(a.Stderr, "%s: %s\n", a.Name, line)
	a.Emit(doc)
	return errcode.ExitStatus(errcode.As(err))
}

// Emit writes v as the one JSON document on stdout: compact, or indented
// with --pretty, keys in a stable order; the bytes Marshal returns. The
// document is encoded into blocks of 1 MiB instead of one growing buffer
// (task-doctor's answer is 40 MB at 100,000 tasks: regrowing and copying
// it cost more than encoding it) and written once it is whole, so an
// answer that fails to encode prints only Marshal's error document.
func (a *App) Emit(v any) {
	var out blockBuffer
	if err := json.MarshalWrite(&out, v, marshalOptions(a.Pretty)...); err != nil {
		_, _ = a.Stdout.Write(encodeFailed())
		return
	}
	_, _ = out.Write([]byte{'\n'})
	for _, b := range out.blocks {
		if _, err := a.Stdout.Write(b); err != nil {
			return
		}
	}
}

// blockBuffer collects written bytes in blocks of 1 MiB (a small first
// one), never copying what it holds.
type blockBuffer struct{ blocks [][]byte }

func (w *blockBuffer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		last := len(w.blocks) - 1
		if last < 0 || len(w.blocks[last]) == cap(w.blocks[last]) {
			size := 1 << 20
			if last < 0 {
				size = max(len(p), 16<<10)
			}
			w.blocks = append(w.blocks, make([]byte, 0, size))
			last++
		}
		b := w.blocks[last]
		k := min(len(p), cap(b)-len(b))
		w.blocks[last] = append(b, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// marshalOptions are the options of Marshal.
func marshalOptions(pretty bool) []json.Options {
	opts := []json.Options{json.Deterministic(true)}
	if pretty {
		opts = append(opts, jsontext.WithIndent("  "))
	}
	return opts
}

// encodeFailed is the answer printed when an answer cannot be encoded.
func encodeFailed() []byte {
	return []byte(`{"error":"internal_error","message":"encoding the answer failed"}` + "\n")
}

// Marshal encodes an answer as the binaries print it: one JSON document,
// compact or indented by two spaces, keys in a stable order, ending in a
// newline.
func Marshal(v any, pretty bool) []byte {
	b, err := json.Marshal(v, marshalOptions(pretty)...)
	if err != nil {
		return encodeFailed()
	}
	return append(b, '\n')
}

// Warnf prints a human diagnostic on stderr.
func (a *App) Warnf(format string, args ...any) {
	fmt.Fprintf(a.Stderr, "%s: "+format+"\n", append([]any{a.Name}, args...)...)
}

// StdinDoc says what a binary's stdin document is to it (docs/design/decisions.md
// docs/design/decisions.md).
type StdinDoc int

const (
	// DocRequired: without input flags or an id, stdin is the input and is
	// read to its end (task-create, task-get, task-update, plan).
	DocRequired StdinDoc = iota
	// DocOptional: without input flags, stdin is read only when it starts
	// with a document; anything else there is left alone (task-list).
	DocOptional
	// DocDestructive: DocOptional, and a document next to flags is refused
	// rather than ignored (task-cleanup: a dropped {"dryRun":true} deletes).
	DocDestructive
)

// ReadInput reads the stdin document. It returns empty=true when
// stdin is a terminal or holds only whitespace; the document is then "{}".
// A terminal is never read.
//
// given names the input the command line already holds ("flags", "the id
// argument"; "" when none). Then stdin is not the input: it is only looked
// at, without taking anything from it, for at most input.PeekWait
// (input.Pending, docs/design/decisions.md). A JSON document there too is
// ignored with a warning on stderr (it is usually someone else's: a hook's
// event, a while-read loop's lines), except for DocDestructive, where it is
// a usage error (invalid_arguments, exit 2). The answer is "{}" with
// empty=true.
//
// With given == "" and an optional document (DocOptional, DocDestructive),
// stdin is first looked at, waiting as long as reading would but no longer
// than its first non-blank byte (a socket: at most input.OptionalWait,
// after which task-list runs on its defaults and task-cleanup refuses with
// invalid_arguments): only a document (its first non-blank byte
// is "{") is read; anything else (the ids of a while-read loop) is left
// where it is and the answer is "{}" with empty=true. A stdin that cannot
// be looked at (a device other than a terminal, a reader that is not a
// file) is read as before. A socket is read through ReadSocket, never
// without bound.
func (a *App) ReadInput(given string, doc StdinDoc) (data []byte, empty bool, err error) {
	if f, ok := a.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return []byte("{}"), true, nil
	}
	if given != "" {
		if !input.Pending(a.Stdin, input.PeekWait) {
			return []byte("{}"), true, nil
		}
		if doc == DocDestructive {
			return nil, false, errcode.New(errcode.InvalidArguments,
				"got %s and a JSON document on stdin: give one or the other, not both (%s deletes, so it does not guess which one you meant; if stdin is meant for something else, give this command </dev/null; see %s --help)", given, a.Name, a.Name)
		}
		verb := "were"
		if given != "flags" {
			verb = "was"
		}
		a.Warnf("warning: stdin holds a JSON document; it is ignored because %s %s given (pass </dev/null to silence this)", given, verb)
		return []byte("{}"), true, nil
	}
	socket := input.IsSocket(a.Stdin)
	if doc != DocRequired && input.Lookable(a.Stdin) {
		wait := input.Unbounded
		if socket {
			wait = input.OptionalWait
		}
		switch input.Look(a.Stdin, wait) {
		case input.Absent:
			return []byte("{}"), true, nil
		case input.Silent:
			if doc == DocDestructive {
				return nil, false, errcode.New(errcode.InvalidArguments,
					"no input: stdin is open but sent nothing within %s, and %s deletes, so it does not run on a guess (a document could still arrive); give flags (e.g. --older-than 7d), a JSON document, or </dev/null for the defaults; see %s --help",
					input.Seconds(input.OptionalWait), a.Name, a.Name)
			}
			return []byte("{}"), true, nil
		}
	}
	if socket {
		data, empty, err = a.ReadSocket(input.MaxBytes, "a JSON document")
	} else {
		data, empty, err = input.Read(a.Stdin, input.MaxBytes)
	}
	if err != nil {
		return nil, false, err
	}
	// Every binary's document is refused here, before any decoding, when
	// it nests deeper than input.MaxDepth.
	if err := input.CheckDepth(data, input.MaxDepth); err != nil {
		return nil, false, err
	}
	return data, empty, nil
}

// ReadSocket reads a socket stdin (input.ReadSocket): a socket that sends
// nothing within input.RequiredWait and does not close is "no input"
// (invalid_arguments, exit 2); one that goes silent part-way through its
// document without closing is a validation_error, and one that sent a
// whole document and stays open is read as that document. Text (what is
// not "a JSON document": plan's markdown) has no end marker: text followed
// by silence without a close is refused (invalid_arguments). what names
// the expected input in the message.
func (a *App) ReadSocket(limit int64, what string) ([]byte, bool, error) {
	data, empty, silent, err := input.ReadSocket(a.Stdin, limit, input.RequiredWait)
	switch {
	case err != nil:
		return nil, false, err
	case silent && empty:
		return nil, false, errcode.New(errcode.InvalidArguments,
			"no input: stdin is open but sent nothing within %s (an agent host's socket that never closes, or a terminal-less caller); give %s on stdin, flags, or </dev/null; see %s --help",
			input.Seconds(input.RequiredWait), what, a.Name)
	case silent && what == "a JSON document" && !jsontext.Value(data).IsValid():
		return nil, false, errcode.New(errcode.ValidationError,
			"malformed JSON: stdin went silent for %s without closing before the document ended (%d bytes read)", input.Seconds(input.RequiredWait), len(data))
	case silent && what != "a JSON document":
		// Plain text has no end marker: text that stops without the
		// socket closing may be cut short, so it is refused, not taken.
		return nil, false, errcode.New(errcode.InvalidArguments,
			"stdin (a socket) went silent for %s without closing after %d bytes of %s: plain text has no end marker, so it may be cut short; nothing was written; give the text on a pipe, a file or a here-document, or close the socket after it",
			input.Seconds(input.RequiredWait), len(data), what)
	}
	return data, empty, nil
}

// NeedInput is the usage error for a tool that got no input at all.
func (a *App) NeedInput(example string) error {
	return errcode.New(errcode.InvalidArguments, "no input: pipe a JSON document on stdin (e.g. %s) or use flags; see %s --help", example, a.Name)
}
