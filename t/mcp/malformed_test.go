package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMalformedLineParseError: a line that is not JSON gets a JSON-RPC
// parse error (-32700, id null), a JSON line that is no JSON-RPC message an
// invalid request error (-32600); the server keeps serving, every request
// read gets its answer (also when initialize and the garbage arrive in one
// write), and it exits 0 at end of input.
func TestMalformedLineParseError(t *testing.T) {
	p := newProject(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n")
	in.WriteString("garbage\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task_create","arguments":{"subject":"one"}}}` + "\n")
	in.WriteString("{\"half\":\n")
	in.WriteString(`{"id":7,"hello":"world"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task_create","arguments":{"subject":"two"}}}` + "\n")
	in.WriteString("garbage at the end")
	c := p.command(p.root, "matrixx-mcp")
	c.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
	results := map[float64]bool{}
	var parseErrors, invalid int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     any             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON from the server: %s", line)
		}
		switch {
		case m.Error != nil && m.Error.Code == -32700 && m.ID == nil:
			parseErrors++
		case m.Error != nil && m.Error.Code == -32600 && m.ID == float64(7):
			invalid++
		case m.Result != nil:
			results[m.ID.(float64)] = true
		default:
			t.Errorf("unexpected answer %s", line)
		}
	}
	if parseErrors != 3 || invalid != 1 {
		t.Errorf("%d parse errors (want 3), %d invalid requests (want 1)\n%s", parseErrors, invalid, out)
	}
	if !results[0] || !results[1] || !results[2] {
		t.Errorf("answers to %v, want 0, 1 and 2\n%s", results, out)
	}
	if n := len(taskFiles(t, p.root)); n != 2 {
		t.Errorf("%d tasks, want 2", n)
	}
}
