package hook

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// DefaultTimeout is how long a hook waits for its whole event on stdin: 5 s.
// A hook that hangs on a pipe the host never closes would wedge the host, so
// past the deadline the hook gives up and applies its failure policy.
const DefaultTimeout = 5 * time.Second

// MaxString caps one JSON string of an event as the hook sees it: 1 MiB.
// Longer strings (a Write's content, a huge tool output) are cut to this
// length while streaming and end with a NUL sentinel (U+0000), which no
// command, path or tool answer can contain, so the decoder never holds more
// than about this much of the event at once.
const MaxString = 1 << 20

// errDeadline is returned by a deadlineReader past its deadline.
var errDeadline = errors.New("stdin not closed before the deadline")

// chunkSize is the read size of the stdin pump.
const chunkSize = 16 << 10

// deadlineReader reads r through a background goroutine so that the whole
// read can be abandoned at a deadline even when r blocks forever (a pipe the
// writer keeps open). At most a few chunks are buffered.
type deadlineReader struct {
	chunks <-chan chunk
	free   chan<- []byte
	timer  *time.Timer
	cur    []byte
	held   []byte // the buffer cur points into, returned to free when used up
	err    error
}

type chunk struct {
	data []byte
	err  error
}

// newDeadlineReader starts pumping r; reads fail with errDeadline once d
// has passed since the call. d <= 0 means no deadline.
func newDeadlineReader(r io.Reader, d time.Duration) *deadlineReader {
	const buffers = 4 // at most; allocated only when the reader lags
	ch := make(chan chunk, buffers)
	free := make(chan []byte, buffers)
	go func() {
		made := 0
		for {
			var buf []byte
			select {
			case buf = <-free:
			default:
				if made < buffers {
					buf = make([]byte, chunkSize)
					made++
				} else {
					buf = <-free
				}
			}
			n, err := r.Read(buf[:chunkSize])
			if n > 0 {
				ch <- chunk{data: buf[:n]}
			} else {
				free <- buf
			}
			if err != nil {
				ch <- chunk{err: err}
				close(ch)
				return
			}
		}
	}()
	dr := &deadlineReader{chunks: ch, free: free}
	if d > 0 {
		dr.timer = time.NewTimer(d)
	}
	return dr
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	for len(d.cur) == 0 {
		if d.held != nil {
			d.free <- d.held
			d.held = nil
		}
		if d.err != nil {
			return 0, d.err
		}
		var expired <-chan time.Time
		if d.timer != nil {
			expired = d.timer.C
		}
		select {
		case c, ok := <-d.chunks:
			switch {
			case !ok:
				d.err = io.EOF
			case c.err != nil:
				d.err = c.err
			default:
				d.cur, d.held = c.data, c.data
			}
		case <-expired:
			d.err = errDeadline
		}
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}

// stop releases the timer.
func (d *deadlineReader) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
}

// scan is a streaming pass over the raw event bytes, in front of the JSON
// decoder. It
//   - cuts every JSON string longer than max bytes (on a boundary that keeps
//     the JSON valid: never inside an escape or a UTF-8 sequence) and marks
//     the cut with the escape \u0000 before the closing quote;
//   - notes whether the raw bytes mention a guarded directory
//     (.matrixx/plans, .matrixx/tasks, any case, either slash), which is what
//     the guard's fail-closed rule looks at when the event cannot be decoded;
//   - notes whether the raw bytes contain "PreToolUse" (or Gemini CLI's
//     "BeforeTool").
//
// It keeps no more than a few bytes of state besides the read buffer.
type scan struct {
	r   io.Reader
	max int

	buf     []byte // raw bytes read and not yet processed
	pending []byte // output waiting for room in the caller's buffer

	inString bool
	escape   bool // the previous byte inside the string was a backslash
	hexLeft  int  // bytes of a \uXXXX escape still to come
	strLen   int  // raw bytes of the current string copied so far
	eliding  bool

	tail []byte // the last bytes of the previous chunk (for needles that straddle)
	low  []byte // scratch for lowercasing

	// Total counts raw bytes read.
	Total int64
	// Cut counts strings that were cut.
	Cut int
	// Guarded is set when the raw bytes mention .matrixx/plans or
	// .matrixx/tasks; GuardedPlans when they mention .matrixx/plans.
	Guarded, GuardedPlans bool
	// PreToolUse is set when the raw bytes contain "PreToolUse".
	PreToolUse bool
}

func newScan(r io.Reader, max int) *scan {
	return &scan{r: r, max: max, buf: make([]byte, 0, chunkSize)}
}

// sentinel ends a cut string: a JSON escape for U+0000.
const sentinel = `\u0000`

// planNeedles and taskNeedles are matched against lowercased raw bytes. In
// JSON text a backslash is written as \\ (and a slash may be written \/).
var (
	planNeedles = [][]byte{[]byte("matrixx/plans"), []byte(`matrixx\\plans`), []byte(`matrixx\/plans`)}
	taskNeedles = [][]byte{[]byte("matrixx/tasks"), []byte(`matrixx\\tasks`), []byte(`matrixx\/tasks`)}
)

// preToolUseNeedle, beforeToolNeedle: Claude Code's and Codex's event
// name, Gemini CLI's.
var (
	preToolUseNeedle = []byte("pretooluse")
	beforeToolNeedle = []byte("beforetool")
)

const tailLen = 16

func (s *scan) Read(p []byte) (int, error) {
	if len(s.pending) > 0 {
		n := copy(p, s.pending)
		s.pending = s.pending[n:]
		return n, nil
	}
	for {
		n, err := s.r.Read(s.buf[:cap(s.buf)])
		if n > 0 {
			raw := s.buf[:n]
			s.Total += int64(n)
			s.look(raw)
			out := s.filter(raw, p)
			if out > 0 || len(s.pending) > 0 {
				if out == 0 {
					out = copy(p, s.pending)
					s.pending = s.pending[out:]
				}
				return out, nil
			}
		}
		if err != nil {
			return 0, err
		}
	}
}

// drain reads the rest of the raw event only to look at it, until its
// end, a read error (the deadline) or until look has nothing left to
// find. It is for an event the decoder gave up on: the fail-closed rule
// then judges all of its bytes, not only those read before the decoder
// stopped.
func (s *scan) drain() {
	buf := s.buf[:cap(s.buf)]
	for !(s.GuardedPlans && s.Guarded && s.PreToolUse) {
		n, err := s.r.Read(buf)
		if n > 0 {
			s.Total += int64(n)
			s.look(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// look updates Guarded and PreToolUse from one raw chunk.
func (s *scan) look(raw []byte) {
	if s.GuardedPlans && s.Guarded && s.PreToolUse {
		return
	}
	s.low = append(s.low[:0], s.tail...)
	for _, c := range raw {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		s.low = append(s.low, c)
	}
	contains := func(needles [][]byte) bool {
		for _, n := range needles {
			if bytes.Contains(s.low, n) {
				return true
			}
		}
		return false
	}
	if !s.GuardedPlans && contains(planNeedles) {
		s.GuardedPlans, s.Guarded = true, true
	}
	if !s.Guarded && contains(taskNeedles) {
		s.Guarded = true
	}
	if !s.PreToolUse && (bytes.Contains(s.low, preToolUseNeedle) || bytes.Contains(s.low, beforeToolNeedle)) {
		s.PreToolUse = true
	}
	keep := min(tailLen, len(s.low))
	s.tail = append(s.tail[:0], s.low[len(s.low)-keep:]...)
}

// filter copies raw into p, dropping the elided parts of long strings; what
// does not fit in p goes to s.pending. It returns the bytes written to p.
func (s *scan) filter(raw, p []byte) int {
	w := 0
	emit := func(b ...byte) {
		for _, c := range b {
			if w < len(p) {
				p[w] = c
				w++
			} else {
				s.pending = append(s.pending, c)
			}
		}
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !s.inString {
			if c == '"' {
				s.inString, s.escape, s.hexLeft, s.strLen, s.eliding = true, false, 0, 0, false
			}
			emit(c)
			continue
		}
		// Inside a string.
		closing := c == '"' && !s.escape && s.hexLeft == 0
		if closing {
			if s.eliding {
				emit([]byte(sentinel)...)
				s.Cut++
			}
			s.inString = false
			emit(c)
			continue
		}
		if s.eliding {
			s.track(c)
			continue
		}
		// Cut only at a safe boundary: not inside an escape and not before a
		// UTF-8 continuation byte.
		if s.strLen >= s.max && !s.escape && s.hexLeft == 0 && c&0xC0 != 0x80 {
			s.eliding = true
			s.track(c)
			continue
		}
		s.track(c)
		s.strLen++
		emit(c)
	}
	return w
}

// track follows escapes inside a string.
func (s *scan) track(c byte) {
	switch {
	case s.hexLeft > 0:
		s.hexLeft--
	case s.escape:
		s.escape = false
		if c == 'u' {
			s.hexLeft = 4
		}
	case c == '\\':
		s.escape = true
	}
}
