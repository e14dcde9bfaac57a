package app

import (
	"strings"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// QuickParser is a command whose most common command lines are taken
// without building kong's model. Building it (reflection over every flag's
// struct tag, interpolation of every help text) is most of a task binary's
// own start-up, and agents and hooks run task-get, task-list, task-create
// and task-update many times per session with nothing but -C, --session,
// --pretty and an id.
//
// QuickParse either sets the command exactly as kong would from args and
// reports true, or changes nothing and reports false, and kong parses args
// as always: help, --version, every other flag, odd spellings and every
// error are kong's. TestQuickParseMatchesKong checks the first half of that
// rule against kong itself over every arrangement of a set of words.
type QuickParser interface {
	QuickParse(args []string) bool
}

// QuickArgs takes args made only of these words, each at most once:
//
//	-C DIR, --dir DIR, --dir=DIR   the project root (Globals.Dir)
//	--session ID, --session=ID     the session id (Globals.Session)
//	--pretty                       indented answer (Globals.Pretty)
//	WORD                           one positional argument, when pos is not nil
//
// A value (DIR, ID) must be non-empty and must not start with "-", and a
// positional word must not start with "-" either. On any other argument
// it reports false and sets nothing. The flags and the word may come in any
// order, as with kong.
func QuickArgs(args []string, g *commands.Globals, pos *string) bool {
	var dir, session, word string
	var haveDir, haveSession, pretty, haveWord bool
	for i := 0; i < len(args); i++ {
		arg := args[i]
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		var v string
		var ok bool
		switch {
		case arg == "-C" || arg == "--dir":
			if haveDir {
				return false
			}
			v, ok = value()
			dir, haveDir = v, true
		case strings.HasPrefix(arg, "--dir="):
			if haveDir {
				return false
			}
			v, ok = arg[len("--dir="):], true
			dir, haveDir = v, true
		case arg == "--session":
			if haveSession {
				return false
			}
			v, ok = value()
			session, haveSession = v, true
		case strings.HasPrefix(arg, "--session="):
			if haveSession {
				return false
			}
			v, ok = arg[len("--session="):], true
			session, haveSession = v, true
		case arg == "--pretty":
			if pretty {
				return false
			}
			pretty, v, ok = true, "x", true
		case arg != "" && !strings.HasPrefix(arg, "-") && pos != nil && !haveWord:
			word, haveWord, v, ok = arg, true, arg, true
		default:
			return false
		}
		if !ok || v == "" || strings.HasPrefix(v, "-") {
			return false
		}
	}
	g.Dir, g.Session, g.Pretty = dir, session, pretty
	if pos != nil {
		*pos = word
	}
	return true
}
