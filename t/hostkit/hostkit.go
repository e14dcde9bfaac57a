// Package hostkit is what the real-client tests (t/codex, t/gemini,
// t/opencode) share: finding the installed agent CLI (.cache/hosts,
// installed by .ci/install-hosts.sh), building and running our binaries,
// the earlier task and the hook install each session starts from, and
// scripted model servers on 127.0.0.1 that answer each model request with
// the next step of a script and keep every request, so a test can check
// what reached the model.
package hostkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// RepoRoot is the module root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// CLI returns the path of an agent CLI installed in .cache/hosts. When it
// is missing the test fails under CI=true and is skipped elsewhere, with a
// line saying how to install it.
func CLI(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(), ".cache", "hosts", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("%s is not installed in .cache/hosts: run .ci/install-hosts.sh (npm, node >= 20)", name)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// Build builds the toolkit's binaries into dir (go build ./cmd/...).
func Build(dir string) error {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	cmd := exec.Command(gobin, "build", "-buildvcs=false", "-o", dir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// Reply is one step of a script: a tool call (Tool with Args, or for
// Codex's freeform tools Input), or a text answer.
type Reply struct {
	Tool  string
	Args  map[string]any
	Input string
	Text  string
}

// Call is a tool call step with arguments.
func Call(tool string, args map[string]any) Reply { return Reply{Tool: tool, Args: args} }

// Text is a text answer step.
func Text(s string) Reply { return Reply{Text: s} }

// Server is a scripted model server. Request i is answered with step i of
// the script; past the end with the text "Done.".
type Server struct {
	URL string

	mu       sync.Mutex
	script   []Reply
	requests []string
	srv      *http.Server
}

// Requests returns the bodies of the model requests so far, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Server) next(body []byte) (int, Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := len(s.requests)
	s.requests = append(s.requests, string(body))
	if i < len(s.script) {
		return i, s.script[i]
	}
	return i, Text("Done.")
}

func start(t testing.TB, script []Reply, h func(s *Server) http.Handler) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script}
	s.srv = &http.Server{Handler: h(s)}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// Codex starts a scripted server speaking the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events), as Codex CLI's
// model provider with wire_api = "responses" reads it: a tool step is a
// function_call (Args as its JSON arguments) or, with Input, a
// custom_tool_call (apply_patch's patch); a text step an assistant
// message.
func Codex(t testing.TB, script []Reply) *Server {
	return start(t, script, func(s *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
				http.NotFound(w, r)
				return
			}
			i, rep := s.next(body)
			id := fmt.Sprintf("resp_%d", i)
			var item map[string]any
			switch {
			case rep.Tool != "" && rep.Args == nil:
				item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d", i), "call_id": fmt.Sprintf("call_%d", i), "name": rep.Tool, "input": rep.Input, "status": "completed"}
			case rep.Tool != "":
				args, _ := json.Marshal(rep.Args)
				item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", i), "call_id": fmt.Sprintf("call_%d", i), "name": rep.Tool, "arguments": string(args)}
			default:
				item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", i), "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": rep.Text}}}
			}
			w.Header().Set("Content-Type", "text/event-stream")
			var b bytes.Buffer
			sse := func(typ string, data map[string]any) {
				data["type"] = typ
				j, _ := json.Marshal(data)
				fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, j)
			}
			sse("response.created", map[string]any{"response": map[string]any{"id": id}})
			sse("response.output_item.done", map[string]any{"item": item})
			sse("response.completed", map[string]any{"response": map[string]any{"id": id,
				"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
			w.Write(b.Bytes())
		})
	})
}

// Gemini starts a scripted server speaking the Gemini API as Gemini CLI
// calls it with GOOGLE_GEMINI_BASE_URL: POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse (server-sent
// events) and :generateContent (one JSON answer); a tool step is a
// functionCall part, a text step a text part. :countTokens is answered
// without consuming a step.
func Gemini(t testing.TB, script []Reply) *Server {
	return start(t, script, func(s *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			path := r.URL.Path
			if r.Method != http.MethodPost || !strings.Contains(path, "/models/") {
				http.NotFound(w, r)
				return
			}
			if strings.HasSuffix(path, ":countTokens") {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"totalTokens":1}`))
				return
			}
			_, rep := s.next(body)
			var part map[string]any
			if rep.Tool != "" {
				part = map[string]any{"functionCall": map[string]any{"name": rep.Tool, "args": rep.Args}}
			} else {
				part = map[string]any{"text": rep.Text}
			}
			resp := map[string]any{
				"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
					"content": map[string]any{"role": "model", "parts": []any{part}}}},
				"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
			}
			j, _ := json.Marshal(resp)
			if strings.HasSuffix(path, ":streamGenerateContent") {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "data: %s\n\n", j)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(j)
		})
	})
}

// Env returns os.Environ() without the variables of the given names (and
// every MATRIXX_*, CLAUDE_*, CODEX_*, GEMINI_*, GOOGLE_*, OPENAI_*,
// OPENCODE_* and XDG_* variable), plus extra.
func Env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "MATRIXX_"), strings.HasPrefix(k, "CLAUDE_"), strings.HasPrefix(k, "CODEX_"),
			strings.HasPrefix(k, "GEMINI_"), strings.HasPrefix(k, "GOOGLE_"), strings.HasPrefix(k, "OPENAI_"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "OPENCODE_"),
			k == "HOME", k == "XDG_CONFIG_HOME", k == "OPENCODE_CONFIG_DIR", k == "PATH", k == "PWD", k == "ULTRAWORK_TASK_LIST_ID", strings.HasPrefix(strings.ToLower(k), "npm_config_"):
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// TaskBySubject finds the task with the subject in a task store directory
// (reading its files: task-list does not show threadID) and checks that
// its threadID is session. It returns the task's id.
func TaskBySubject(t testing.TB, dir, subject, session string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "T-*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var tk struct {
			ID, Subject string
			ThreadID    string `json:"threadID"`
		}
		if json.Unmarshal(b, &tk) != nil || tk.Subject != subject {
			continue
		}
		if tk.ThreadID != session {
			t.Errorf("task %s: threadID %q, want the session %q", tk.ID, tk.ThreadID, session)
		}
		return tk.ID
	}
	t.Fatalf("no task %q in %s", subject, dir)
	return ""
}

// OpenAI starts a scripted server speaking OpenAI's chat completions API
// (POST /v1/chat/completions, streamed), as OpenCode's openai-compatible
// provider calls it: a tool step is a tool_calls delta (Args as its JSON
// arguments), a text step a content delta. A request without tools (the
// session title) is answered "Scripted session" without consuming a step
// or being recorded.
func OpenAI(t testing.TB, script []Reply) *Server {
	return start(t, script, func(s *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
				http.NotFound(w, r)
				return
			}
			var req struct {
				Tools []json.RawMessage `json:"tools"`
			}
			_ = json.Unmarshal(body, &req)
			rep, i := Text("Scripted session"), -1
			if len(req.Tools) > 0 {
				i, rep = s.next(body)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			chunk := func(delta map[string]any, finish any) {
				j, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("chatcmpl_%d", i), "object": "chat.completion.chunk", "created": 1, "model": "scripted",
					"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
				fmt.Fprintf(w, "data: %s\n\n", j)
			}
			if rep.Tool != "" {
				args, _ := json.Marshal(rep.Args)
				chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", i), "type": "function",
					"function": map[string]any{"name": rep.Tool, "arguments": string(args)}}}}, nil)
				chunk(map[string]any{}, "tool_calls")
			} else {
				chunk(map[string]any{"role": "assistant", "content": rep.Text}, nil)
				chunk(map[string]any{}, "stop")
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
		})
	})
}

// Main is the TestMain of a real-client test package: it builds our
// binaries (Build) into a new temporary directory named after pattern (as
// os.MkdirTemp takes it), sets *bin to that directory, runs the tests,
// removes the directory and exits with the tests' code (1 when the
// directory or the build fails).
func Main(m *testing.M, pattern string, bin *string) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = dir
	if err := Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Run runs our binary name (from the directory bin) in dir with stdin
// and env, and returns its stdout; a failure is fatal, with both outputs.
func Run(t testing.TB, bin, dir, stdin string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out.String(), errb.String())
	}
	return out.String()
}

// EarlierTask creates the task "Earlier work on the parser" in proj with
// task-create, as an earlier session would have: the session-start
// summary names it, and its file is what the agent tries to overwrite. It
// returns the task's id, its file and the file's content.
func EarlierTask(t testing.TB, bin, proj string, env []string) (id, file string, before []byte) {
	t.Helper()
	created := Run(t, bin, proj, `{"subject":"Earlier work on the parser"}`, env, "task-create")
	var ans struct {
		Tasks []struct{ ID string } `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(created), &ans); err != nil || len(ans.Tasks) != 1 {
		t.Fatalf("task-create: %v %s", err, created)
	}
	id = ans.Tasks[0].ID
	file = filepath.Join(proj, ".matrixx", "tasks", id+".json")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return id, file, before
}

// Install runs matrixx-hook install --host host in proj and checks that it
// says it installed into settings (the host's settings file).
func Install(t testing.TB, bin, proj string, env []string, host, settings string) {
	t.Helper()
	out := Run(t, bin, proj, "", env, "matrixx-hook", "install", "--host", host)
	if !strings.Contains(out, "installed in "+settings) {
		t.Fatalf("install: %s", out)
	}
}

// Tail is the last n bytes of s, marked with a leading "…" when cut.
func Tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
