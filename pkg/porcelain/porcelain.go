// Package porcelain is matrixx, the command for people: tables, trees,
// graphs, short handles and shell completion on top of the same store code
// as the plumbing (task-create, task-get, task-list, task-update,
// task-claim, task-doctor, task-sync, plan), as git's porcelain sits on its
// plumbing. Reads render the store (pkg/store, pkg/plan) directly; writes
// call the plumbing's functions (pkg/cli) in process, so they validate,
// lock, deduplicate and record exactly as the plumbing does; --json prints
// the plumbing's own document. See docs/porcelain.md.
package porcelain

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/kong"
	"github.com/go-json-experiment/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// Name is the porcelain's binary name.
const Name = "matrixx"

const mainHelp = `Example: matrixx ls

The task store for people: tables, trees and graphs of the tasks in .matrixx/tasks, short
handles instead of ids, and shell completion. Every subcommand takes --json and then prints the
plumbing's JSON document instead (task-list, task-get, task-create, ...), with its exit status.

Handles: a task is named by the last digits of its id (at least 4, e.g. 7f3a for
T-0199...-...7f3a); listings show the shortest unique one and full ids work everywhere.

  matrixx add "Build backend" -p high           a task
  matrixx add "Integration tests" --after 7f3a  one that waits for 7f3a
  matrixx ready                                  what can start now
  matrixx claim 7f3a && matrixx done 7f3a        take it, finish it
  matrixx graph --format mermaid                 the dependency graph, waves as ranks
  source <(matrixx completion bash)              completion for every binary

Exit status as the plumbing's: 0 ok, 1 the command failed, 2 usage error, 3 some items failed.
Colour only on a terminal (NO_COLOR or --color=never turn it off). See docs/porcelain.md.`

// globals are the flags of every subcommand.
type globals struct {
	Dir     string           `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root (default: $MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, else the nearest ancestor holding .matrixx/ or .git)."`
	Session string           `name:"session" placeholder:"ID" help:"Session id stamped as threadID by writes (default: $MATRIXX_SESSION_ID)."`
	Color   string           `name:"color" enum:"auto,never,always" default:"auto" placeholder:"WHEN" help:"Colour by status: auto (only on a terminal, unless NO_COLOR is set), never, always."`
	JSON    bool             `name:"json" help:"Print the plumbing's JSON document instead of the view for people."`
	ASCII   bool             `name:"ascii" help:"ASCII only (default: Unicode, unless the locale is not UTF-8)."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}

// model is matrixx's command line.
type model struct {
	globals
	Ls         lsCmd         `cmd:"" help:"Table of active tasks (--all: every status), with filters."`
	Ready      readyCmd      `cmd:"" help:"Tasks that can start now: pending, every blocker completed."`
	Show       showCmd       `cmd:"" help:"One task: its fields, blockers, dependents, plan item and notepad."`
	Add        addCmd        `cmd:"" help:"Add a task."`
	Claim      claimCmd      `cmd:"" help:"Claim a task: in_progress under your name, until you finish or unclaim (--lease to expire)."`
	Done       doneCmd       `cmd:"" help:"Mark a task completed and show what became ready."`
	Rm         rmCmd         `cmd:"" help:"Delete a task (status deleted; matrixx reopen brings it back)."`
	Edit       editCmd       `cmd:"" help:"Change a task in your editor, or by flags: subject, priority, description, owner, dependencies."`
	Log        logCmd        `cmd:"" help:"What happened to a task (or the store): every change, who, when, time in each status."`
	Undo       undoCmd       `cmd:"" help:"Revert your latest change (or a named one), unless the task changed since."`
	Reopen     reopenCmd     `cmd:"" help:"Set a completed or deleted task back to pending."`
	Unclaim    unclaimCmd    `cmd:"" help:"Give an in_progress task back: pending, owner cleared, claim ended."`
	Tree       treeCmd       `cmd:"" help:"Parent/child tree of the tasks, with what each waits for."`
	Graph      graphCmd      `cmd:"" help:"Dependency graph, waves as ranks: text, mermaid or dot."`
	Plans      plansCmd      `cmd:"" help:"The plans with progress bars."`
	Plan       planCmd       `cmd:"" help:"One plan's numbered items, their tasks and progress."`
	Doctor     doctorCmd     `cmd:"" help:"Check the store (task-doctor): broken dependencies, cycles, expired claims."`
	Sync       syncCmd       `cmd:"" help:"Share the store through git (task-sync): fetch, merge, push."`
	Board      boardCmd      `cmd:"" help:"A live web page of the tasks on 127.0.0.1: columns, graph, plans, actions."`
	Watch      watchCmd      `cmd:"" help:"Follow the store's changes as they happen; run a command per event."`
	Completion completionCmd `cmd:"" help:"Print the shell completion script for every binary (bash, zsh, fish)."`
	Complete   completeCmd   `cmd:"" name:"__complete" hidden:"" help:"Print completions (used by the scripts)."`
}

// runner is one invocation: streams, environment, style, and the chosen
// command's globals.
type runner struct {
	stdout, stderr io.Writer
	stdin          io.Reader // read only when asked: -d -, the editor's terminal
	real           io.Writer // stdout unbuffered: the terminal test looks at it
	getenv         Env
	g              *globals
	cmd            string // the subcommand's name, for hints
	st             style
	exit           int
	// store is the task store directory of the first project opened and
	// whether it existed then (noteNewStore).
	store        string
	storeExisted bool
	root         string
	marked       bool // the root held .matrixx/ or .git
}

// sub is one subcommand.
type sub interface {
	run(r *runner) error
}

// exitRequest carries kong's exit status out of Parse.
type exitRequest int

// Main is the matrixx binary: it parses args, runs one subcommand and
// returns the exit status. It never reads stdin and never panics.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	// A listing allocates once per record and exits: collect garbage
	// rarely, as task-list does.
	debug.SetGCPercent(400)
	// One buffer for stdout: a table of 10,000 rows is one write, not
	// 10,000 (the style still looks at the real stdout for a terminal).
	out := bufio.NewWriterSize(stdout, 64<<10)
	r := &runner{stdout: out, stderr: stderr, stdin: stdin, getenv: os.Getenv, real: stdout}
	defer out.Flush()
	defer func() {
		if x := recover(); x != nil {
			if code, ok := x.(exitRequest); ok {
				status = int(code)
				return
			}
			status = r.fail(errcode.New(errcode.InternalError, "unexpected failure (a bug, please report): %v", x))
		}
	}()
	m := &model{}
	parser, err := newParser(m, out, stderr)
	if err != nil {
		return r.fail(errcode.Wrap(errcode.InternalError, err, "building the command line"))
	}
	for i, a := range args {
		if !utf8.ValidString(a) {
			return r.fail(errcode.New(errcode.InvalidArguments, "argument %d (%q) is not valid UTF-8", i+1, a))
		}
	}
	if len(args) == 0 {
		args = []string{"--help"}
	}
	args = literalSubject(args)
	ctx, err := parser.Parse(args)
	if err != nil {
		if slices.Contains(args, "--json") {
			// Scripts asked for JSON: the plumbing's usage envelope too.
			r.g = &globals{JSON: true}
		}
		return r.usage(err, ctx)
	}
	r.g = &m.globals
	r.cmd = ctx.Selected().Name
	r.st = newStyle(r.real, r.getenv, m.Color, m.ASCII)
	s, ok := ctx.Selected().Target.Addr().Interface().(sub)
	if !ok {
		return r.usage(fmt.Errorf("missing subcommand"), ctx)
	}
	err = s.run(r)
	r.noteNewStore()
	if err != nil {
		return r.fail(err)
	}
	return r.exit
}

// newParser builds matrixx's kong parser (also used by completion).
func newParser(m *model, stdout, stderr io.Writer) (*kong.Kong, error) {
	return app.NewParser(m, Name, mainHelp, stdout, stderr,
		kong.Exit(func(code int) { panic(exitRequest(code)) }),
		kong.Vars{"version": Name + " " + app.Version()},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}),
	)
}

// usage prints a usage error as one line with what to type instead.
func (r *runner) usage(err error, ctx *kong.Context) int {
	where := Name
	if ctx != nil && ctx.Selected() != nil {
		where = Name + " " + ctx.Selected().Name
	}
	msg := fmt.Sprintf("%v; see %s --help", err, where)
	fmt.Fprintf(r.stderr, "%s: %s\n", Name, msg)
	if r.g != nil && r.g.JSON {
		b, _ := json.Marshal(struct {
			Error   errcode.Code `json:"error"`
			Message string       `json:"message"`
		}{errcode.InvalidArguments, msg}, json.Deterministic(true))
		fmt.Fprintf(r.stdout, "%s\n", b)
	}
	return errcode.ExitUsage
}

// fail prints err for people: one line on stderr, what went wrong and what
// to type instead (hint). With --json the plumbing's flat envelope goes to
// stdout as well, so scripts see the same document as from the plumbing.
func (r *runner) fail(err error) int {
	e := errcode.As(err)
	msg := e.Message
	if msg == "" {
		msg = string(e.Code)
	}
	if h := hint(e); h != "" {
		msg += "; " + h
	}
	fmt.Fprintf(r.stderr, "%s: %s\n", Name, msg)
	if r.g != nil && r.g.JSON {
		b, _ := json.Marshal(struct {
			Error   errcode.Code `json:"error"`
			Message string       `json:"message"`
		}{e.Code, e.Message}, json.Deterministic(true))
		fmt.Fprintf(r.stdout, "%s\n", b)
	}
	return errcode.ExitStatus(e)
}

// hint is what to type instead, by error code.
func hint(e *errcode.Error) string {
	switch e.Code {
	case errcode.TaskNotFound:
		return "matrixx ls --all lists every task with its handle"
	case errcode.InvalidTaskID:
		return "name a task by its handle (the last 4+ digits of its id, as matrixx ls shows) or its full id T-…"
	case errcode.AmbiguousID:
		return "" // the message lists the candidates and says to type more digits
	case errcode.DependencyCycle:
		return "drop that --after (matrixx graph shows the dependencies)"
	case errcode.TaskLockUnavailable:
		return "another writer holds the store's lock: try again (matrixx doctor checks the store)"
	case errcode.FileNotFound:
		if strings.Contains(e.Message, "plan list") {
			return "" // the plumbing's message says it already
		}
		return "matrixx plans lists the plans"
	case errcode.InvalidFilePath:
		if strings.Contains(e.Message, "kebab-case") {
			return ""
		}
		return "plan names are kebab-case, e.g. release-2-0 (matrixx plans lists them)"
	case errcode.TaskCorrupt:
		return "matrixx doctor reports the damaged files"
	case errcode.InvalidArguments:
		if !strings.Contains(e.Message, "--help") {
			return "see matrixx --help"
		}
	}
	return ""
}

// op is one plumbing command's operation, run by type in this process as
// that binary would run it (matrixx's -C and --session, the process's
// environment, no stdin); its diagnostics are kept as the binary would
// print them on stderr.
type op struct {
	*ops.Ops
	name string
	diag bytes.Buffer
}

// op returns the operations of the plumbing binary name; write says the
// binary takes the lock (its budget is resolved as the binary does).
func (r *runner) op(name string, write bool) *op {
	o := &op{name: name}
	o.Ops = ops.New(ops.Env{Name: name, Stderr: &o.diag, Dir: r.g.Dir, Session: r.g.Session, Write: write})
	return o
}

// answer is an operation's outcome as its binary prints it: the answer
// document (or the error envelope) on stdout, the diagnostics on stderr,
// the exit status; err is the failure, nil on success.
type answer struct {
	stdout, stderr []byte
	exit           int
	err            error
}

// result makes the outcome of o an answer: v with exit status exit, or the
// error envelope of err.
func (o *op) result(v any, exit int, err error) answer {
	if err != nil {
		e := errcode.As(err)
		fmt.Fprintf(&o.diag, "%s: %s\n", o.name, e.Error())
		return answer{stdout: app.Marshal(contract.ErrorAnswer{Error: e.Code, Message: e.Message}, false), stderr: o.diag.Bytes(), exit: errcode.ExitStatus(e), err: e}
	}
	return answer{stdout: app.Marshal(v, false), stderr: o.diag.Bytes(), exit: exit}
}

// passJSON prints a plumbing answer as it is (--json): its stdout, its
// stderr, its exit status.
func (r *runner) passJSON(a answer) error {
	_, _ = r.stdout.Write(a.stdout)
	_, _ = r.stderr.Write(a.stderr)
	r.exit = a.exit
	return nil
}

// check returns a failed operation's error; on success it forwards the
// operation's warnings (stderr).
func (r *runner) check(a answer) error {
	if a.err != nil {
		return a.err
	}
	_, _ = r.stderr.Write(a.stderr)
	return nil
}

// updateOp runs task-update's operation on req as its flags would.
func (r *runner) updateOp(req *task.UpdateRequest) (*contract.TaskAnswer, answer) {
	o := r.op("task-update", true)
	ans, err := o.UpdateFlags(req)
	return ans, o.result(ans, errcode.ExitOK, err)
}

// listOp runs task-list's operation on req as its flags would.
func (r *runner) listOp(req *task.ListRequest) (any, answer) {
	o := r.op("task-list", false)
	ans, err := o.ListFlags(req)
	return ans, o.result(ans, errcode.ExitOK, err)
}

// project opens the project's stores as the plumbing does.
func (r *runner) project() (*ops.Project, error) {
	p, err := ops.Open(Name, r.g.Dir, r.g.Session, r.stderr)
	if err == nil && r.store == "" {
		r.store, r.storeExisted = p.Store.Dir, isDir(p.Store.Dir)
		r.root, r.marked = p.Root, project.Marker(p.Root) != ""
	}
	return p, err
}

// noteNewStore says on stderr, after the command, that it created the
// task store (the plumbing's note says it only where no .matrixx/ or .git
// marked the project root; a person is told every time).
func (r *runner) noteNewStore() {
	if r.store == "" || r.storeExisted || !isDir(r.store) {
		return
	}
	where := r.store
	if filepath.Base(filepath.Dir(r.store)) == ".matrixx" {
		where = filepath.Dir(r.store)
	}
	if r.marked {
		fmt.Fprintf(r.stderr, "%s: note: created the task store in %s (its .gitignore keeps this machine's state out of git status; README: What to commit)\n", Name, where)
		return
	}
	fmt.Fprintf(r.stderr, "%s: note: created a new task store in %s: no .matrixx/ or .git was found in %s or above it, so %s is the project root (matrixx -C DIR names another; run git init or mkdir .matrixx where you mean the project to be)\n",
		Name, where, r.root, r.root)
}

// isDir reports an existing directory (not through a final symbolic link).
func isDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}

// noStore says, instead of an empty listing, that there is no task store
// where matrixx looked, and how to make one; it reports whether it did.
func (r *runner) noStore(p *ops.Project) bool {
	if isDir(p.Store.Dir) {
		return false
	}
	if project.Marker(p.Root) == "" {
		wd, _ := os.Getwd()
		fmt.Fprintf(r.stdout, "no store here: no .matrixx/ (and no .git) in %s or above it; matrixx add \"subject\" creates one in %s, matrixx -C DIR looks in another project\n",
			strings.TrimSuffix(wd, "/"), p.Root)
		return true
	}
	fmt.Fprintf(r.stdout, "no store here yet: %s has no task store (%s); matrixx add \"subject\" creates it\n", p.Root, p.Store.Dir)
	return true
}

// literal marks an argument of matrixx add that followed "--": text,
// whatever it looks like. A command line cannot hold a NUL byte, so the
// mark cannot come from the user.
const literal = "\x00"

// literalSubject makes "--" in matrixx add protect only the one argument
// after it: "add -- --json flag --parent X" adds the subject "--json flag"
// as a subtask of X (the flags before and after "--" are parsed). The
// argument is passed on marked (literal) so the parser takes it as a word
// of the subject; addCmd removes the mark.
func literalSubject(args []string) []string {
	cmd := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--dir" || a == "--session" || a == "--color":
			i++ // the global flag's value
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		cmd = i
		break
	}
	if cmd < 0 || args[cmd] != "add" {
		return args
	}
	out := make([]string, 0, len(args))
	out = append(out, args[:cmd+1]...)
	for i := cmd + 1; i < len(args); i++ {
		if args[i] == "--" && i+1 < len(args) {
			out = append(out, literal+args[i+1])
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}
