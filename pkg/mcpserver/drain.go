package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"
)

// drainWait bounds how long the end of the client's input waits for calls
// still running.
const drainWait = 60 * time.Second

// drain lets every call a client sent before closing its input be answered:
// the SDK ends the session at end of input and drops answers still being
// computed, so a client that writes its requests and closes stdin (a script,
// a pipe) would lose them. The reader counts the calls (JSON-RPC requests
// with an id) it passes on, the writer the SDK's responses (lineFilter's own
// error answers do not go through it: they answer calls never passed on);
// end of input is passed on only once every call has its response (or
// after drainWait).
type drain struct {
	mu      sync.Mutex
	pending map[string]bool // ids of the calls not answered yet
	// running: ids of the calls lineFilter passed on that have no response
	// written yet, cancelled or not; a new call may not reuse one (see
	// idRunning in parse_errors.go).
	running map[string]bool
	done    *sync.Cond
	in, out []byte // partial lines
}

func newDrain() *drain {
	d := &drain{pending: map[string]bool{}, running: map[string]bool{}}
	d.done = sync.NewCond(&d.mu)
	return d
}

type drainReader struct {
	d *drain
	r io.Reader
}

type drainWriter struct {
	d *drain
	w io.Writer
}

func (r drainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.d.mu.Lock()
	r.d.in = r.d.scan(append(r.d.in, p[:n]...), +1)
	r.d.mu.Unlock()
	if err == io.EOF {
		r.d.wait()
	}
	return n, err
}

func (w drainWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.d.mu.Lock()
	w.d.out = w.d.scan(append(w.d.out, p[:n]...), -1)
	if len(w.d.pending) == 0 {
		w.d.done.Broadcast()
	}
	w.d.mu.Unlock()
	return n, err
}

// scan counts the complete lines of buf (calls when dir is +1, responses
// when -1) and returns the partial line left. Called with mu held.
func (d *drain) scan(buf []byte, dir int) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return buf // counted when its line ends
		}
		d.count(bytes.TrimSpace(buf[:i]), dir)
		buf = buf[i+1:]
	}
}

type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

func (d *drain) count(line []byte, dir int) {
	var frames []frame
	if len(line) > 0 && line[0] == '[' {
		_ = json.Unmarshal(line, &frames)
	} else {
		var f frame
		if json.Unmarshal(line, &f) == nil {
			frames = []frame{f}
		}
	}
	for _, f := range frames {
		hasID := len(f.ID) > 0 && string(f.ID) != "null"
		switch {
		case dir > 0 && hasID && f.Method != "":
			d.pending[idKey(f.ID)] = true // a call from the client
		case dir > 0 && f.Method == "notifications/cancelled":
			delete(d.pending, idKey(f.Params.RequestID)) // it may get no response
		case dir < 0 && hasID && f.Method == "":
			delete(d.pending, idKey(f.ID)) // our response
			delete(d.running, idKey(f.ID))
		}
	}
}

// start records that the call with id key is passed on to the SDK; it
// runs until its response is written.
func (d *drain) start(key string) {
	d.mu.Lock()
	d.running[key] = true
	d.mu.Unlock()
}

// isRunning says whether a call with id key was passed on and its
// response is not written yet.
func (d *drain) isRunning(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running[key]
}

// wait blocks until every counted call has its response, or drainWait.
func (d *drain) wait() {
	deadline := time.Now().Add(drainWait)
	timer := time.AfterFunc(drainWait, func() {
		d.mu.Lock()
		d.done.Broadcast()
		d.mu.Unlock()
	})
	defer timer.Stop()
	d.mu.Lock()
	for len(d.pending) > 0 && time.Now().Before(deadline) {
		d.done.Wait()
	}
	d.mu.Unlock()
}

// idKey is an id as the SDK writes it back: a string re-encoded (escapes
// resolved), an integer in its shortest form (-0 is 0), so a call and its
// response meet whatever spelling the client used.
func idKey(id json.RawMessage) string {
	var n int64
	if json.Unmarshal(id, &n) == nil {
		return strconv.FormatInt(n, 10)
	}
	var s string
	if json.Unmarshal(id, &s) == nil {
		if b, err := json.Marshal(s); err == nil {
			return string(b)
		}
	}
	return string(id)
}
