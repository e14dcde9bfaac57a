package mcpserver

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestLineFilterLongLine: a line over the SDK's 16 MiB limit is answered
// with a parse error and dropped, and the next line is passed on.
func TestLineFilterLongLine(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	in := strings.Repeat("x", maxLine+100) + "\n" + good + "\n"
	var answers bytes.Buffer
	f := &lineFilter{r: strings.NewReader(in), w: &lockedWriter{w: &answers}}
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != good+"\n" {
		t.Errorf("passed on %d bytes %.80q, want the good line", len(out), out)
	}
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is longer than 16 MiB"}}` + "\n"; answers.String() != want {
		t.Errorf("answers %q, want %q", answers.String(), want)
	}
}

// TestLineFilterKinds: valid messages and batches pass; not JSON is
// -32700 with id null; JSON that is no JSON-RPC message is -32600 with its
// id when it has one.
func TestLineFilterKinds(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n" +
		"\n" +
		"[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}]\n" +
		"nope\n" +
		"{\"id\":\"q\"}\n" +
		"[]\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}\n"
	var answers bytes.Buffer
	f := &lineFilter{r: strings.NewReader(in), w: &lockedWriter{w: &answers}}
	out, _ := io.ReadAll(f)
	if want := "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}]\n"; string(out) != want {
		t.Errorf("passed on %q, want %q", out, want)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"q","error":{"code":-32600,"message":"Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"}}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"}}` + "\n" +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"}}` + "\n"
	if answers.String() != want {
		t.Errorf("answers\n%s\nwant\n%s", answers.String(), want)
	}
}
