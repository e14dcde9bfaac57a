package t

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/itchyny/gojq"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmd is a custom testscript command.
type scriptCmd = func(ts *testscript.TestScript, neg bool, args []string)

// commands are the script commands testscript lacks: the core ones here,
// plus those of each part (hook, plan, proof) from their own files.
func commands() map[string]scriptCmd {
	all := map[string]scriptCmd{}
	for _, m := range []map[string]scriptCmd{coreCommands(), hookCommands(), planCommands(), proofCommands(), boardCommands()} {
		for k, v := range m {
			all[k] = v
		}
	}
	return all
}

func coreCommands() map[string]scriptCmd {
	return map[string]scriptCmd{
		"exitcode":      cmdExitcode,
		"json":          cmdJSON,
		"jqset":         cmdJQSet,
		"age":           cmdAge,
		"readme-script": cmdReadmeScript,
	}
}

// readme-script NAME: write the shell script NAME that the user guides
// print (the ```sh block that starts with "#!/bin/sh" and "# NAME", in
// README.md or docs/many-agents.md) to $WORK/NAME, so the scripts test the
// guides' text itself.
func cmdReadmeScript(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: readme-script NAME")
	}
	var readme []byte
	start := "```sh\n#!/bin/sh\n# " + args[0] + " "
	i := -1
	for _, guide := range []string{"../README.md", "../docs/many-agents.md"} {
		text, err := os.ReadFile(guide)
		ts.Check(err)
		if i = strings.Index(string(text), start); i >= 0 {
			readme = text
			break
		}
	}
	if i < 0 {
		ts.Fatalf("neither README.md nor docs/many-agents.md has the script %s", args[0])
	}
	body := string(readme[i+len("```sh\n"):])
	end := strings.Index(body, "\n```")
	if end < 0 {
		ts.Fatalf("README.md: script %s has no end", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(body[:end+1]), 0o755))
}

// exitcode N prog args...: run prog (like exec) and require exit status N.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// eval runs a jq expression over the JSON in the last command's stdout (or
// in FILE when the first argument is "-f FILE").
func eval(ts *testscript.TestScript, args []string) ([]any, string) {
	src := "stdout"
	if len(args) >= 2 && args[0] == "-f" {
		src, args = args[1], args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("want exactly one jq expression, got %q", args)
	}
	var doc any
	data := ts.ReadFile(src)
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		ts.Fatalf("%s is not one JSON document: %v\n%s", src, err, data)
	}
	q, err := gojq.Parse(args[0])
	ts.Check(err)
	var out []any
	iter := q.Run(doc)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			ts.Fatalf("jq %s: %v", args[0], err)
		}
		out = append(out, v)
	}
	return out, args[0]
}

// json [-f FILE] EXPR: require that the jq expression is true.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	out, expr := eval(ts, args)
	ok := len(out) > 0
	for _, v := range out {
		if v == nil || v == false {
			ok = false
		}
	}
	if ok == neg {
		ts.Fatalf("json %s: got %v", expr, out)
	}
}

// jqset VAR [-f FILE] EXPR: set VAR to the expression's result (strings
// raw, other values as JSON; several results joined by spaces).
func cmdJQSet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jqset VAR [-f FILE] EXPR")
	}
	out, _ := eval(ts, args[1:])
	var parts []string
	for _, v := range out {
		if s, ok := v.(string); ok {
			parts = append(parts, s)
			continue
		}
		b, err := json.Marshal(v)
		ts.Check(err)
		parts = append(parts, string(b))
	}
	ts.Setenv(args[0], strings.Join(parts, " "))
}

// age DURATION FILE...: set the files' mtime to DURATION ago (e.g. 2h, 11m).
func cmdAge(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: age DURATION FILE...")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	when := time.Now().Add(-d)
	for _, f := range args[1:] {
		if err := os.Chtimes(ts.MkAbs(f), when, when); err != nil {
			ts.Fatalf("%v", fmt.Errorf("age: %w", err))
		}
	}
}
