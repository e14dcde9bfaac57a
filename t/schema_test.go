package t

// The JSON Schemas of docs/schemas checked against what the scripts do:
// every JSON answer a binary prints while the scripts run (recorded by the
// binaries registered in TestMain, validated when each script ends), and
// every archive file a script feeds a binary as its stdin document when the
// script expects success (TestSchemaInputs).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/matrixx-dev/matrixx-tasks/pkg/schema"
)

// schemaLogEnv names the directory where recorded binaries leave one file
// per call.
const schemaLogEnv = "MATRIXX_SCHEMA_LOG"

// call is one recorded run of a binary.
type call struct {
	Binary string   `json:"binary"`
	Args   []string `json:"args"`
	Exit   int      `json:"exit"`
	Stdout string   `json:"stdout"`
}

// recorded runs main as binary name, and with $MATRIXX_SCHEMA_LOG set
// records its arguments, exit status and stdout there. stdin and stderr are
// the process's own, untouched.
func recorded(name string, main func([]string, io.Reader, io.Writer, io.Writer) int) func() {
	return func() {
		dir := os.Getenv(schemaLogEnv)
		if dir == "" {
			os.Exit(main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		}
		var out bytes.Buffer
		status := main(os.Args[1:], os.Stdin, io.MultiWriter(os.Stdout, &out), os.Stderr)
		if f, err := os.CreateTemp(dir, "call-*.json"); err == nil {
			_ = json.NewEncoder(f).Encode(call{name, os.Args[1:], status, out.String()})
			f.Close()
		}
		os.Exit(status)
	}
}

// recordCalls is part of every script's setup: the binaries record their
// answers in a directory outside $WORK, checked against the schemas when
// the script ends.
func recordCalls(env *testscript.Env) error {
	dir, err := os.MkdirTemp("", "matrixx-schema-log-")
	if err != nil {
		return err
	}
	env.Setenv(schemaLogEnv, dir)
	t := env.T()
	env.Defer(func() {
		defer os.RemoveAll(dir)
		for _, problem := range checkCalls(dir) {
			t.Log(problem)
			t.FailNow()
		}
	})
	return nil
}

// checkCalls validates the recorded answers and returns the problems.
func checkCalls(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "call-*.json"))
	var problems []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var c call
		if json.Unmarshal(data, &c) != nil {
			continue
		}
		doc, ok := outputDoc(c.Binary, c.Args)
		if !ok || strings.TrimSpace(c.Stdout) == "" {
			continue
		}
		docs := []string{c.Stdout}
		if doc.Name == "task-sync-export" && c.Exit != 2 || doc.Name == "task-feed" {
			docs = strings.Split(strings.TrimSuffix(c.Stdout, "\n"), "\n") // JSON Lines
		}
		for _, d := range docs {
			if err := validate(doc.Output, []byte(d)); err != nil {
				problems = append(problems, fmt.Sprintf("%s %q (exit %d) printed an answer that docs/schemas/%s.output.json refuses: %v\n%s",
					c.Binary, c.Args, c.Exit, doc.Name, err, d))
				break
			}
		}
	}
	return problems
}

// valueFlags are the flags whose value is the next argument.
var valueFlags = map[string]bool{"-C": true, "--dir": true, "--session": true, "--lock-timeout": true,
	"--offset": true, "--limit": true, "--format": true, "-s": true, "-d": true, "--subject": true,
	"--description": true, "--active-form": true, "--blocked-by": true, "--blocks": true, "--owner": true,
	"--priority": true, "--parent": true, "--repo-url": true, "--metadata": true, "--status": true,
	"--add-blocks": true, "--add-blocked-by": true, "--older-than": true}

// positional returns args without flags and their values.
func positional(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-"):
			if valueFlags[a] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

func has(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") && f != "--format" {
				return true
			}
		}
	}
	return false
}

// outputDoc names the schema of a call's answer; ok is false for calls
// that print no JSON document (help, version, plan read without --json,
// matrixx-hook).
func outputDoc(binary string, args []string) (schema.Doc, bool) {
	if has(args, "--help", "-h", "--version") {
		return schema.Doc{}, false
	}
	if has(args, "--where") {
		return schema.Find("where")
	}
	name := binary
	if binary == "matrixx-hook" {
		// Event modes only: install and uninstall print lines (--print a
		// settings file), notepad as a filter passes its input on.
		if pos := positional(args); len(pos) > 0 && pos[0] != "guard" && pos[0] != "continue" && pos[0] != "session-start" {
			return schema.Doc{}, false
		}
	}
	if binary == "task-sync" {
		// A sync, import and setup answer one document, export writes JSON
		// Lines (each line checked), merge-driver prints nothing.
		switch pos := positional(args); {
		case len(pos) == 0:
		case pos[0] == "merge-driver":
			return schema.Doc{}, false
		case pos[0] == "export" || pos[0] == "import" || pos[0] == "setup":
			name = "task-sync-" + pos[0]
		}
	}
	if binary == "plan" {
		pos := positional(args)
		if len(pos) == 0 {
			name = "plan-error"
		} else {
			name = "plan-" + pos[0]
		}
		if name == "plan-read" && !has(args, "--json") && !formatJSON(args) {
			return schema.Doc{}, false
		}
	}
	d, ok := schema.Find(name)
	if !ok && strings.HasPrefix(name, "plan-") {
		d, ok = schema.Find("plan-list") // an unknown subcommand: the envelope, which every output schema allows
	}
	return d, ok && d.Output != nil
}

func formatJSON(args []string) bool {
	for i, a := range args {
		if a == "--format=json" || a == "--format" && i+1 < len(args) && args[i+1] == "json" {
			return true
		}
	}
	return false
}

// validate checks one JSON document against s.
func validate(s *jsonschema.Schema, doc []byte) error {
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("resolving the schema: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON document")
	}
	return rs.Validate(v)
}

// TestSchemaInputs: every stdin document a script gives a binary from its
// archive, where the script expects the call to succeed, is one the input
// schema accepts.
func TestSchemaInputs(t *testing.T) {
	scripts, err := filepath.Glob("*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range scripts {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, f := range ar.Files {
			files[f.Name] = f.Data
		}
		stdin, dir := "", ""
		for n, line := range strings.Split(string(ar.Comment), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
				continue
			}
			switch fields[0] {
			case "cd":
				if len(fields) > 1 {
					dir = filepath.Join(dir, fields[1])
				}
				continue
			case "stdin":
				if len(fields) > 1 {
					stdin = fields[1]
				}
				continue
			case "exec":
			case "exitcode":
				stdin = "" // runs a command on it, maybe failing on purpose
				continue
			case "!", "?":
				if len(fields) > 1 && (fields[1] == "exec" || fields[1] == "exitcode") {
					stdin = "" // a call expected to fail: its input may be wrong on purpose
				}
				continue
			default:
				continue // stdin is for the next exec
			}
			name, given := stdin, stdin != ""
			stdin = ""
			if !given || len(fields) < 2 {
				continue
			}
			data, ok := files[filepath.Join(dir, name)]
			if !ok {
				data, ok = files[name]
			}
			if !ok {
				continue // written by the script itself
			}
			doc, ok := inputDoc(fields[1], fields[2:])
			if !ok {
				continue
			}
			checked++
			if err := validate(doc.Input, data); err != nil {
				t.Errorf("%s:%d: %s's stdin %s is refused by docs/schemas/%s.input.json: %v", path, n+1, fields[1], name, doc.Name, err)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d stdin documents found in the scripts: the extraction is broken", checked)
	}
	t.Logf("%d stdin documents checked", checked)
}

// inputDoc names the schema of a call's stdin document; ok is false when
// the call does not read one (flags or an id given, plan subcommands other
// than update).
func inputDoc(binary string, args []string) (schema.Doc, bool) {
	pos := positional(args)
	switch binary {
	case "task-create", "task-list", "task-cleanup":
		for _, a := range args {
			if strings.HasPrefix(a, "-") && !globalFlag(a) {
				return schema.Doc{}, false
			}
		}
	case "task-get", "task-update":
		if len(pos) > 0 {
			return schema.Doc{}, false
		}
	case "plan":
		if len(pos) == 0 || pos[0] != "update" {
			return schema.Doc{}, false
		}
		binary = "plan-update"
	default:
		return schema.Doc{}, false
	}
	d, ok := schema.Find(binary)
	return d, ok && d.Input != nil
}

func globalFlag(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	switch name {
	case "-C", "--dir", "--session", "--pretty", "--lock-timeout":
		return true
	}
	return false
}
