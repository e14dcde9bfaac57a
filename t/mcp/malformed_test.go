package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
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

// TestOddRequestIDs: a request whose id is a number the server cannot echo
// as sent (a fraction, an exponent, past 2^53 either way: the SDK reads it
// as a float64 and answers 9223372036854775807 with -9223372036854775808,
// 9007199254740993 with 9007199254740992) gets an invalid request
// error (-32600) carrying that id byte for byte, the other requests of the
// input their answers (a batch's are refused under 2025-06-18, see
// TestBatches), and the server exits 0 soon after its input ends
// (it used to answer another id and then wait a minute for the response it
// counted on). Ids spelled oddly but echoable (-0, an escaped string) are
// answered and do not hold up the exit either.
func TestOddRequestIDs(t *testing.T) {
	p := newProject(t)
	odd := []string{"1.5", "1e3", "1e308", "99999999999999999999", "-1.0", "9223372036854775807", "9007199254740993", "-9007199254740993"}
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for _, id := range odd {
		in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}` + "\n")
	}
	in.WriteString(`[{"jsonrpc":"2.0","id":2.5,"method":"tools/list"},{"jsonrpc":"2.0","id":11,"method":"tools/list"}]` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":-0,"method":"tools/list"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":"\u0061","method":"tools/list"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/list"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":-9007199254740992,"method":"tools/list"}` + "\n")
	start := time.Now()
	got := serveLines(t, p, strings.Split(strings.TrimSuffix(in.String(), "\n"), "\n")...)
	// The drain waits a minute for a response it counted on; half of that
	// tells a missing response from a slow machine.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the server took %v to exit after its input ended", took)
	}
	rejected := map[string]bool{}
	answered := map[string]bool{}
	for id, answers := range got {
		for _, m := range answers {
			switch {
			case m.Error != nil && m.Error.Code == -32600:
				rejected[id] = true
			case m.Result != nil:
				answered[id] = true
			default:
				t.Errorf("unexpected answer with id %s", id)
			}
		}
	}
	out := fmt.Sprint(got)
	// The batch is refused whole under 2025-06-18 (TestBatches): 11 too.
	for _, id := range append(odd, "2.5", "11") {
		if !rejected[id] {
			t.Errorf("no invalid request error with id %s\n%s", id, out)
		}
	}
	for _, id := range []string{"0", `"a"`, "9", "9007199254740992", "-9007199254740992"} {
		if !answered[id] {
			t.Errorf("no answer with id %s\n%s", id, out)
		}
	}
}

// TestReusedRunningID: a request reusing the id of a call still running
// (sent before its answer came) used to be dropped by the SDK without an
// answer. Now every request gets exactly one answer: its result, or -32600
// "still running" when the filter saw the id in use. The reused ids here
// come in the same write as the call, so most are refused; which ones
// depends on how fast the call is answered, never whether each is
// answered.
func TestReusedRunningID(t *testing.T) {
	p := newProject(t)
	lines := []string{initializeLine("2025-06-18"), initializedLine, createLine("1", "running")}
	for range 5 {
		lines = append(lines, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	got := serveLines(t, p, lines...)
	if len(got["1"]) != 6 {
		t.Errorf("id 1: %d answers, want 6 (one per request)", len(got["1"]))
	}
	for _, a := range got["1"] {
		if a.Result == nil && (a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "still running")) {
			t.Errorf("id 1: %+v, want a result or -32600 still running", a)
		}
	}
	if !only(got["2"], true) || !only(got["0"], true) {
		t.Errorf("ids 0 and 2: %+v %+v, want one result each", got["0"], got["2"])
	}
	if n := len(taskFiles(t, p.root)); n != 1 {
		t.Errorf("%d tasks, want 1", n)
	}
}
