package task_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/input"
	"github.com/matrixx-dev/matrixx-tasks/pkg/task"
)

// The fuzz targets feed stdin documents through input.Read and the parser
// each binary uses, as the binaries do. Properties, beyond never
// panicking: every error is an *errcode.Error with a code and a message;
// a document that is accepted re-encodes to a document that is accepted
// again and parses to the same value (round trip). Seeds are in
// testdata/fuzz/<Target>; `go test` replays them.

// readDoc is what every binary does with stdin first.
func readDoc(t *testing.T, data []byte) ([]byte, bool) {
	doc, _, err := input.Read(bytes.NewReader(data), input.MaxBytes)
	if err != nil {
		checkError(t, err)
		return nil, false
	}
	return doc, true
}

// checkError requires a coded error with a message.
func checkError(t *testing.T, err error) {
	t.Helper()
	var e *errcode.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, not *errcode.Error: %v", err, err)
	}
	if e.Code == "" || e.Message == "" {
		t.Fatalf("error without code or message: %#v", e)
	}
}

// compactMetadata returns md with every raw value compacted and its
// strings in one escaping, so values that differ only in whitespace or in
// how a string is escaped ("\u00e9" or "é") compare equal. Numbers are
// kept as written (so are they on disk).
func compactMetadata(t *testing.T, md task.Metadata) task.Metadata {
	t.Helper()
	if md == nil {
		return nil
	}
	out := task.Metadata{}
	for k, v := range md {
		c := v.Clone()
		if err := c.Compact(jsontext.PreserveRawStrings(false)); err != nil {
			t.Fatalf("metadata %q holds invalid JSON %q: %v", k, v, err)
		}
		out[k] = c
	}
	return out
}

// marshal encodes v as a binary's input (compact JSON).
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("re-encoding %#v: %v", v, err)
	}
	return b
}

func FuzzParseCreate(f *testing.F) {
	for _, s := range []string{
		`{"subject":"Build backend"}`,
		`{"subject":"A","description":"d","activeForm":"Doing A","blocks":["T-1"],"blockedBy":["T-2","T-2"],"owner":"o","priority":"high","metadata":{"k":[1,{"x":null}]},"repoURL":"u","parentID":"T-p"}`,
		`{"items":[{"subject":"a"},{"subject":" "},{"subject":"c","status":"pending"},{"id":"T-x","subject":"d"}]}`,
		`{"items":[]}`,
		`{"items":[{"subject":"a"}],"extra":1}`,
		`{"subject":"a","subject":"b"}`,
		`{"Subject":"a"}`,
		`{"subject":null}`,
		`{"subject":"a","metadata":null}`,
		"\xef\xbb\xbf{\"subject\":\"bom\"}",
		`{"subject":"\ud800"}`,
		`[]`, ``, `{`, `{"items":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := readDoc(t, data)
		if !ok {
			return
		}
		req, err := task.ParseCreate(doc)
		if err != nil {
			checkError(t, err)
			return
		}
		if len(req.Items) != len(req.Index) || len(req.Items)+len(req.Errors) != req.Total {
			t.Fatalf("inconsistent request: %d items, %d indexes, %d errors, total %d", len(req.Items), len(req.Index), len(req.Errors), req.Total)
		}
		for _, e := range req.Errors {
			if e.Index < 0 || e.Index >= req.Total || e.Error == "" || e.Message == "" {
				t.Fatalf("bad item error %#v", e)
			}
		}
		for i := range req.Items {
			it := req.Items[i]
			again, err := task.ParseCreate(marshal(t, it))
			if err != nil || len(again.Items) != 1 || len(again.Errors) != 0 {
				t.Fatalf("item %d %#v re-encoded is refused: %v %#v", i, it, err, again)
			}
			got := again.Items[0]
			want := it
			got.Metadata, want.Metadata = compactMetadata(t, got.Metadata), compactMetadata(t, want.Metadata)
			if !reflect.DeepEqual(normalizeItem(got), normalizeItem(want)) {
				t.Fatalf("round trip changed item %d:\n got %#v\nwant %#v", i, got, want)
			}
		}
	})
}

// normalizeItem maps empty and nil slices alike (omitempty drops both).
func normalizeItem(it task.CreateItem) task.CreateItem {
	if len(it.Blocks) == 0 {
		it.Blocks = nil
	}
	if len(it.BlockedBy) == 0 {
		it.BlockedBy = nil
	}
	if len(it.Metadata) == 0 {
		it.Metadata = nil
	}
	return it
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range []string{
		`{"id":"T-1","status":"completed"}`,
		`{"id":"T-1","subject":"s","description":"","activeForm":"","owner":"","priority":"low","addBlocks":["T-2"],"addBlockedBy":["T-3","T-3"],"metadata":{"a":null,"b":{"c":[]}}}`,
		`{"id":"T-1","repoURL":"x"}`,
		`{"id":"T-1","blocks":[]}`,
		`{"id":"../etc/passwd"}`,
		`{"id":"T-1","status":"done"}`,
		`{"id":"T-1","subject":"  "}`,
		`{"id":"T-1","status":null}`,
		`{"id":"T-1","metadata":{"k":1,"k":2}}`,
		`{}`, `{"id":""}`, `{"id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := readDoc(t, data)
		if !ok {
			return
		}
		req, err := task.ParseUpdate(doc)
		if err != nil {
			checkError(t, err)
			return
		}
		if !task.ValidID(req.ID) {
			t.Fatalf("accepted invalid id %q", req.ID)
		}
		again, err := task.ParseUpdate(marshal(t, req))
		if err != nil {
			t.Fatalf("%#v re-encoded is refused: %v", req, err)
		}
		got, want := *again, *req
		got.Metadata, want.Metadata = compactMetadata(t, got.Metadata), compactMetadata(t, want.Metadata)
		for _, r := range []*task.UpdateRequest{&got, &want} {
			if len(r.AddBlocks) == 0 {
				r.AddBlocks = nil
			}
			if len(r.AddBlockedBy) == 0 {
				r.AddBlockedBy = nil
			}
			if len(r.Metadata) == 0 {
				r.Metadata = nil
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the request:\n got %#v\nwant %#v", got, want)
		}
		// Applying the update to a valid record keeps it valid.
		rec := &task.Task{ID: req.ID, Subject: "s", Status: task.Pending, ThreadID: "t"}
		req.Apply(rec)
		if err := rec.Validate(); err != nil {
			t.Fatalf("applying %#v made an invalid record: %v", req, err)
		}
		if _, err := task.Encode(rec); err != nil {
			t.Fatalf("encoding the updated record: %v", err)
		}
	})
}

func FuzzParseList(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"status":"pending"}`, `{"status":"nope"}`, `{"parentID":"T-1","ready":true,"all":false}`,
		`{"parentID":"x"}`, `{"ready":"yes"}`, `{"all":null}`, ` `, `{"Status":"pending"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := readDoc(t, data)
		if !ok {
			return
		}
		req, err := task.ParseList(doc)
		if err != nil {
			checkError(t, err)
			return
		}
		again, err := task.ParseList(marshal(t, req))
		if err != nil || !reflect.DeepEqual(*again, *req) {
			t.Fatalf("round trip: %v\n got %#v\nwant %#v", err, again, req)
		}
	})
}

func FuzzParseCleanup(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"olderThan":"7d"}`, `{"olderThan":"24h","all":false,"includeDeleted":true,"stale":true,"dryRun":true}`,
		`{"olderThan":"7"}`, `{"olderThan":"999999d"}`, `{"all":false}`, `{"olderThan":"1m","age":5}`,
		`{"olderThan":"０d"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := readDoc(t, data)
		if !ok {
			return
		}
		req, err := task.ParseCleanup(doc)
		if err != nil {
			checkError(t, err)
			return
		}
		if req.Age < 0 || (req.OlderThan == "") != (req.Age == 0) && !zeroAge(req.OlderThan) {
			t.Fatalf("olderThan %q gave age %v", req.OlderThan, req.Age)
		}
		again, err := task.ParseCleanup(marshal(t, req))
		if err != nil || !reflect.DeepEqual(*again, *req) {
			t.Fatalf("round trip: %v\n got %#v\nwant %#v", err, again, req)
		}
	})
}

// zeroAge reports an olderThan of zero length ("0d", "000m").
func zeroAge(s string) bool { return strings.Trim(s, "0dhm") == "" && s != "" }

// FuzzParseGet is task-get's stdin path: strict decode of {"id":…}, then
// the id check.
func FuzzParseGet(f *testing.F) {
	for _, s := range []string{`{"id":"T-1"}`, `{"id":"T-"}`, `{"id":"T-a--b"}`, `{"id":null}`, `{"ID":"T-1"}`, `{"id":"T-1","x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := readDoc(t, data)
		if !ok {
			return
		}
		var req task.IDRequest
		if err := input.Decode(doc, &req); err != nil {
			checkError(t, err)
			return
		}
		if err := task.CheckID(errcode.InvalidTaskID, "id", req.ID); err != nil {
			checkError(t, err)
			return
		}
		var again task.IDRequest
		if err := input.Decode(marshal(t, req), &again); err != nil || again != req {
			t.Fatalf("round trip: %v %#v %#v", err, again, req)
		}
		if task.FileName(req.ID) != req.ID+".json" || bytes.ContainsAny([]byte(req.ID), "/\\.\x00") {
			t.Fatalf("id %q would not stay inside the task directory", req.ID)
		}
	})
}

// FuzzDecodeRecord: a record accepted from disk re-encodes (task.Encode)
// to a record that decodes to the same task, and encoding is then a fixed
// point (byte-identical), so rewriting a file never drifts.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		`{"id":"T-1","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[]}`,
		"{\n  \"id\": \"T-019b7726-ef58-7003-b19c-98b558167e12\",\n  \"subject\": \"Config sanitize\",\n  \"description\": \"d\",\n  \"status\": \"in_progress\",\n  \"activeForm\": \"Working\",\n  \"blocks\": [\"T-2\"],\n  \"blockedBy\": [\"T-3\"],\n  \"owner\": \"agent-1\",\n  \"priority\": \"medium\",\n  \"metadata\": {\n    \"planItem\": 16,\n    \"planName\": \"plan-logout\"\n  },\n  \"repoURL\": \"https://x\",\n  \"parentID\": \"T-9\",\n  \"threadID\": \"ses_3\",\n  \"projectRoot\": \"/tmp/p\"\n}\n",
		`{"id":"T-1","subject":"s","status":"completed"}`,
		`{"id":"T-1","subject":"s","description":"","status":"done","blocks":[],"blockedBy":[]}`,
		`{"id":"T-1","subject":"s","description":"","status":"pending","blocks":null,"blockedBy":[null],"metadata":{}}`,
		`{"id":"T-1","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[],"metadata":{"a":null,"b":"\u00e9\ud83d\ude00","c":1e400}}`,
		`{"id":"T-1","id":"T-1"}`, `{"ID":"T-1"}`, `null`, `[]`, ``, `{"id":"T-1"} {}`,
		"{\"id\":\"T-1\",\"subject\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := task.DecodeRecord(data)
		if err != nil {
			checkError(t, err)
			return
		}
		if !task.ValidID(rec.ID) || !rec.Status.Valid() || (rec.Priority != "" && !rec.Priority.Valid()) || rec.Blocks == nil || rec.BlockedBy == nil {
			t.Fatalf("accepted an invalid record %#v", rec)
		}
		enc, err := task.Encode(rec)
		if err != nil {
			t.Fatalf("encoding an accepted record %#v: %v", rec, err)
		}
		again, err := task.DecodeRecord(enc)
		if err != nil {
			t.Fatalf("re-encoded record is refused: %v\n%s", err, enc)
		}
		got, want := *again, *rec
		got.Metadata, want.Metadata = compactMetadata(t, got.Metadata), compactMetadata(t, want.Metadata)
		if len(want.Metadata) == 0 {
			want.Metadata = nil // omitempty drops an empty object
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the record:\n got %#v\nwant %#v", got, want)
		}
		enc2, err := task.Encode(again)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not a fixed point: %v\n%s\n%s", err, enc, enc2)
		}
		if !jsontext.Value(enc).IsValid() {
			t.Fatalf("encoded record is not valid JSON: %s", enc)
		}
	})
}
