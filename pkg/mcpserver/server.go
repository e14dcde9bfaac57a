// Package mcpserver is matrixx-mcp: a Model Context Protocol server (stdio,
// the official Go SDK) named "matrixx" whose tools are the task binaries and
// plan's subcommands (docs/mcp.md). Each call runs the binary's operation
// (pkg/ops) on the call's arguments, decoded as the binary decodes its stdin
// document, so a tool answers exactly what the binary prints: the same
// document, the same error envelope {"error","message"} and codes, the same
// rules. The answer is
// one text block holding that JSON document (and the same document as
// structuredContent); isError is set when the binary failed (exit 1 or 2).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/contract"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// Name is the server's name: Claude Code calls its tools
// mcp__matrixx__<tool>.
const Name = "matrixx"

// Options configure a server.
type Options struct {
	// Dir is -C DIR: the project root of every call. Empty: the client's
	// first file:// root, else WorkDir; from there the binaries' own
	// resolution applies ($MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, the
	// nearest ancestor holding .matrixx/ or .git).
	Dir string
	// Session is --session: the threadID stamped by writes (default:
	// $MATRIXX_SESSION_ID, else "no-session").
	Session string
	// Env is the environment the binaries see (default: the process's).
	// Its Getwd is replaced per call by the client's root when there is
	// one.
	Env project.Env
	// Log receives the binaries' stderr lines, prefixed with the tool name
	// (default: discarded).
	Log io.Writer
	// Tools is the tier announced: TierCore (task_create, task_list,
	// task_get, task_update, task_claim) or TierAll (default: "").
	Tools string
}

// Server is one matrixx MCP server.
type Server struct {
	opts  Options
	tools map[string]Tool
	mcp   *mcp.Server
	logMu sync.Mutex

	rootsMu sync.Mutex
	roots   map[*mcp.ServerSession]string // the session's root directory ("" none)
}

// New returns a server with every tool of Tools registered.
func New(opts Options) *Server {
	if opts.Env.Getenv == nil {
		opts.Env = project.OS()
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Server{opts: opts, tools: map[string]Tool{}, roots: map[*mcp.ServerSession]string{}}
	text := instructions
	if opts.Tools == TierCore {
		text = coreInstructions
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "matrixx tasks and plans", Version: app.Version()}, &mcp.ServerOptions{
		Instructions: text,
		// Roots may change (a client opening another folder): ask again.
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
			s.rootsMu.Lock()
			delete(s.roots, req.Session)
			s.rootsMu.Unlock()
		},
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, t := range Tools() {
		if !t.InTier(opts.Tools) {
			continue
		}
		s.tools[t.Name] = t
		s.mcp.AddTool(t.definition(), s.handler(t))
	}
	return s
}

// MCP returns the SDK server, to connect to a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

const instructions = `Tools for the project's persistent task store (.matrixx/tasks) and markdown plans (.matrixx/plans): the same documents as the task-create, task-get, task-list, task-update, task-cleanup and plan binaries. Plan work as tasks before starting it; start a task with task_claim ({"id","owner":you}; no id: the next ready task) and set it completed with task_update as soon as it is done (one at a time, never in a batch at the end); task_list with "ready":true shows what can run now. Edit plans only through plan_update/plan_check (anchors from plan_read), never by writing the files.`

// coreInstructions are the instructions of the core tier, which has no
// plan tools.
const coreInstructions = `Tools for the project's persistent task store (.matrixx/tasks). Plan work as tasks before starting it; start a task with task_claim ({"id","owner":you}; no id: the next ready task) and set it completed with task_update as soon as it is done (one at a time, never in a batch at the end); task_list with "ready":true shows what can run now.`

// definition is the tool as tools/list announces it. The title is given
// once, at the top (the annotations' title would repeat it).
func (t Tool) definition() *mcp.Tool {
	open := false
	a := &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent, OpenWorldHint: &open}
	// destructiveHint means something only for a tool that writes; a
	// read-only tool leaves it out (the bytes count against the budget).
	if !t.ReadOnly {
		destructive := t.Destructive
		a.DestructiveHint = &destructive
	}
	return &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.Input, Annotations: a}
}

// handler runs one call. It never returns a protocol error and never
// panics: every failure is the binaries' error envelope with isError.
func (s *Server) handler(t Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		defer func() {
			if r := recover(); r != nil {
				res = envelope(errcode.New(errcode.InternalError, "unexpected failure (a bug, please report): %v", r), 1)
			}
		}()
		args := []byte(req.Params.Arguments)
		if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
			args = []byte("{}")
		}
		env := s.opts.Env
		root, ask := s.root(ctx, req)
		if ask {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
		}
		if root != "" {
			env.Getwd = func() (string, error) { return root, nil }
		}
		var stderr bytes.Buffer
		o := ops.New(ops.Env{Name: t.Binary, Proc: env, Stderr: &stderr, Dir: s.opts.Dir, Session: s.opts.Session, Write: t.Write})
		v, status, err := t.Run(o, args)
		var doc []byte
		if err != nil {
			// As the binary prints a failure: its answer on stdout, the
			// line on stderr.
			fail, line := ops.Failure(err)
			fmt.Fprintf(&stderr, "%s: %s\n", t.Binary, line)
			doc, status = app.Marshal(fail, false), errcode.ExitStatus(errcode.As(err))
		} else {
			doc = app.Marshal(v, false)
		}
		s.log(t.Name, stderr.Bytes())
		return result(doc, stderr.String(), status), nil
	}
}

// result is a binary's answer as a tool result.
func result(stdout []byte, stderr string, status int) *mcp.CallToolResult {
	doc := bytes.TrimSpace(stdout)
	if !json.Valid(doc) || len(doc) == 0 || doc[0] != '{' {
		return envelope(errcode.New(errcode.InternalError, "the command printed no JSON document (exit %d): %s", status, strings.TrimSpace(stderr)), 1)
	}
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(doc)}},
		StructuredContent: json.RawMessage(doc),
		// Exit 3 (some items of a batch failed) created tasks: not an error.
		IsError: status != errcode.ExitOK && status != errcode.ExitPartial,
		Meta:    mcp.Meta{"matrixx/exitStatus": status},
	}
	if stderr != "" {
		res.Meta["matrixx/stderr"] = stderr
	}
	return res
}

// envelope is the error envelope for a failure before or around the binary.
func envelope(err error, status int) *mcp.CallToolResult {
	e := errcode.As(err)
	doc, _ := json.Marshal(contract.ErrorAnswer{Error: e.Code, Message: e.Message})
	return result(doc, "", status)
}

// log copies a binary's stderr to the server's log, one prefixed line each.
func (s *Server) log(tool string, stderr []byte) {
	if len(stderr) == 0 {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(stderr), "\n"), "\n") {
		fmt.Fprintf(s.opts.Log, "matrixx-mcp: %s: %s\n", tool, line)
	}
}

// root returns the directory of the session's first file:// root ("" when
// the client has no roots, or -C is set: it wins), asked once per session
// and again after notifications/roots/list_changed. ask is set when the
// call must first ask the client: protocol 2026-07-28 and later ask by
// answering the call with an input request for roots/list (the client
// retries the call with the roots; SEP-2322), older ones by sending
// roots/list (done here).
func (s *Server) root(ctx context.Context, req *mcp.CallToolRequest) (dir string, ask bool) {
	ss := req.Session
	if s.opts.Dir != "" || ss == nil {
		return "", false
	}
	s.rootsMu.Lock()
	dir, ok := s.roots[ss]
	s.rootsMu.Unlock()
	if ok {
		return dir, false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return "", false
	}
	if p.ProtocolVersion >= "2026-07-28" {
		res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if !ok {
			return "", true
		}
		dir = rootOf(res)
	} else {
		dir = s.askRoots(ctx, ss)
	}
	s.rootsMu.Lock()
	s.roots[ss] = dir
	s.rootsMu.Unlock()
	return dir, false
}

// askRoots sends roots/list (protocols before 2026-07-28).
func (s *Server) askRoots(ctx context.Context, ss *mcp.ServerSession) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		s.log("roots", []byte(fmt.Sprintf("asking the client for its roots failed (%v): using the working directory", err)))
		return ""
	}
	return rootOf(res)
}

// rootOf is the directory of the first file:// root that is a directory.
func rootOf(res *mcp.ListRootsResult) string {
	for _, r := range res.Roots {
		if dir, ok := rootDir(r.URI); ok {
			return dir
		}
	}
	return ""
}

// rootDir is the directory of a file:// root URI.
func rootDir(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", false
	}
	p := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(p) {
		return "", false
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", false
	}
	return filepath.Clean(p), true
}
