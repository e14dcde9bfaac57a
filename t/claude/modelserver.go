// Package claude runs the real Claude Code CLI against a scripted model
// server of our own (ModelServer, on 127.0.0.1 only), in temporary projects
// set up by `matrixx-hook install`, and asserts on what reaches disk and on
// what the host sends back to the model (docs/hooks.md, "Tested through the
// real Claude Code").
package claude

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Request is one Messages API request as the host sent it (the fields the
// scenarios read; the rest is kept raw in Raw).
type Request struct {
	Path     string         `json:"-"`
	Model    string         `json:"model"`
	Stream   bool           `json:"stream"`
	System   jsontext.Value `json:"system,omitempty"`
	Messages []Message      `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools,omitempty"`
	Raw []byte `json:"-"`
}

// Message is one message of a request: content is a string or a list of
// blocks; Blocks holds it as blocks either way.
type Message struct {
	Role    string         `json:"role"`
	Content jsontext.Value `json:"content"`
}

// Block is one content block of a request message.
type Block struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name,omitempty"`
	Input     jsontext.Value `json:"input,omitempty"`
	ToolUseID string         `json:"tool_use_id,omitempty"`
	IsError   bool           `json:"is_error,omitempty"`
	// Content of a tool_result: a string or a list of text blocks.
	Content jsontext.Value `json:"content,omitempty"`
}

// Blocks returns the message's content as blocks (a string content is one
// text block).
func (m Message) Blocks() []Block {
	c := bytes.TrimSpace(m.Content)
	if len(c) > 0 && c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(c, &bs)
	return bs
}

// ResultText is a tool_result block's content as plain text.
func (b Block) ResultText() string {
	c := bytes.TrimSpace(b.Content)
	if len(c) == 0 {
		return ""
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return s
	}
	var parts []Block
	_ = json.Unmarshal(c, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

// ToolResults returns the tool_result blocks of the request's last message.
func (r *Request) ToolResults() []Block {
	if len(r.Messages) == 0 {
		return nil
	}
	var out []Block
	for _, b := range r.Messages[len(r.Messages)-1].Blocks() {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// Text returns every text the request carries (system prompt and every
// message's text blocks and tool results), for "did the host pass this on"
// checks.
func (r *Request) Text() string {
	var b strings.Builder
	b.Write(r.System)
	for _, m := range r.Messages {
		for _, bl := range m.Blocks() {
			b.WriteString("\n")
			b.WriteString(bl.Text)
			b.WriteString(bl.ResultText())
		}
	}
	return b.String()
}

// LastUserText is the text of the last message's text blocks.
func (r *Request) LastUserText() string {
	if len(r.Messages) == 0 {
		return ""
	}
	var out []string
	for _, b := range r.Messages[len(r.Messages)-1].Blocks() {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return strings.Join(out, "\n")
}

// Reply is what the scripted model answers: text, then tool calls (each
// becomes a tool_use block; stop_reason is tool_use when there are any).
type Reply struct {
	Text  string
	Tools []ToolCall
	// Build, when set, makes the reply from the request instead (a step
	// that needs an id the host sent back earlier).
	Build func(req *Request) Reply
}

// Then is a step built from the request when it comes.
func Then(build func(req *Request) Reply) Reply { return Reply{Build: build} }

// ToolCall is one tool_use block of a reply: the tool's name and its
// input, any JSON-marshalable value.
type ToolCall struct {
	Name  string
	Input any
}

// Say is a reply of text only.
func Say(text string) Reply { return Reply{Text: text} }

// Call is a reply calling one tool.
func Call(name string, input any) Reply { return Reply{Tools: []ToolCall{{name, input}}} }

// Bash is a reply running one Bash command.
func Bash(command string) Reply {
	return Call("Bash", map[string]any{"command": command, "description": "run a command"})
}

// Script decides each reply from the request. Steps is the usual one.
type Script func(req *Request) Reply

// Steps answers the n-th main-loop request with the n-th reply and "Done."
// once they run out. Requests without tools (the host's own side calls:
// compaction summaries, titles) get a summary text and do not advance.
func Steps(replies ...Reply) Script {
	var mu sync.Mutex
	n := 0
	return func(req *Request) Reply {
		if len(req.Tools) == 0 {
			return Say("Summary: the session created tasks and ran commands.")
		}
		mu.Lock()
		defer mu.Unlock()
		if n >= len(replies) {
			return Say("Done.")
		}
		n++
		if r := replies[n-1]; r.Build != nil {
			return r.Build(req)
		}
		return replies[n-1]
	}
}

// ModelServer is a scripted Anthropic Messages API server on 127.0.0.1:
// POST /v1/messages answers the script's reply, streamed as server-sent
// events (message_start, content_block_start/delta/stop with text_delta or
// input_json_delta, message_delta with stop_reason, message_stop) or as one
// JSON message when the request does not stream. Every request is kept.
type ModelServer struct {
	URL string

	mu       sync.Mutex
	script   Script
	requests []*Request
	other    []string
	srv      *http.Server
	ln       net.Listener
	ids      int
}

// NewModelServer listens on a free port of 127.0.0.1.
func NewModelServer() (*ModelServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &ModelServer{ln: ln, URL: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *ModelServer) Close() error { return s.srv.Close() }

// SetScript replaces the script (and forgets the requests seen so far).
func (s *ModelServer) SetScript(sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.requests, s.other = sc, nil, nil
}

// Requests returns the Messages requests received since SetScript.
func (s *ModelServer) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Other returns the other requests received ("METHOD path").
func (s *ModelServer) Other() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.other...)
}

func (s *ModelServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		s.mu.Lock()
		s.other = append(s.other, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}`, http.StatusNotFound)
		return
	}
	req := &Request{Path: r.URL.RequestURI(), Raw: body}
	if err := json.Unmarshal(body, req, json.RejectUnknownMembers(false)); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	script := s.script
	s.ids++
	id := s.ids
	s.mu.Unlock()
	reply := Say("Done.")
	if script != nil {
		reply = script(req)
	}
	blocks, stop := s.blocks(reply, id)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		msg := map[string]any{"id": fmt.Sprintf("msg_%d", id), "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 10}}
		_ = json.MarshalWrite(w, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", id), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			// Two deltas, as the real API splits the JSON.
			half := len(in) / 2
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in[:half])}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in[half:])}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{"type": "message_stop"})
}

func (s *ModelServer) blocks(r Reply, id int) ([]map[string]any, string) {
	var out []map[string]any
	if r.Text != "" || len(r.Tools) == 0 {
		text := r.Text
		if text == "" {
			text = "Done."
		}
		out = append(out, map[string]any{"type": "text", "text": text})
	}
	for i, t := range r.Tools {
		in := t.Input
		if in == nil {
			in = map[string]any{}
		}
		out = append(out, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", id, i), "name": t.Name, "input": in})
	}
	if len(r.Tools) > 0 {
		return out, "tool_use"
	}
	return out, "end_turn"
}
