package cli

import (
	"io"
	"reflect"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
)

// quickCommands are the commands with a quickParse, each as a constructor
// of its zero value.
var quickCommands = map[string]func() app.QuickParser{
	"task-get":    func() app.QuickParser { return &getCmd{} },
	"task-list":   func() app.QuickParser { return &listCmd{} },
	"task-create": func() app.QuickParser { return &createCmd{} },
	"task-update": func() app.QuickParser { return &updateCmd{} },
}

// quickWords are the words the command lines of the test are made of:
// the shapes quickArgs takes and their near misses.
var quickWords = []string{
	"-C", "--dir", "--dir=/p", "--dir=", "/p", "--session", "--session=s", "--session=",
	"s", "--pretty", "--pretty=true", "T-0123", "7f3a", "-", "--", "", "-x", "--where",
	"-C/p", "--lock-timeout", "1s", "--status", "pending", "help", "--help", "-h", "--version",
}

// exited carries kong's exit out of Parse.
type exited int

// kongParse parses args into cmd the way run does without quickParse; ok
// is false when kong refuses args or exits (help, version).
func kongParse(t *testing.T, cmd any, args []string) (ok bool) {
	t.Helper()
	parser, err := app.NewParser(cmd, "x", "", io.Discard, io.Discard,
		kong.Exit(func(code int) { panic(exited(code)) }),
		kong.Vars{"version": "x"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, exited := r.(exited); !exited {
				panic(r)
			}
			ok = false
		}
	}()
	_, err = parser.Parse(args)
	return err == nil
}

// TestQuickParseMatchesKong: every command line of up to four words that
// quickParse takes gives the command kong gives, and every one it refuses
// leaves the command untouched.
func TestQuickParseMatchesKong(t *testing.T) {
	for name, fresh := range quickCommands {
		t.Run(name, func(t *testing.T) {
			taken, refused := 0, 0
			var walk func(args []string)
			walk = func(args []string) {
				quick := fresh()
				if quick.QuickParse(args) {
					taken++
					byKong := fresh()
					if !kongParse(t, byKong, args) {
						t.Errorf("%q: quickParse took it, kong refused it", args)
					} else if !reflect.DeepEqual(quick, byKong) {
						t.Errorf("%q: quickParse gave %+v, kong %+v", args, quick, byKong)
					}
				} else {
					refused++
					if !reflect.DeepEqual(quick, fresh()) {
						t.Errorf("%q: quickParse refused it but changed the command to %+v", args, quick)
					}
				}
				if len(args) == 4 {
					return
				}
				for _, w := range quickWords {
					walk(append(args[:len(args):len(args)], w))
				}
			}
			walk(nil)
			// Not vacuous: the common shapes are taken, the rest refused.
			if taken < 100 || refused < 100 {
				t.Fatalf("took %d command lines and refused %d: the word set no longer exercises both sides", taken, refused)
			}
			t.Logf("took %d command lines, refused %d", taken, refused)
		})
	}
}

// TestQuickParseTakesTheHotShapes names the command lines agents and
// hooks run most, which must not build kong's model.
func TestQuickParseTakesTheHotShapes(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"T-0123"},
		{"-C", "/p", "T-0123"},
		{"--dir=/p", "--session", "s", "--pretty"},
	} {
		if !(&getCmd{}).QuickParse(args) {
			t.Errorf("task-get %q was not taken", args)
		}
	}
	for _, args := range [][]string{{"--ready"}, {"--where"}, {"--version"}, {"-C"}, {"a", "b"}, {"-C", "-x"}} {
		if (&getCmd{}).QuickParse(args) {
			t.Errorf("task-get %q was taken; it is kong's", args)
		}
	}
}
