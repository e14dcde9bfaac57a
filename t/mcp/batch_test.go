package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// batchAnswer is one answer of the server, alone on its line or in an
// array.
type batchAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serveLines runs matrixx-mcp on the given input lines, asserts it exits
// 0, and returns its answers by id, in the order written.
func serveLines(t *testing.T, p *project, lines ...string) map[string][]batchAnswer {
	t.Helper()
	c := p.command(p.root, "matrixx-mcp")
	c.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
	}
	byID := map[string][]batchAnswer{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var all []batchAnswer
		if strings.HasPrefix(line, "[") {
			if err := json.Unmarshal([]byte(line), &all); err != nil {
				t.Fatalf("not JSON from the server: %s", line)
			}
		} else {
			var a batchAnswer
			if err := json.Unmarshal([]byte(line), &a); err != nil {
				t.Fatalf("not JSON from the server: %s", line)
			}
			all = []batchAnswer{a}
		}
		for _, a := range all {
			byID[string(a.ID)] = append(byID[string(a.ID)], a)
		}
	}
	return byID
}

func initializeLine(version string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`
}

const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func createLine(id, subject string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"task_create","arguments":{"subject":"` + subject + `"}}}`
}

// TestBatches: MCP has no JSON-RPC batches from protocol 2025-06-18 on, and
// the SDK ends the session when it reads one there (it depended on how far
// initialize had got whether a batch killed the server). Under such a
// version every request of a batch gets -32600 with its id and nothing of
// it runs; under an older version a batch is served, except a request
// reusing an id of an earlier batch request, which gets -32600. Either
// way the session goes on and the server exits 0.
func TestBatches(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", "1999-01-01"} {
		t.Run("refused under "+version, func(t *testing.T) {
			p := newProject(t)
			got := serveLines(t, p,
				initializeLine(version),
				initializedLine,
				`[`+createLine("1", "in a batch")+`,{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":"x","method":"tools/list"}]`,
				createLine("2", "after the batch"),
			)
			for _, id := range []string{"1", `"x"`} {
				if !only(got[id], false, "batches are not supported") {
					t.Errorf("id %s: %+v, want the batch refused (-32600)", id, got[id])
				}
			}
			for _, id := range []string{"0", "2"} {
				if !only(got[id], true) {
					t.Errorf("id %s: %+v, want one result", id, got[id])
				}
			}
			if n := len(taskFiles(t, p.root)); n != 1 {
				t.Errorf("%d tasks, want 1 (the batch's task_create must not run)", n)
			}
		})
	}
	t.Run("served under 2025-03-26", func(t *testing.T) {
		p := newProject(t)
		got := serveLines(t, p,
			initializeLine("2025-03-26"),
			initializedLine,
			`[`+createLine("1", "first")+`,{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
			`[`+createLine("1", "reused id")+`,{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`,
			`[{"jsonrpc":"2.0","id":"4","method":"tools/list"},`+createLine(`"4"`, "twice in one batch")+`]`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
		)
		for _, id := range []string{"0", "2", "3", "5"} {
			if !only(got[id], true) {
				t.Errorf("id %s: %+v, want one result", id, got[id])
			}
		}
		// The first 1 and the first "4" run; their repeats get -32600.
		for _, id := range []string{"1", `"4"`} {
			if !only(got[id], true, "already used by a request of a batch") {
				t.Errorf("id %s: %+v, want a result and a reuse error", id, got[id])
			}
		}
		if n := len(taskFiles(t, p.root)); n != 1 {
			t.Errorf("%d tasks, want 1 (only the first batch's task_create)", n)
		}
	})
}

// only reports whether answers are exactly: one result (when result) and
// one -32600 error containing each of errs.
func only(answers []batchAnswer, result bool, errs ...string) bool {
	var results int
	left := append([]string(nil), errs...)
	for _, a := range answers {
		switch {
		case a.Result != nil:
			results++
		case a.Error != nil && a.Error.Code == -32600:
			i := -1
			for j, e := range left {
				if strings.Contains(a.Error.Message, e) {
					i = j
				}
			}
			if i < 0 {
				return false
			}
			left = append(left[:i], left[i+1:]...)
		default:
			return false
		}
	}
	want := 0
	if result {
		want = 1
	}
	return results == want && len(left) == 0 && len(answers) == want+len(errs)
}

// TestBatchElements: under 2024-11-05 each element of a batch is judged
// alone. A batch of notifications no longer ends the session (the SDK
// tracked them as requests sharing the id nil: "duplicate message ID"), a
// request batched with a notification gets its answer (the SDK waited for
// the notification's response, so the task was created and never
// acknowledged), and an invalid element gets -32600 (id null) while the
// valid request beside it is served. Every request is answered once and
// the server exits 0.
func TestBatchElements(t *testing.T) {
	for _, c := range []struct {
		name    string
		lines   []string // after initialize
		ids     []string // answered with a result, once each
		invalid bool     // and one -32600 with id null
		tasks   int
	}{
		{"notifications", []string{`[` + initializedLine + `,{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`}, nil, false, 0},
		{"a request and a notification", []string{initializedLine, `[` + createLine("1", "beside a notification") + `,{"jsonrpc":"2.0","method":"notifications/x"}]`}, []string{"1"}, false, 1},
		{"an invalid element", []string{initializedLine, `[{"jsonrpc":"2.0","id":1,"method":"ping"},42]`}, []string{"1"}, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t)
			lines := append([]string{initializeLine("2024-11-05")}, c.lines...)
			got := serveLines(t, p, append(lines, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)...)
			ids := append([]string{"0", "2"}, c.ids...)
			for _, id := range ids {
				if !only(got[id], true) {
					t.Errorf("id %s: %d answers, want one result", id, len(got[id]))
				}
			}
			want := len(ids)
			if c.invalid {
				want++
				if !only(got["null"], false, "batch element is not a JSON-RPC 2.0 message") {
					t.Errorf("id null: %+v, want one -32600 for the element 42", got["null"])
				}
			}
			if len(got) != want {
				t.Errorf("answers to %d ids, want %d", len(got), want)
			}
			if n := len(taskFiles(t, p.root)); n != c.tasks {
				t.Errorf("%d tasks, want %d", n, c.tasks)
			}
		})
	}
}

// TestBatchAfterRefusedInitialize: an initialize the SDK refuses
// ("capabilities" an array) negotiates nothing; the next, accepted one
// decides whether batches are served. The server used to take the refused
// one's version: a batch after a good 2025-06-18 initialize reached the
// SDK and ended the session (exit 1), or a batch under a good 2024-11-05
// one was refused.
func TestBatchAfterRefusedInitialize(t *testing.T) {
	for _, v := range [][2]string{{"2024-11-05", "2025-06-18"}, {"2025-06-18", "2024-11-05"}} {
		t.Run("then "+v[1], func(t *testing.T) {
			p := newProject(t)
			got := serveLines(t, p,
				`{"jsonrpc":"2.0","id":"bad","method":"initialize","params":{"protocolVersion":"`+v[0]+`","capabilities":[],"clientInfo":{"name":"sh","version":"1"}}}`,
				initializeLine(v[1]),
				initializedLine,
				`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
				`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			)
			if a := got[`"bad"`]; len(a) != 1 || a[0].Error == nil {
				t.Errorf(`id "bad": %+v, want one error`, a)
			}
			for _, id := range []string{"0", "2"} {
				if !only(got[id], true) {
					t.Errorf("id %s: %d answers, want one result", id, len(got[id]))
				}
			}
			if served := v[1] < "2025-06-18"; served && !only(got["1"], true) {
				t.Errorf("id 1: %+v, want the batch served under %s", got["1"], v[1])
			} else if !served && !only(got["1"], false, "batches are not supported") {
				t.Errorf("id 1: %+v, want the batch refused under %s", got["1"], v[1])
			}
		})
	}
}
