// Package board is matrixx board: a web page about the project's task
// store, served on 127.0.0.1 only, kept live by the change feed
// (pkg/feed), with actions that go through the store's own operations
// under compare-and-swap. It owns no data: every card is a record on disk
// and every action a store write. docs/board.md is the guide; the rules
// for who may drive it are in guard below.
package board

import (
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/sys/unix"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/feed"
	"github.com/matrixx-dev/matrixx-tasks/pkg/history"
	"github.com/matrixx-dev/matrixx-tasks/pkg/ops"
	"github.com/matrixx-dev/matrixx-tasks/pkg/plan"
	"github.com/matrixx-dev/matrixx-tasks/pkg/store"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// TokenHeader carries the per-run secret on every /api/ request.
const TokenHeader = "X-Matrixx-Token"

// Options configure a board.
type Options struct {
	// Addr is where to listen: 127.0.0.1:PORT (PORT 0 or empty: a free
	// one). Any other host is refused.
	Addr string
	// Me is the owner the page claims under.
	Me string
	// Lease is the lease of claims made from the page (0: 15 minutes).
	Lease time.Duration
	// Poll is the feed's tick (0: 200ms).
	Poll time.Duration
	// Log receives one line per refused request and per failed write.
	Log io.Writer
	// Env is the environment of the typed operations (pkg/ops) every
	// action runs, one ops.New(Env) per action: the project (-C), the
	// session, the command name the history records. Env.Write must be
	// true (actions take the lock).
	Env ops.Env
}

// Server is one running board.
type Server struct {
	st    *store.Store
	plans *plan.Store
	root  string
	opt   Options
	token string
	port  int

	m    model
	feed *feed.Feed

	subMu sync.Mutex
	subs  map[chan []byte]struct{}
	// recent are the last events, sent with each stream's first message.
	recent []feed.Event
}

// New makes a board for the store st (and its project's plans).
func New(st *store.Store, plans *plan.Store, root string, opt Options) (*Server, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, errcode.Wrap(errcode.InternalError, err, "making the board's secret")
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Env.Stderr == nil {
		opt.Env.Stderr = opt.Log
	}
	opt.Env.Write = true
	f := feed.New(st)
	if opt.Poll > 0 {
		f.Poll = opt.Poll
	}
	return &Server{st: st, plans: plans, root: root, opt: opt, token: hex.EncodeToString(b[:]), feed: f, subs: map[chan []byte]struct{}{}}, nil
}

// Listen binds the address (127.0.0.1 only) and returns the listener and
// the page's URL, secret included (after #, so it never reaches a server
// log or a Referer header).
func (s *Server) Listen() (net.Listener, string, error) {
	addr := s.opt.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", errcode.New(errcode.InvalidArguments, "--addr %q: want 127.0.0.1:PORT", addr)
	}
	if host != "127.0.0.1" && host != "localhost" {
		return nil, "", errcode.New(errcode.InvalidArguments, "--addr %q: the board listens on 127.0.0.1 only (this machine); want 127.0.0.1:PORT", addr)
	}
	if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 0 || n > 65535) {
		return nil, "", errcode.New(errcode.InvalidArguments, "--addr %q: the port must be a number from 0 to 65535", addr)
	}
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, "", errcode.Wrap(errcode.InternalError, err, "listening on 127.0.0.1:%s", port)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	return ln, fmt.Sprintf("http://127.0.0.1:%d/#token=%s", s.port, s.token), nil
}

// Token is the per-run secret.
func (s *Server) Token() string { return s.token }

// Load reads the store once (the first feed step) so the board has its
// cards before the first request.
func (s *Server) Load() error {
	if _, _, err := s.feed.Step(time.Now()); err != nil {
		return err
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.rebuild(s.feed.Tasks(), s.feed.Classes())
	s.m.plans = plansOf(s.plans, s.m.tasks)
	return nil
}

// Serve runs the feed and the HTTP server on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	errc := make(chan error, 2)
	go func() { errc <- s.follow(ctx) }()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil {
			_ = srv.Close()
			return err
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	_ = srv.Close()
	return nil
}

// follow applies the feed's steps to the model and sends each step's
// patch to every open page. Plans are looked at when their directory
// moves.
func (s *Server) follow(ctx context.Context) error {
	var plansMtime int64
	plansDir := ""
	if s.plans != nil {
		plansDir = s.plans.Dir
		plansMtime = mtimeOf(plansDir)
	}
	return s.feed.Run(ctx, func(evs []feed.Event, chs []feed.Change) error {
		s.m.mu.Lock()
		up, rm := s.m.apply(s.feed.Tasks(), s.feed.Classes(), chs)
		var plans []PlanInfo
		if len(chs) > 0 {
			if p := plansOf(s.plans, s.m.tasks); !slices.Equal(p, s.m.plans) {
				s.m.plans, plans = p, p
			}
		}
		s.m.seq++
		pt := patch{Seq: s.m.seq, Now: nowStamp(), Upsert: up, Removed: rm, Events: evs, Plans: plans}
		s.m.mu.Unlock()
		s.broadcast("patch", pt, evs)
		return nil
	}, func() {
		if plansDir == "" {
			return
		}
		if m := mtimeOf(plansDir); m != plansMtime {
			plansMtime = m
			s.m.mu.Lock()
			p := plansOf(s.plans, s.m.tasks)
			changed := !slices.Equal(p, s.m.plans)
			s.m.plans = p
			s.m.seq++
			pt := patch{Seq: s.m.seq, Now: nowStamp(), Plans: p}
			s.m.mu.Unlock()
			if changed {
				s.broadcast("patch", pt, nil)
			}
		}
	})
}

func mtimeOf(path string) int64 {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return 0
	}
	return st.Mtim.Nano()
}

func nowStamp() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// patch is one step's change to the page.
type patch struct {
	Seq     uint64       `json:"seq"`
	Now     string       `json:"now"`
	Upsert  []*Card      `json:"upsert,omitempty"`
	Removed []string     `json:"removed,omitempty"`
	Events  []feed.Event `json:"events,omitempty"`
	Plans   []PlanInfo   `json:"plans,omitempty"`
}

// maxRecent is how many events a page gets when it opens.
const maxRecent = 50

// broadcast sends one server-sent event to every stream. A stream whose
// buffer is full is closed (the page reconnects and starts from a fresh
// snapshot), so a stuck page never holds the others back.
func (s *Server) broadcast(name string, v any, evs []feed.Event) {
	msg := sseMessage(name, rawJSON(v))
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.recent = append(s.recent, evs...)
	if n := len(s.recent); n > maxRecent {
		s.recent = slices.Clone(s.recent[n-maxRecent:])
	}
	for ch := range s.subs {
		select {
		case ch <- msg:
		default:
			delete(s.subs, ch)
			close(ch)
		}
	}
}

func sseMessage(name string, data []byte) []byte {
	b := make([]byte, 0, len(data)+32)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// Handler is the board's HTTP handler, every route behind guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.static("index.html"))
	mux.HandleFunc("GET /board.js", s.static("board.js"))
	mux.HandleFunc("GET /board.css", s.static("board.css"))
	mux.HandleFunc("GET /favicon.svg", s.static("favicon.svg"))
	mux.HandleFunc("GET /api/stream", s.stream)
	mux.HandleFunc("GET /api/board", s.board)
	mux.HandleFunc("GET /api/task", s.detail)
	mux.HandleFunc("POST /api/action", s.action)
	return s.guard(mux)
}

// guard enforces who may drive the board, before any route:
//   - Host must be 127.0.0.1:PORT or localhost:PORT (a page on another
//     name resolving to 127.0.0.1, DNS rebinding, is refused: 421);
//   - Origin, when sent, must be this board's own (403), and a browser's
//     Sec-Fetch-Site must not say cross-site (403);
//   - every /api/ request carries the per-run secret in the
//     X-Matrixx-Token header (401): a cookie would ride along with a
//     foreign page's request, a header cannot without CORS, and the board
//     answers no CORS preflight (no Access-Control-* header, ever);
//   - a POST's body is JSON (Content-Type application/json, 415) of at
//     most 1 MiB.
//
// Every answer says not to be cached, framed, sniffed or referred.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		port := strconv.Itoa(s.port)
		if r.Host != "127.0.0.1:"+port && r.Host != "localhost:"+port {
			s.refuse(w, r, http.StatusMisdirectedRequest, "forbidden_host", "Host "+strconv.Quote(r.Host)+" is not this board's (open http://127.0.0.1:"+port+"/)")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			s.refuse(w, r, http.StatusForbidden, "forbidden_origin", "Origin "+strconv.Quote(o)+" is not this board's: other pages cannot drive it")
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			s.refuse(w, r, http.StatusForbidden, "forbidden_origin", "a cross-site request: other pages cannot drive the board")
			return
		}
		if r.Method == http.MethodOptions {
			s.refuse(w, r, http.StatusMethodNotAllowed, "method_not_allowed", "no CORS: the board answers its own page only")
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			got := r.Header.Get(TokenHeader)
			if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
				s.refuse(w, r, http.StatusUnauthorized, "missing_token", "every /api/ request needs the board's secret in the "+TokenHeader+" header (open the URL matrixx board printed)")
				return
			}
		}
		if r.Method == http.MethodPost {
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				s.refuse(w, r, http.StatusUnsupportedMediaType, "invalid_arguments", "a POST body must be application/json")
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers {"error","message"} with status and notes it in the log.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	fmt.Fprintf(s.opt.Log, "board: refused %s %s: %s\n", r.Method, r.URL.Path, msg)
	writeJSON(w, r, status, map[string]any{"error": code, "message": msg})
}

// writeJSON answers v as JSON, gzip-compressed when the client takes it
// and the body is large.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	b := rawJSON(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if len(b) > 32<<10 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(status)
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		_, _ = zw.Write(b)
		_, _ = zw.Write([]byte{'\n'})
		_ = zw.Close()
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// snapshotNow is the page's whole state.
func (s *Server) snapshotNow() (snapshot, uint64) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return snapshot{Seq: s.m.seq, Now: nowStamp(), Project: s.root, Me: s.opt.Me, Cards: s.m.snapshotLocked(), Plans: s.m.plans}, s.m.seq
}

func (s *Server) board(w http.ResponseWriter, r *http.Request) {
	snap, _ := s.snapshotNow()
	writeJSON(w, r, http.StatusOK, snap)
}

// stream is the page's live feed (text/event-stream): a "reset" with the
// whole state and the recent events, then a "patch" per change, and a
// comment every 15 seconds so proxies and the page know it is alive.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	ch := make(chan []byte, 64)
	s.subMu.Lock()
	s.subs[ch] = struct{}{}
	recent := slices.Clone(s.recent)
	s.subMu.Unlock()
	defer func() {
		s.subMu.Lock()
		if _, ok := s.subs[ch]; ok {
			delete(s.subs, ch)
			close(ch)
		}
		s.subMu.Unlock()
	}()
	snap, _ := s.snapshotNow()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	type reset struct {
		snapshot
		Events []feed.Event `json:"events"`
	}
	if _, err := w.Write(sseMessage("reset", rawJSON(reset{snap, recent}))); err != nil {
		return
	}
	_ = rc.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			if _, err := w.Write(msg); err != nil {
				return
			}
		case <-ping.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// detail answers one task whole: its record, card, notepad (the first
// 64 KiB) and where the notepad is. The id (a task id or a handle) is
// checked before any file is opened: anything but a task id is 400
// invalid_task_id, so no path outside the store is ever read.
func (s *Server) detail(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	rid, err := s.st.ResolveID(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := task.CheckID(errcode.InvalidTaskID, "id", rid); err != nil {
		s.fail(w, r, err)
		return
	}
	t, err := s.st.Get(rid)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if t == nil {
		s.fail(w, r, errcode.New(errcode.TaskNotFound, "no task %s", id))
		return
	}
	out := struct {
		Task        jsontext.Value `json:"task"`
		Version     string         `json:"v"`
		Notepad     string         `json:"notepad,omitempty"`
		NotepadPath string         `json:"notepadPath,omitempty"`
		NotepadCut  bool           `json:"notepadCut,omitzero"`
		History     []historyLine  `json:"history"`
	}{Task: rawJSON(t), Version: Version(t), History: []historyLine{}}
	if evs, err := s.st.TaskHistory(t.ID); err == nil {
		out.History = historyLines(evs)
	}
	if rel, err := findNotepad(s.root, t.ID, planOf(t)); err == nil && rel != "" {
		out.NotepadPath = rel
		if b, err := readCapped(filepath.Join(s.root, rel), 64<<10); err == nil {
			out.Notepad, out.NotepadCut = string(b.data), b.cut
		}
	}
	writeJSON(w, r, http.StatusOK, out)
}

// historyLine is one event of a task's history as the page shows it:
// newest first, values cut to 200 bytes.
type historyLine struct {
	At      string          `json:"at"`
	Kind    string          `json:"kind"`
	Who     string          `json:"who,omitempty"`
	Command string          `json:"command,omitempty"`
	Changes []historyChange `json:"changes,omitempty"`
}

type historyChange struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
}

// maxHistory is how many of a task's events the detail shows.
const maxHistory = 200

func historyLines(evs []history.Event) []historyLine {
	out := []historyLine{}
	for i := len(evs) - 1; i >= 0 && len(out) < maxHistory; i-- {
		e := evs[i]
		who := e.By.Owner
		if who == "" {
			who = e.By.User
		}
		if e.By.Host != "" && who != "" {
			who += "@" + e.By.Host
		}
		l := historyLine{At: e.At.UTC().Format(time.RFC3339), Kind: string(e.Kind), Who: who, Command: e.Command}
		for _, c := range e.Changes {
			l.Changes = append(l.Changes, historyChange{Field: c.Field, Old: cut(string(c.Old)), New: cut(string(c.New))})
		}
		out = append(out, l)
	}
	return out
}

func cut(s string) string {
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

type capped struct {
	data []byte
	cut  bool
}

func readCapped(path string, max int) (capped, error) {
	f, err := os.Open(path)
	if err != nil {
		return capped{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return capped{}, err
	}
	if len(b) > max {
		return capped{data: b[:max], cut: true}, nil
	}
	return capped{data: b}, nil
}
