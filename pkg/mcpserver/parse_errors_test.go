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
	f := &lineFilter{r: strings.NewReader(in), w: &lockedWriter{w: &answers}, d: newDrain()}
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
	f := &lineFilter{r: strings.NewReader(in), w: &lockedWriter{w: &answers}, d: newDrain()}
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

// TestLineFilterBatches: after an initialize that negotiates 2025-06-18 or
// later (a newer or unknown version negotiates the newest one), a batch's
// requests are answered -32600 and nothing of it is passed on; under an
// older version a batch's requests pass as a batch, less the requests
// reusing an id an earlier batch request used ("1" and 1 are different ids,
// -0 is 0), and its notifications each on its own line.
func TestLineFilterBatches(t *testing.T) {
	init := func(v string) string {
		return `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + v + `"}}` + "\n"
	}
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"1","method":"ping"}]` + "\n"
	served := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"1","method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/x"}` + "\n"
	refused := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"` + batchRefused + `"}}` + "\n"
	}
	reused := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"` + batchIDReused + `"}}` + "\n"
	}
	for _, c := range []struct {
		name, in, out, answers string
	}{
		{"before initialize", batch, served, ""},
		{"2025-06-18", init("2025-06-18") + batch, init("2025-06-18"), refused("1") + refused(`"1"`)},
		{"unknown version", init("2099-01-01") + batch, init("2099-01-01"), refused("1") + refused(`"1"`)},
		{"no version", init("") + batch, init(""), refused("1") + refused(`"1"`)},
		{"2025-03-26", init("2025-03-26") + batch, init("2025-03-26") + served, ""},
		{
			"2025-03-26 reused ids",
			init("2025-03-26") + batch + `[{"jsonrpc":"2.0","id":-0,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":0,"method":"ping"}]` + "\n",
			init("2025-03-26") + served + `[{"jsonrpc":"2.0","id":-0,"method":"ping"}]` + "\n",
			reused("1") + reused("0"),
		},
		{
			"initialize in a batch",
			`[` + strings.TrimSpace(init("2025-11-25")) + `]` + "\n" + batch,
			`[` + strings.TrimSpace(init("2025-11-25")) + `]` + "\n",
			refused("1") + refused(`"1"`),
		},
	} {
		t.Run(c.name, func(t *testing.T) { wantFiltered(t, c.in, c.out, c.answers) })
	}
}

// TestLineFilterBatchElements: each element of a batch is judged alone. One
// that is no JSON-RPC message gets -32600 with its id (or null), the valid
// ones are served; notifications and responses leave the batch (the SDK
// would track a notification as a request without an id: two end the
// session, one holds the batch's answers forever) and pass each on its own
// line, before the batch when they come before its first request; a batch
// left without a request is no batch.
func TestLineFilterBatchElements(t *testing.T) {
	const (
		ping  = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		ping2 = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		note  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		note2 = `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
		resp  = `{"jsonrpc":"2.0","id":"s1","result":{}}`
	)
	invalid := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"` + elementInvalid + `"}}` + "\n"
	}
	deep := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}}`
	for _, c := range []struct {
		name, in, out, answers string
	}{
		{"notifications only", `[` + note + `,` + note2 + `]`, note + "\n" + note2 + "\n", ""},
		{"one notification", `[` + note + `]`, note + "\n", ""},
		{"a response", `[` + resp + `,` + ping + `]`, resp + "\n[" + ping + "]\n", ""},
		{
			"mixed, in order",
			`[` + note + `,` + ping + `,` + note2 + `,` + ping2 + `]`,
			note + "\n[" + ping + `,` + ping2 + "]\n" + note2 + "\n", "",
		},
		{"invalid elements", `[` + ping + `,42,{"id":"q"},{"jsonrpc":"1.0","id":7,"method":"ping"}]`, `[` + ping + "]\n", invalid("null") + invalid(`"q"`) + invalid("7")},
		{"only invalid elements", `[42,{}]`, "", invalid("null") + invalid("null")},
		{"too deep for a batch", `[` + deep + `,` + ping + `]`, `[` + ping + "]\n", invalid("3")},
	} {
		t.Run(c.name, func(t *testing.T) { wantFiltered(t, c.in+"\n", c.out, c.answers) })
	}
}

// TestLineFilterIDRange: a request id the SDK echoes as sent (an integer
// from -2^53 to 2^53) is passed on; past that (the SDK goes through a
// float64), with a fraction or an exponent, it gets -32600 carrying the id
// byte for byte, alone or in a batch. A response's id is not echoed and
// passes.
func TestLineFilterIDRange(t *testing.T) {
	ok := []string{"9007199254740992", "-9007199254740992", "-0", `"9007199254740993"`}
	bad := []string{"9007199254740993", "-9007199254740993", "9007199254740994", "9223372036854775807", "-9223372036854775808", "1e3", "1.0"}
	var in, want, wantAnswers strings.Builder
	for _, id := range ok {
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n"
		in.WriteString(line)
		want.WriteString(line)
	}
	for _, id := range bad {
		in.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` + "\n")
		wantAnswers.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"` + badIDMessage + `"}}` + "\n")
	}
	in.WriteString(`[{"jsonrpc":"2.0","id":18014398509481984,"method":"ping"},{"jsonrpc":"2.0","id":-1,"method":"ping"}]` + "\n")
	want.WriteString(`[{"jsonrpc":"2.0","id":-1,"method":"ping"}]` + "\n")
	wantAnswers.WriteString(`{"jsonrpc":"2.0","id":18014398509481984,"error":{"code":-32600,"message":"` + badIDMessage + `"}}` + "\n")
	resp := `{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}` + "\n"
	in.WriteString(resp)
	want.WriteString(resp)
	var answers bytes.Buffer
	f := &lineFilter{r: strings.NewReader(in.String()), w: &lockedWriter{w: &answers}, d: newDrain()}
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want.String() {
		t.Errorf("passed on\n%s\nwant\n%s", out, want.String())
	}
	if answers.String() != wantAnswers.String() {
		t.Errorf("answers\n%s\nwant\n%s", answers.String(), wantAnswers.String())
	}
}

// TestLineFilterInitialize: only an initialize the SDK accepts decides
// whether batches are served. One it refuses (no params, params null,
// "capabilities" an array, a number for a version, no id, a _meta naming
// the protocol without initialize) negotiates nothing, and the next one
// decides. Params are decoded as the SDK decodes them: "ProtocolVersion"
// is not "protocolVersion", so that initialize negotiates the newest
// version (batches refused).
func TestLineFilterInitialize(t *testing.T) {
	const batch = `[{"jsonrpc":"2.0","id":9,"method":"ping"}]` + "\n"
	refused := `{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"` + batchRefused + `"}}` + "\n"
	init := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize"` + params + `}` + "\n"
	}
	for _, c := range []struct {
		name, first string
	}{
		{"no params", init("0", ``)},
		{"params null", init("0", `,"params":null`)},
		{"capabilities an array", init("0", `,"params":{"protocolVersion":"%s","capabilities":[]}`)},
		{"version a number", init("0", `,"params":{"protocolVersion":20250618}`)},
		{"clientInfo a string", init("0", `,"params":{"protocolVersion":"%s","clientInfo":"x"}`)},
		{"id null", init("null", `,"params":{"protocolVersion":"%s"}`)},
		{"new protocol _meta", init("0", `,"params":{"protocolVersion":"%s","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)},
	} {
		// The refused initialize names the other version than the one
		// that counts: either way round, the second one decides.
		for _, v := range [][2]string{{"2024-11-05", "2025-06-18"}, {"2025-06-18", "2024-11-05"}} {
			t.Run(c.name+" then "+v[1], func(t *testing.T) {
				first := strings.ReplaceAll(c.first, "%s", v[0])
				second := init("1", `,"params":{"protocolVersion":"`+v[1]+`","capabilities":{}}`)
				var answers bytes.Buffer
				f := &lineFilter{r: strings.NewReader(first + second + batch), w: &lockedWriter{w: &answers}, d: newDrain()}
				out, err := io.ReadAll(f)
				if err != nil {
					t.Fatal(err)
				}
				wantOut, wantAnswers := first+second+batch, ""
				if v[1] == "2025-06-18" {
					wantOut, wantAnswers = first+second, refused
				}
				if string(out) != wantOut || answers.String() != wantAnswers {
					t.Errorf("passed on\n%s\nanswered\n%s\nwant\n%s\nand\n%s", out, answers.String(), wantOut, wantAnswers)
				}
			})
		}
	}
	t.Run("field names are case-sensitive", func(t *testing.T) {
		in := init("0", `,"params":{"ProtocolVersion":"2025-03-26"}`) + batch
		var answers bytes.Buffer
		f := &lineFilter{r: strings.NewReader(in), w: &lockedWriter{w: &answers}, d: newDrain()}
		if _, err := io.ReadAll(f); err != nil {
			t.Fatal(err)
		}
		if answers.String() != refused {
			t.Errorf("answers %q, want the batch refused (the SDK negotiates the newest version)", answers.String())
		}
	})
}

// TestLineFilterRunningIDs: a request reusing the id of a call passed on
// and not answered yet gets -32600 (the SDK would drop it without an
// answer), also when both came in one read and also inside a batch; once
// the SDK has written the call's response (through drainWriter) the id is
// free again. The filter's own error answers free nothing, and a
// notification or a response with that id is no call.
func TestLineFilterRunningIDs(t *testing.T) {
	var answers, sdkOut bytes.Buffer
	d := newDrain()
	f := &lineFilter{w: &lockedWriter{w: &answers}, d: d}
	running := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"` + idRunning + `"}}` + "\n"
	}
	call := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	step := func(in, wantOut, wantAnswers string) {
		t.Helper()
		answers.Reset()
		f.r = strings.NewReader(in)
		f.err = nil
		out, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != wantOut || answers.String() != wantAnswers {
			t.Errorf("in\n%s\npassed on\n%s\nanswered\n%s\nwant\n%s\nand\n%s", in, out, answers.String(), wantOut, wantAnswers)
		}
	}
	// One read: the second 1 (and -0, which is 0) is refused.
	step(call("1")+"\n"+call("1")+"\n"+call("0")+"\n"+call("-0")+"\n",
		call("1")+"\n"+call("0")+"\n", running("1")+running("-0"))
	// A batch: its 1 is refused, its 2 runs from then on.
	step("["+call("1")+","+call("2")+"]\n"+call("2")+"\n",
		"["+call("2")+"]\n", running("1")+running("2"))
	// Notifications and responses carry no call.
	step(`{"jsonrpc":"2.0","id":"s","result":{}}`+"\n", `{"jsonrpc":"2.0","id":"s","result":{}}`+"\n", "")
	// The SDK answers 1 (and the array of the batch, 2): both are free.
	w := drainWriter{d, &sdkOut}
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `[{"jsonrpc":"2.0","id":2,"result":{}}]` + "\n")); err != nil {
		t.Fatal(err)
	}
	step(call("1")+"\n"+call("2")+"\n"+call("0")+"\n", call("1")+"\n"+call("2")+"\n", running("0"))
}

// wantFiltered runs a fresh filter over in and checks what it passes on to
// the SDK and what it answers itself.
func wantFiltered(t *testing.T, in, out, answers string) {
	t.Helper()
	var got bytes.Buffer
	f := &lineFilter{r: strings.NewReader(in), w: &lockedWriter{w: &got}, d: newDrain()}
	passed, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(passed) != out {
		t.Errorf("passed on\n%s\nwant\n%s", passed, out)
	}
	if got.String() != answers {
		t.Errorf("answers\n%s\nwant\n%s", got.String(), answers)
	}
}
