package app

import (
	"slices"
	"strings"
	"time"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// QuickParser is a command whose most common command lines are taken
// without building kong's model. Building it (reflection over every flag's
// struct tag, interpolation of every help text) is most of a task binary's
// own start-up, and agents and hooks run task-get, task-list, task-create
// and task-update many times per session with nothing but -C, --session,
// --pretty and an id, and a swarm's workers run task-claim --owner W and
// task-update ID --status completed --expect-owner W in a loop.
//
// QuickParse either sets the command exactly as kong would from args and
// reports true, or changes nothing and reports false, and kong parses args
// as always: help, --version, every other flag, odd spellings and every
// error are kong's. TestQuickParseMatchesKong checks the first half of that
// rule against kong itself over every arrangement of a set of words.
type QuickParser interface {
	QuickParse(args []string) bool
}

// QuickFlag is one of a command's own flags that QuickArgs takes:
// --NAME VALUE or --NAME=VALUE, at most once.
type QuickFlag struct {
	// Name is the flag's long name, without the dashes.
	Name string
	// Take returns what sets the command's field from value exactly as
	// kong would, or nil when the value is kong's to judge (then the
	// whole command line is). QuickArgs calls what it returns only once it
	// has taken the whole command line.
	Take func(value string) (set func())
}

// QuickString is a flag of type *string (any value QuickArgs accepts).
func QuickString(name string, field **string) QuickFlag {
	return QuickFlag{Name: name, Take: func(v string) func() { return func() { *field = &v } }}
}

// QuickEnum is a flag of type *string with an enum tag: values is the
// enum, and any other value is kong's (its error message).
func QuickEnum(name string, field **string, values ...string) QuickFlag {
	return QuickFlag{Name: name, Take: func(v string) func() {
		if !slices.Contains(values, v) {
			return nil
		}
		return func() { *field = &v }
	}}
}

// QuickDuration is a flag of type *time.Duration: kong decodes a
// command-line value with time.ParseDuration, and so does this; a value it
// refuses is kong's (its error message).
func QuickDuration(name string, field **time.Duration) QuickFlag {
	return QuickFlag{Name: name, Take: func(v string) func() {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil
		}
		return func() { *field = &d }
	}}
}

// QuickArgs takes args made only of these words, each flag at most once:
//
//	-C DIR, --dir DIR, --dir=DIR   the project root (Globals.Dir)
//	--session ID, --session=ID     the session id (Globals.Session)
//	--pretty                       indented answer (Globals.Pretty)
//	--NAME V, --NAME=V             each of flags whose Take takes V
//	WORD                           one positional argument, when pos is not nil
//
// A value (DIR, ID, V) must be non-empty and must not start with "-", and
// a positional word must not start with "-" either. On any other argument
// it reports false and sets nothing. The flags and the word may come in any
// order, as with kong.
func QuickArgs(args []string, g *commands.Globals, pos *string, flags ...QuickFlag) bool {
	var dir, session, word string
	var haveDir, haveSession, pretty, haveWord bool
	var sets []func()
	var given []bool
	if len(flags) > 0 {
		sets, given = make([]func(), 0, len(flags)), make([]bool, len(flags))
	}
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
			f := ownFlag(flags, arg)
			if f < 0 || given[f] {
				return false
			}
			given[f] = true
			if name := flags[f].Name; len(arg) > len("--")+len(name) {
				v, ok = arg[len("--")+len(name)+len("="):], true
			} else {
				v, ok = value()
			}
			if ok && v != "" && !strings.HasPrefix(v, "-") {
				set := flags[f].Take(v)
				if set == nil {
					return false
				}
				sets = append(sets, set)
			}
		}
		if !ok || v == "" || strings.HasPrefix(v, "-") {
			return false
		}
	}
	for _, set := range sets {
		set()
	}
	g.Dir, g.Session, g.Pretty = dir, session, pretty
	if pos != nil {
		*pos = word
	}
	return true
}

// ownFlag returns the index in flags of the flag arg names (--NAME or
// --NAME=…), or -1.
func ownFlag(flags []QuickFlag, arg string) int {
	if !strings.HasPrefix(arg, "--") {
		return -1
	}
	for i, f := range flags {
		if rest, ok := strings.CutPrefix(arg[len("--"):], f.Name); ok && (rest == "" || rest[0] == '=') {
			return i
		}
	}
	return -1
}
