package cli

import (
	"io"
	"reflect"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
)

// quickCommand is a command with a QuickParse: a constructor of its zero
// value, and the words of its own flags (their values and near misses)
// that its command lines are made of beside quickWords.
type quickCommand struct {
	fresh func() app.QuickParser
	words []string
}

var quickCommands = map[string]quickCommand{
	"task-get":    {fresh: func() app.QuickParser { return &getCmd{} }},
	"task-list":   {fresh: func() app.QuickParser { return &listCmd{} }},
	"task-create": {fresh: func() app.QuickParser { return &createCmd{} }},
	"task-update": {fresh: func() app.QuickParser { return &updateCmd{} }, words: []string{
		"completed", "bogus", "--status=completed", "--status=", "--expect-owner", "--expect-owner=w",
		"--expect-owner=", "w", "--owner",
	}},
	"task-claim": {fresh: func() app.QuickParser { return &claimCmd{} }, words: []string{
		"--owner", "--owner=w", "--owner=", "w", "--owners=w", "--lease", "--lease=10m", "10m",
		"bogus", "--remote",
	}},
}

// quickWords are the words the command lines of the test are made of:
// the shapes QuickArgs takes and their near misses.
var quickWords = []string{
	"-C", "--dir", "--dir=/p", "--dir=", "/p", "--session", "--session=s", "--session=",
	"s", "--pretty", "--pretty=true", "T-0123", "7f3a", "-", "--", "", "-x", "--where",
	"-C/p", "--lock-timeout", "1s", "--status", "pending", "help", "--help", "-h", "--version",
}

// exited carries kong's exit out of Parse.
type exited int

// kongParser returns a function parsing args into cmd the way Run does
// without QuickParse; it reports false when kong refuses args or exits
// (help, version). One parser serves every call: kong resets every flag
// and argument of cmd to its default before it applies a command line.
func kongParser(t *testing.T, cmd any) func(args []string) bool {
	t.Helper()
	parser, err := app.NewParser(cmd, "x", "", io.Discard, io.Discard,
		kong.Exit(func(code int) { panic(exited(code)) }),
		kong.Vars{"version": "x"})
	if err != nil {
		t.Fatal(err)
	}
	return func(args []string) (ok bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, exited := r.(exited); !exited {
					panic(r)
				}
				ok = false
			}
		}()
		_, err := parser.Parse(args)
		return err == nil
	}
}

// quickChecker checks one command line against kong: when QuickParse
// takes it, kong must take it too and give the same command; when it
// refuses it, the command must be untouched.
type quickChecker struct {
	t              *testing.T
	cmd            quickCommand
	byKong         app.QuickParser
	kong           func([]string) bool
	taken, refused int
}

func newQuickChecker(t *testing.T, cmd quickCommand) *quickChecker {
	c := &quickChecker{t: t, cmd: cmd, byKong: cmd.fresh()}
	c.kong = kongParser(t, c.byKong)
	return c
}

func (c *quickChecker) check(args []string) {
	quick := c.cmd.fresh()
	if quick.QuickParse(args) {
		c.taken++
		if !c.kong(args) {
			c.t.Errorf("%q: QuickParse took it, kong refused it", args)
		} else if !reflect.DeepEqual(quick, c.byKong) {
			c.t.Errorf("%q: QuickParse gave %+v, kong %+v", args, quick, c.byKong)
		}
		return
	}
	c.refused++
	if !reflect.ValueOf(quick).Elem().IsZero() {
		c.t.Errorf("%q: QuickParse refused it but changed the command to %+v", args, quick)
	}
}

// TestQuickParseMatchesKong: every command line of up to four words from
// quickWords and the command's own words that QuickParse takes gives the
// command kong gives, and every one it refuses leaves the command
// untouched.
func TestQuickParseMatchesKong(t *testing.T) {
	for name, cmd := range quickCommands {
		t.Run(name, func(t *testing.T) {
			c := newQuickChecker(t, cmd)
			words := append(quickWords[:len(quickWords):len(quickWords)], cmd.words...)
			buf := make([]string, 4)
			var walk func(n int)
			walk = func(n int) {
				c.check(buf[:n])
				if n == len(buf) {
					return
				}
				for _, w := range words {
					buf[n] = w
					walk(n + 1)
				}
			}
			walk(0)
			// Not vacuous: the common shapes are taken, the rest refused.
			if c.taken < 100 || c.refused < 100 {
				t.Fatalf("took %d command lines and refused %d: the word set no longer exercises both sides", c.taken, c.refused)
			}
			t.Logf("took %d command lines, refused %d", c.taken, c.refused)
		})
	}
}

// quickPhrases are, for the commands whose own flags take a value, the
// units (a flag with its value, an id, a near miss) of the longer command
// lines of TestQuickParseMatchesKongOnLongerLines: a swarm worker's
// "task-update -C DIR ID --status completed --expect-owner W" is seven
// words.
var quickPhrases = map[string][][]string{
	"task-update": {
		{"-C", "/p"}, {"T-0123"}, {"--status", "completed"}, {"--status=in_progress"}, {"--status", "bogus"},
		{"--expect-owner", "w"}, {"--expect-owner=w"}, {"--expect-owner="}, {"--session", "s"}, {"--pretty"},
		{"--lock-timeout", "1s"}, {"--owner", "w"}, {"--force"}, {"--status"},
	},
	"task-claim": {
		{"-C", "/p"}, {"T-0123"}, {"--owner", "w"}, {"--owner=w"}, {"--owner="}, {"--lease", "1h"},
		{"--lease=10m"}, {"--lease", "bogus"}, {"--session=s"}, {"--pretty"}, {"--remote"}, {"--paths", "a/**"},
		{"--lock-timeout", "1s"}, {"--owner"},
	},
}

// quickDurations are spellings of a duration, valid and not, for the
// flags of type time.Duration.
var quickDurations = []string{
	"1h", "10m", "90s", "1h30m", "+90s", "0", "0s", "10", "1e3s", "1.5h", ".5s", "1.s", "-5m", "5 m", "1H",
	"300ms", "1us", "1µs", "1μs", "2562047h", "2562048h", "9223372036854775807ns", "bogus", "0x10s", "1h-5m",
}

// TestQuickParseMatchesKongOnLongerLines: every arrangement of up to four
// of a command's phrases, and a claim with every duration spelling, parse
// as kong parses them whenever QuickParse takes them.
func TestQuickParseMatchesKongOnLongerLines(t *testing.T) {
	for name, phrases := range quickPhrases {
		t.Run(name, func(t *testing.T) {
			c := newQuickChecker(t, quickCommands[name])
			used := make([]bool, len(phrases))
			var walk func(args []string, n int)
			walk = func(args []string, n int) {
				c.check(args)
				if n == 4 {
					return
				}
				for i, p := range phrases {
					if !used[i] {
						used[i] = true
						walk(append(args[:len(args):len(args)], p...), n+1)
						used[i] = false
					}
				}
			}
			walk(nil, 0)
			if c.taken < 100 || c.refused < 100 {
				t.Fatalf("took %d command lines and refused %d: the phrases no longer exercise both sides", c.taken, c.refused)
			}
			t.Logf("took %d command lines, refused %d", c.taken, c.refused)
		})
	}
	c := newQuickChecker(t, quickCommands["task-claim"])
	for _, d := range quickDurations {
		c.check([]string{"--owner", "w", "--lease", d})
		c.check([]string{"--lease=" + d, "--owner=w", "T-0123"})
	}
	if c.taken < 10 || c.refused < 10 {
		t.Fatalf("took %d claims and refused %d: the durations no longer exercise both sides", c.taken, c.refused)
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
	// A swarm worker's loop (bench/drain.go, bench/swarm.go).
	for _, args := range [][]string{
		{"-C", "/p", "--owner", "agent-3", "--lease", "1h"},
		{"--owner=agent-3", "T-0123"},
		{"--owner", "agent-3"},
	} {
		c := &claimCmd{}
		if !c.QuickParse(args) || c.Owner == nil || *c.Owner != "agent-3" || c.RemoteName != "origin" {
			t.Errorf("task-claim %q was not taken as kong takes it: %+v", args, c)
		}
	}
	c := &updateCmd{}
	if !c.QuickParse([]string{"-C", "/p", "T-0123", "--status", "completed", "--expect-owner", "agent-3"}) ||
		c.ID != "T-0123" || c.Status == nil || *c.Status != "completed" || c.ExpectOwner == nil || *c.ExpectOwner != "agent-3" {
		t.Errorf("the completing task-update was not taken: %+v", c)
	}
	for _, args := range [][]string{{"--owner", "w", "--remote"}, {"--owner", "w", "--lease", "15"}, {"--owner="}, {"--owner", "w", "--owner", "v"}} {
		if (&claimCmd{}).QuickParse(args) {
			t.Errorf("task-claim %q was taken; it is kong's", args)
		}
	}
	for _, args := range [][]string{{"T-0123", "--status", "done"}, {"T-0123", "--owner", "w"}, {"T-0123", "--expect-owner="}} {
		if (&updateCmd{}).QuickParse(args) {
			t.Errorf("task-update %q was taken; it is kong's", args)
		}
	}
}
