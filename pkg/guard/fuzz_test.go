package guard

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheck fuzzes the Bash analysis (go test ./pkg/guard -run '^$' -fuzz
// FuzzCheck). Properties:
//   - check never panics (it is called without Check's recover);
//   - the decision is deterministic;
//   - a denied command stays denied when wrapped in a subshell "( … )",
//     a group "{ … }", "bash -c -- '…'" or "eval -- '…'", and when it
//     runs after "true &&" (the wrapped command does the same writes),
//     if it parses alike wrapped (or, when it does not parse, if the raw
//     rule denied it);
//   - prefixing a no-op statement (":" on its own line) does not change
//     the decision either way.
func FuzzCheck(f *testing.F) {
	for _, c := range corpus() {
		if len(c.cmd) <= 4096 { // the budget rows are too big to mutate usefully
			f.Add(c.cmd)
		}
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		d := bashCheck(cmd)
		// The shell sees the command up to a NUL byte; so does the
		// guard. Wrap what the shell sees.
		if i := strings.IndexByte(cmd, 0); i >= 0 {
			cmd = cmd[:i]
		}
		if again := bashCheck(cmd); again != d {
			t.Fatalf("not deterministic: %+v then %+v", d, again)
		}
		if d.Deny && (d.Reason == "" || d.Rule == "") {
			t.Fatalf("denied without reason or rule: %+v", d)
		}
		if got := bashCheck(":\n" + cmd); got.Deny != d.Deny {
			t.Fatalf("prefixing ':' changed deny %v → %v (%s)", d.Deny, got.Deny, got.Reason)
		}
		if !d.Deny {
			return
		}
		// A wrapping can change how the text parses (a trailing
		// backslash joins the closing line; mvdan.cc/sh reads some
		// '#' differently at the top level and inside ( … ), see
		// misreadComments): compare like with like.
		// A command that does not parse is denied by the raw rule on its
		// text, or for the lines before the error, which bash runs; a
		// wrapping puts those lines inside a construct that bash never
		// runs, so only the raw rule's denials must survive it.
		parses := parseable(cmd)
		if !parses && d.Rule != "bash:parse" {
			return
		}
		for _, w := range wrappings(cmd) {
			if parses == parseable(w) && (!parses || sameParse(cmd, w)) {
				if got := bashCheck(w); !got.Deny {
					t.Fatalf("denied (%s) but allowed when wrapped:\n%s", d.Reason, w)
				}
			}
		}
	})
}

func bashCheck(cmd string) Decision {
	return check(Request{Tool: "Bash", Cwd: testCwd, Command: cmd, Home: "/nonexistent-guard-test/home"})
}

func parseable(cmd string) bool {
	if len(cmd) > maxCommand {
		return false
	}
	_, _, _, err := parseScript(cmd)
	return err == nil
}

// wrappings are forms of cmd that run the same commands in the same
// directory with the same variables.
func wrappings(cmd string) []string {
	out := []string{
		"(\n" + cmd + "\n)",
		"{\n" + cmd + "\n}",
		"true && {\n" + cmd + "\n}",
	}
	// Inside bash -c, $0, $1, … and $@ mean something else.
	if !usesPositional(cmd) && strings.IndexByte(cmd, 0) < 0 {
		if q, err := syntax.Quote(cmd, syntax.LangBash); err == nil {
			out = append(out, "bash -c -- "+q, "eval -- "+q)
		}
	}
	return out
}

// sameParse reports whether the wrapped form w holds the statements of cmd
// as the parser reads them (printed alike).
func sameParse(cmd, w string) bool {
	f, _, _, err := parseScript(cmd)
	if err != nil {
		return false
	}
	g, _, _, err := parseScript(w)
	if err != nil || len(g.Stmts) != 1 {
		return false
	}
	var inner []*syntax.Stmt
	switch c := g.Stmts[0].Cmd.(type) {
	case *syntax.Subshell:
		inner = c.Stmts
	case *syntax.Block:
		inner = c.Stmts
	case *syntax.BinaryCmd:
		b, ok := c.Y.Cmd.(*syntax.Block)
		if !ok {
			return false
		}
		inner = b.Stmts
	default:
		return true // bash -c, eval: the same text is parsed
	}
	return printed(f) == printed(&syntax.File{Stmts: inner})
}

func printed(f *syntax.File) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, f); err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

func usesPositional(cmd string) bool {
	for i := 0; i+1 < len(cmd); i++ {
		if cmd[i] != '$' {
			continue
		}
		c := cmd[i+1]
		if c == '{' && i+2 < len(cmd) {
			c = cmd[i+2]
		}
		// $1, $@, $*, $#, and zsh's $=1, $~1, $^1, $+1.
		if c >= '0' && c <= '9' || strings.IndexByte("@*#=~^+", c) >= 0 {
			return true
		}
	}
	return false
}
