package hook

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// Task binaries whose answers the notepad writer reads (the command
// table's names).
const (
	binCreate = commands.BinCreate
	binUpdate = commands.BinUpdate
	// binPorcelain is matrixx: its add creates, its claim and done update
	// (docs/porcelain.md); the answers are read from its confirmations
	// (notepad.ParsePorcelain) or, with --json, from the plumbing's JSON.
	binPorcelain = commands.BinPorcelain
)

// porcelainValued are matrixx's global flags that take a value as the next
// word (the subcommand is the first other word).
var porcelainValued = map[string]bool{"-C": true, "--dir": true, "--session": true, "--color": true}

// porcelainCall says what `matrixx ARGS…` writes: add creates, claim and
// done update; other subcommands and words that cannot be known (not
// literal) write nothing the notepads care about.
func porcelainCall(args []*syntax.Word, create, update *bool) {
	for i := 0; i < len(args); i++ {
		w, ok := literal(args[i].Parts)
		if !ok {
			return
		}
		if porcelainValued[w] {
			i++
			continue
		}
		if strings.HasPrefix(w, "-") {
			continue
		}
		switch w {
		case "add":
			*create = true
		case "claim", "done":
			*update = true
		}
		return
	}
}

// wrappers are commands that run another command given among their
// arguments (env, xargs, timeout, …): a task binary named in any of their
// arguments runs.
var wrappers = map[string]bool{
	"env": true, "command": true, "exec": true, "builtin": true, "nice": true, "nohup": true,
	"time": true, "timeout": true, "xargs": true, "sudo": true, "doas": true, "stdbuf": true,
	"setsid": true, "ionice": true, "chronic": true, "unbuffer": true, "go": true,
}

// shells are commands whose -c argument is itself a command line.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true}

// maxShellDepth bounds nested `sh -c '… sh -c …'`.
const maxShellDepth = 4

// taskCalls reports whether a Bash command line runs task-create and/or
// task-update: whether one of the commands the shell would execute — in
// any list, pipeline, subshell, command substitution or function body — is
// that binary (by base name, whatever its directory, quoting or a ".exe"
// suffix), directly, through a wrapper (env, xargs, timeout, …) or inside
// `sh -c '…'`. The line is parsed with mvdan.cc/sh/v3/syntax and nothing is
// expanded: a mention in a comment, a quoted string, a heredoc body or an
// argument of another command (`echo task-create`, `task-list # then
// task-create`) does not count, and neither does a name hidden in a
// variable (`$TC`). When the line does not parse (a truncated or non-Bash
// command), the statements before the error count.
func taskCalls(command string) (create, update bool) {
	scanCommand(command, 0, &create, &update)
	return create, update
}

func scanCommand(command string, depth int, create, update *bool) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	_ = p.Stmts(strings.NewReader(command), func(st *syntax.Stmt) bool {
		syntax.Walk(st, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				scanCall(call, depth, create, update)
			}
			return true
		})
		return true
	})
}

// scanCall looks at one simple command: its name, and when that is a
// wrapper, every following argument (the wrapped command is one of them; an
// option, an option's value or a duration is never a task binary).
func scanCall(call *syntax.CallExpr, depth int, create, update *bool) {
	wrapped := false
	for i, arg := range call.Args {
		word, ok := literal(arg.Parts)
		name := commandName(word)
		switch {
		case !ok:
			// A word we cannot know without expanding it.
		case name == binCreate:
			*create = true
			return
		case name == binUpdate:
			*update = true
			return
		case name == binPorcelain:
			porcelainCall(call.Args[i+1:], create, update)
			return
		case shells[name]:
			if depth < maxShellDepth {
				if script, ok := shellScript(call.Args[i+1:]); ok {
					scanCommand(script, depth+1, create, update)
				}
			}
			return
		case wrappers[name]:
			wrapped = true
		}
		if !wrapped {
			return
		}
	}
}

// shellScript returns the script of a shell's -c option (-c, or a group of
// short options holding c, such as -ec or -lc), when it is literal.
func shellScript(args []*syntax.Word) (string, bool) {
	for i, a := range args {
		w, ok := literal(a.Parts)
		if !ok || !strings.HasPrefix(w, "-") || strings.HasPrefix(w, "--") {
			return "", false
		}
		if strings.Contains(w[1:], "c") && i+1 < len(args) {
			return literal(args[i+1].Parts)
		}
	}
	return "", false
}

// commandName is the base name of a command word, without a ".exe" suffix.
func commandName(word string) string {
	name := path.Base(strings.ReplaceAll(word, `\`, "/"))
	if len(name) > 4 && strings.EqualFold(name[len(name)-4:], ".exe") {
		name = name[:len(name)-4]
	}
	return name
}
