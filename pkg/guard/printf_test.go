package guard

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// printfCases are printf argument lists with the text bash 5 gives
// (checked against bash: MATRIXX_PRINTF_BASH=1 go test -run TestPrintfOut).
var printfCases = []struct {
	args []string
	want string
}{
	{[]string{"%s/T-1.json", ".matrixx/tasks"}, ".matrixx/tasks/T-1.json"},
	{[]string{"%s/%s", ".matrixx", "tasks"}, ".matrixx/tasks"},
	{[]string{"%b", ".matrixx/tasks"}, ".matrixx/tasks"},
	{[]string{"%b", `.matrixx\x2ftasks`}, ".matrixx/tasks"},
	{[]string{"%b", `.matrixx\057tasks`}, ".matrixx/tasks"},
	{[]string{"%b", `.matrixx\0057tasks`}, ".matrixx/tasks"},
	{[]string{"%b", `.matrixx/tasks\cjunk`, "more"}, ".matrixx/tasks"},
	{[]string{`.matrixx\057tasks`}, ".matrixx/tasks"},
	{[]string{`.matrixx\x2f%s`, "tasks"}, ".matrixx/tasks"},
	{[]string{"%q", ".matrixx/tasks"}, ".matrixx/tasks"},
	{[]string{"%q", "a b'c"}, `a\ b\'c`},
	{[]string{"%q", ""}, "''"},
	{[]string{"%q", "~x#y"}, `\~x#y`},
	{[]string{"%q|%q|%q|%q", "a=~", ",x", "=x", "#a"}, `a=\~|\,x|=x|\#a`},
	{[]string{"%s", "a", "b", "c"}, "abc"},
	{[]string{"%s/", "a", "b", "c"}, "a/b/c/"},
	{[]string{"%s=%s;", "a", "b", "c"}, "a=b;c=;"},
	{[]string{"%s %d|", "a"}, "a 0|"},
	{[]string{"100%% %s", "x"}, "100% x"},
	{[]string{"T-%d.json", "7"}, "T-7.json"},
	{[]string{"T-%03d.json", "7"}, "T-007.json"},
	{[]string{"%i %u %o %x %X", "10", "10", "10", "255", "255"}, "10 10 12 ff FF"},
	{[]string{"%d", "0x1f"}, "31"},
	{[]string{"%d", "010"}, "8"},
	{[]string{"%d", "'a"}, "97"},
	{[]string{"%d", "-5"}, "-5"},
	{[]string{"%+d %5d|%-5d|%.3d", "5", "5", "5", "5"}, "+5     5|5    |005"},
	{[]string{"%#x %#o", "255", "8"}, "0xff 010"},
	{[]string{"%c%c", "matrixx", "x"}, "mx"},
	{[]string{"%5s|%-5s|%.2s", "ab", "ab", "abc"}, "   ab|ab   |ab"},
	{[]string{"%*s|%-*s|%.*s", "4", "a", "3", "b", "2", "xyz"}, "   a|b  |xy"},
	{[]string{"%ld %hd", "3", "4"}, "3 4"},
	{[]string{"a\\tb\\n"}, "a\tb\n"},
	{[]string{"%s\\n", "x", "y"}, "x\ny\n"},
	{[]string{"--", "%s", "x"}, "x"},
	{[]string{"no conversions", "extra"}, "no conversions"},
}

func TestPrintfOut(t *testing.T) {
	bash := os.Getenv("MATRIXX_PRINTF_BASH") != ""
	for _, c := range printfCases {
		got, ok := printfOut(c.args)
		if !ok || got != c.want {
			t.Errorf("printf %q = %q, %v; want %q", c.args, got, ok, c.want)
		}
		if bash {
			out, err := exec.Command("bash", append([]string{"-c", `printf -v v "$@"; printf %s "$v"`, "x"}, c.args...)...).Output()
			if err != nil || string(out) != c.want {
				t.Errorf("bash printf %q = %q (%v); table says %q", c.args, out, err, c.want)
			}
		}
	}
}

// TestPrintfOutUnknown: the parts the guard does not compute are the
// byte unknown; a format it cannot know gives nothing.
func TestPrintfOutUnknown(t *testing.T) {
	u := string(unknown)
	for _, c := range []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"%s/tasks", u}, u + "/tasks", true},
		{[]string{"%s/%s", ".matrixx", u}, ".matrixx/" + u, true},
		{[]string{"%s/tasks%.0f", ".matrixx", "1"}, ".matrixx/tasks" + u, true},
		{[]string{"%(%s)T/x", "-1"}, u + "/x", true},
		{[]string{"%d", "1" + u}, u, true},
		{[]string{"%5s", u}, u, true},
		{[]string{"%99999s", "x"}, u, true},
		{[]string{u, ".matrixx/tasks"}, "", false},
		{[]string{"%s" + u, ".matrixx"}, "", false},
		{[]string{"%y", "x"}, "", false},
		{[]string{"%"}, "", false},
		{nil, "", false},
	} {
		got, ok := printfOut(c.args)
		if ok != c.ok || got != c.want {
			t.Errorf("printf %q = %q, %v; want %q, %v", c.args, got, ok, c.want, c.ok)
		}
	}
	if _, ok := printfOut([]string{strings.Repeat("%s", 10), strings.Repeat("x", maxPrintf)}); ok {
		// one pass is within the cap; the text is built
	} else {
		t.Errorf("a text within the cap was not built")
	}
	if _, ok := printfOut(append([]string{"%s%s"}, strings.Split(strings.Repeat("x", 2*maxPrintf), "")...)); ok {
		t.Errorf("a text over the cap was built")
	}
}

func TestPrintfVar(t *testing.T) {
	for _, c := range []struct {
		args []string
		name string
		rest int
		ok   bool
	}{
		{[]string{"-v", "p", "%s", "x"}, "p", 2, true},
		{[]string{"-vp", "%s", "x"}, "p", 2, true},
		{[]string{"-v", "p", "--", "%s"}, "p", 1, true},
		{[]string{"%s", "-v"}, "", 0, false},
		{[]string{"-v"}, "", 0, false},
	} {
		name, rest, ok := printfVar(c.args)
		if name != c.name || len(rest) != c.rest || ok != c.ok {
			t.Errorf("printfVar %q = %q %q %v", c.args, name, rest, ok)
		}
	}
}
