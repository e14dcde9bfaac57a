package t

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/rogpeppe/go-internal/testscript"
)

// hookCommands are the script commands of the hook part (owned by that part).
func hookCommands() map[string]scriptCmd {
	return map[string]scriptCmd{
		"expand":   cmdExpand,
		"bigwrite": cmdBigWrite,
	}
}

// expand IN OUT: copy IN to OUT with $VAR and ${VAR} replaced by the
// script's environment (events need absolute paths under $WORK).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand IN OUT")
	}
	out := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

// bigwrite FILE MB PATH: write a PreToolUse Write event for PATH whose
// content is MB mebibytes (with escapes and multi-byte characters in it),
// streamed to FILE without building it in memory. tool_input.file_path
// comes after the content, the worst case for a streaming decoder.
func cmdBigWrite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: bigwrite FILE MB PATH")
	}
	mb, err := strconv.Atoi(args[1])
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	path, err := json.Marshal(args[2])
	ts.Check(err)
	cwd, err := json.Marshal(ts.Getenv("WORK"))
	ts.Check(err)
	fmt.Fprintf(w, `{"session_id":"abc123-session","transcript_path":"/tmp/t.jsonl","cwd":%s,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"toolu_big","tool_input":{"content":"`, cwd)
	line := strings.Repeat(`x`, 50) + `\"quoted\" \\ back \u00e9 é ✓ \n`
	for written := 0; written < mb<<20; written += len(line) {
		_, _ = w.WriteString(line)
	}
	fmt.Fprintf(w, `","file_path":%s}}`, path)
	ts.Check(w.Flush())
}
