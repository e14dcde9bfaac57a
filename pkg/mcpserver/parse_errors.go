package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	// The SDK's own JSON decoder, to decode initialize params as it does.
	sdkjson "github.com/segmentio/encoding/json"

	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
)

// The SDK's stdio transport ends the session at the first line it cannot
// decode, dropping the answers still being computed. lineFilter stands in
// front of it: every complete line the client sends is checked first, and a
// line that is not JSON is answered with a JSON-RPC parse error (-32700),
// one that is JSON but no JSON-RPC message with an invalid request error
// (-32600), both with id null (or the request's id when it has one); the
// line is not passed on and the server keeps serving (docs/mcp.md).
type lineFilter struct {
	r   io.Reader
	w   *lockedWriter
	buf []byte // bytes read, not yet a complete line
	out []byte // checked lines, to pass on
	err error  // the reader's error, once it has one
	// skipping: the line being read is over maxLine bytes; it was
	// answered and is dropped up to its newline.
	skipping bool
	// protocol: the version the session's initialize request negotiates
	// ("" before one is passed on); it decides whether batches are served.
	protocol string
	// batchIDs: the request ids of the batches passed on (see checkBatch).
	batchIDs map[string]bool
	// d knows the calls passed on that have no response yet.
	d *drain
}

// maxLine is the longest line passed on: the SDK's own limit
// (mcp.DefaultMaxLineLength, 16 MiB), past which it would end the session.
const maxLine = mcp.DefaultMaxLineLength

// lockedWriter serializes the SDK's writes (one message per Write) with
// lineFilter's error answers, so lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.err != nil {
			if len(f.buf) > 0 { // a last line without a newline
				line := f.buf
				f.buf = nil
				f.check(line)
				continue
			}
			return 0, f.err
		}
		chunk := make([]byte, 64<<10)
		n, err := f.r.Read(chunk)
		f.buf = append(f.buf, chunk[:n]...)
		f.err = err
		for {
			i := bytes.IndexByte(f.buf, '\n')
			if i < 0 {
				break
			}
			line := f.buf[:i+1]
			f.buf = f.buf[i+1:]
			if f.skipping {
				f.skipping = false // the end of the long line
				continue
			}
			f.check(line)
		}
		if f.skipping {
			f.buf = nil
		} else if len(f.buf) > maxLine {
			f.answer(nil, jsonrpc.CodeParseError, "Parse error: the line is longer than 16 MiB")
			f.buf, f.skipping = nil, true
		}
		if len(f.buf) == 0 {
			f.buf = nil
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// check passes line on, or answers it with an error.
func (f *lineFilter) check(line []byte) {
	msg := bytes.TrimSpace(line)
	if len(msg) == 0 {
		return // blank lines carry nothing
	}
	if len(msg) > maxLine {
		f.answer(nil, jsonrpc.CodeParseError, "Parse error: the line is longer than 16 MiB")
		return
	}
	if !json.Valid(msg) {
		f.answer(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON")
		return
	}
	if msg[0] == '[' {
		f.checkBatch(msg)
		return
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		f.answer(requestID(msg), jsonrpc.CodeInvalidRequest, lineInvalid)
		return
	}
	if id, ok := badID(msg); ok {
		f.answer(id, jsonrpc.CodeInvalidRequest, badIDMessage)
		return
	}
	if id, ok := callID(msg); ok {
		if f.d.isRunning(idKey(id)) {
			f.answer(id, jsonrpc.CodeInvalidRequest, idRunning)
			return
		}
		f.d.start(idKey(id))
	}
	f.noteInitialize(msg)
	f.pass(msg)
}

// A request reusing the id of a call still running — passed on, its
// response not written yet — would be dropped by the SDK without an
// answer. It gets -32600 (idRunning) with its id instead, alone or in a
// batch. A call counts as running from the moment the filter passes it on
// (the SDK reads later) until the SDK has written its response (the SDK
// frees the id just before writing), so a client that waits for an
// answer before reusing its id is always served, and one that does not
// is either served or refused, never ignored. A cancelled call runs until
// its response is written too.
const idRunning = "Invalid Request: the id is already used by a request still running; wait for its answer or use another id"

// pass queues msg, one JSON-RPC message or batch, for the SDK.
func (f *lineFilter) pass(msg []byte) {
	f.out = append(f.out, msg...)
	f.out = append(f.out, '\n')
}

const (
	lineInvalid    = "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"
	elementInvalid = "Invalid Request: the batch element is not a JSON-RPC 2.0 message"
)

// requestID is msg's id when it is a string or a number, else nil (null).
func requestID(msg []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	switch v.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return v.ID
	}
	return nil
}

func (f *lineFilter) answer(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	_, _ = f.w.Write(append(b, '\n'))
}

// badIDMessage is the error a request with an id the server cannot echo
// gets.
const badIDMessage = "Invalid Request: the id must be a string or an integer between -2^53 and 2^53 (9007199254740992) written without a fraction or an exponent"

// A request whose id the SDK would not echo as sent — a number with a
// fraction or an exponent (1.5, 1e3) or past 2^53 either way (the SDK
// reads a number id as a float64, then makes it an int64: 1e308,
// 9223372036854775807, 9007199254740993) — would get an answer with
// another id (1, 1000, -9223372036854775808, 9007199254740992): the client
// could never match it, and the end of input would wait for a response
// that never comes. Such a request, alone
// or in a batch, gets an Invalid Request error (-32600, badIDMessage)
// carrying its id exactly as sent and is not passed on.

// badID reports whether m is a request (it has a method) whose id is a
// number the SDK cannot echo as sent, and returns that id.
func badID(m []byte) (json.RawMessage, bool) {
	id, request := idOf(m)
	if !request || len(id) == 0 {
		return nil, false
	}
	switch c := id[0]; {
	case c == '"' || c == 'n':
		return nil, false // a string, or null
	case c == '-' || c >= '0' && c <= '9':
		if plainInt(string(id)) {
			return nil, false
		}
		return id, true
	}
	return nil, false // not a JSON-RPC id: DecodeMessage refuses it first
}

// idOf returns m's id as sent (nil when it has none) and whether m is a
// request (it has a method).
func idOf(m []byte) (json.RawMessage, bool) {
	var v struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(m, &v) != nil {
		return nil, false
	}
	return v.ID, v.Method != nil
}

// plainInt reports whether s is an integer written without a fraction or
// an exponent that the SDK echoes as sent: from -2^53 to 2^53, where a
// float64 holds every integer (2^53+1 would come back as 2^53).
func plainInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if d == "" || strings.Trim(d, "0123456789") != "" {
		return false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n >= -maxExactID && n <= maxExactID
}

// maxExactID is 2^53, the largest magnitude below which a float64 holds
// every integer.
const maxExactID = 1 << 53

// Batches. MCP dropped JSON-RPC batching in protocol 2025-06-18, and the
// SDK ends the session (exit 1, answers still being computed lost) when it
// reads a batch once such a version is negotiated, a batch that repeats a
// request id (within itself or from an earlier batch), or one with an
// element it cannot decode. It also tracks a batch's notifications as
// requests without an id: two of them in a batch (or in two batches) end
// the session ("duplicate message ID"), and one waits forever for its
// "response", so the batch's answers are never written. The filter keeps
// all of that from it, so the outcome does not depend on how far the SDK
// has got with initialize when the batch arrives. Each element of a batch
// is judged alone:
//   - one that is no JSON-RPC 2.0 message gets -32600 (elementInvalid),
//     with its id when it has a string or number one, else null; a request
//     whose id cannot be echoed gets -32600 (badIDMessage);
//   - once an initialize request negotiating 2025-06-18 or later has been
//     passed on, every request gets -32600 (batchRefused) carrying its id,
//     and nothing of the batch is passed on;
//   - under 2024-11-05 and 2025-03-26 (or before initialize) a request
//     whose id an earlier request of a batch already used gets -32600
//     (batchIDReused), one whose id a call still running uses -32600
//     (idRunning); the other requests are passed on as one batch (its
//     answers come back as an array), and the notifications and responses
//     each on its own line, those before the batch's first request before
//     it, the others after it. A batch left with no request is no batch.
// Errors are written one per line, like the other errors of the filter.

const (
	batchRefused  = "Invalid Request: JSON-RPC batches are not supported from protocol 2025-06-18 on; send each request on its own line"
	batchIDReused = "Invalid Request: the id was already used by a request of a batch in this session; batch request ids must be unique"
	// batching is the first protocol version without JSON-RPC batches.
	noBatching = "2025-06-18"
	// initializeCap: initialize never negotiates this version or later
	// (they are started without it), as the SDK's negotiation says.
	initializeCap = "2026-07-28"
)

// noteInitialize records the version an initialize request negotiates,
// as the SDK does: the client's version when the server supports it,
// else the newest supported version before initializeCap. Only the first
// initialize the SDK accepts counts; one it refuses negotiates nothing and
// leaves the next one to decide. The SDK refuses an initialize without an
// id, without params or with params null, with params that do not decode
// into its InitializeParams (decoded here as it decodes them: the same
// decoder, field names matched case-sensitively, so a "capabilities" that
// is an array or a "protocolVersion" that is a number fails, and
// "ProtocolVersion" is no version), and one whose params' _meta names a
// protocol version from initializeCap on (such a request belongs to the
// protocol without initialize).
func (f *lineFilter) noteInitialize(m []byte) {
	if f.protocol != "" {
		return
	}
	msg, err := jsonrpc.DecodeMessage(m)
	if err != nil {
		return
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "initialize" || !req.IsCall() || len(req.Params) == 0 {
		return
	}
	var params *mcp.InitializeParams
	dec := sdkjson.NewDecoder(bytes.NewReader(req.Params))
	dec.DontMatchCaseInsensitiveStructFields()
	if dec.Decode(&params) != nil || params == nil {
		return
	}
	if v, ok := params.Meta[mcp.MetaKeyProtocolVersion].(string); ok && v >= initializeCap {
		return
	}
	supported := mcp.SupportedProtocolVersions()
	if slices.Contains(supported, params.ProtocolVersion) && params.ProtocolVersion < initializeCap {
		f.protocol = params.ProtocolVersion
		return
	}
	for _, s := range supported {
		if s < initializeCap {
			f.protocol = s
			return
		}
	}
}

// checkBatch applies the batch rules above to msg, a JSON array.
func (f *lineFilter) checkBatch(msg []byte) {
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil || len(batch) == 0 {
		f.answer(nil, jsonrpc.CodeInvalidRequest, lineInvalid)
		return
	}
	refused := f.protocol >= noBatching
	// idKey (drain.go) tells ids apart as the SDK does: "1" and 1
	// differ, -0 is 0.
	if f.batchIDs == nil {
		f.batchIDs = map[string]bool{}
	}
	var before, after [][]byte // the notifications and responses
	var calls []json.RawMessage
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil || input.CheckDepth(m, maxBatchNesting-1) != nil {
			f.answer(requestID(m), jsonrpc.CodeInvalidRequest, elementInvalid)
			continue
		}
		if id, ok := badID(m); ok {
			f.answer(id, jsonrpc.CodeInvalidRequest, badIDMessage)
			continue
		}
		id, ok := callID(m)
		switch {
		case refused && ok:
			f.answer(id, jsonrpc.CodeInvalidRequest, batchRefused)
		case refused:
			// nothing of a refused batch runs
		case !ok && len(calls) == 0:
			before = append(before, m)
		case !ok:
			after = append(after, m)
		case f.batchIDs[idKey(id)]:
			f.answer(id, jsonrpc.CodeInvalidRequest, batchIDReused)
		case f.d.isRunning(idKey(id)):
			f.answer(id, jsonrpc.CodeInvalidRequest, idRunning)
		default:
			f.batchIDs[idKey(id)] = true
			calls = append(calls, m)
		}
	}
	for _, m := range before {
		f.pass(m)
	}
	if len(calls) > 0 {
		for _, m := range calls {
			id, _ := callID(m)
			f.d.start(idKey(id))
			f.noteInitialize(m)
		}
		if len(calls) == len(batch) {
			f.pass(msg)
		} else if out, err := json.Marshal(calls); err == nil {
			f.pass(out)
		}
	}
	for _, m := range after {
		f.pass(m)
	}
}

// maxBatchNesting: the SDK decodes a batch only when its arrays and
// objects nest at most 1000 deep; an element nesting this deep or deeper
// would make the batch too deep once inside it.
const maxBatchNesting = 1000

// callID returns the id of m when m is a request that expects an answer
// (it has a method and a string or number id).
func callID(m []byte) (json.RawMessage, bool) {
	id, request := idOf(m)
	if !request || len(id) == 0 || string(id) == "null" {
		return nil, false
	}
	return id, true
}
