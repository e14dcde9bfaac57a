package task

import (
	"reflect"
	"testing"
)

// listFields is what DecodeListRecord promises to keep.
func listFields(t *Task, keep string) Task {
	out := Task{ID: t.ID, Subject: t.Subject, Status: t.Status, Blocks: t.Blocks, BlockedBy: t.BlockedBy, Owner: t.Owner,
		ParentID: t.ParentID, ThreadID: t.ThreadID}
	if v, ok := t.Metadata[keep]; ok {
		out.Metadata = Metadata{keep: v}
	}
	return out
}

// FuzzDecodeListRecord: DecodeListRecord accepts exactly the records
// DecodeRecord accepts, with the same error, and keeps the same list
// fields.
func FuzzDecodeListRecord(f *testing.F) {
	for _, s := range []string{
		`{"id":"T-1","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[]}`,
		`{"id":"T-1","subject":"s","description":null,"status":"in_progress","blocks":null,"blockedBy":[null],"metadata":{"claim":{"owner":"a"},"x":[1,{"y":2}]}}`,
		`{"id":"T-1","subject":"s","status":"pending"}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","metadata":{"a":1,"a":2}}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","metadata":{"cl\u0061im":1}}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","blocks":["a",1]}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","blocks":["a\u0062",null,"T-2"],"blockedBy":null}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","blocks":"a"}`,
		`{"id":"T-1","subject":"s","description":5,"status":"pending"}`,
		`{"id":"T-1","subject":"s","description":"\ud83d","status":"pending"}`,
		"{\"id\":\"T-1\",\"subject\":\"s\",\"description\":\"\xff\",\"status\":\"pending\"}",
		`{"id":"T-1","subject":"s","description":"d","status":"pending","metadata":{"matrixx.priority":"high"},"activeForm":"x","repoURL":"u","projectRoot":"/p","threadID":"t","owner":"o","parentID":"T-2","priority":"low"}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","Description":"x"}`,
		`{"id":"T-1","subject":"s","description":"d","status":"done"}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","metadata":[]}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending","extra":1}`,
		`{"id":"T-1","subject":"s","description":"d","description":"e","status":"pending"}`,
		`{"id":"T-1","subject":"s","description":"d","status":"pending"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		full, ferr := DecodeRecord(data)
		lite, lerr := DecodeListRecord(data, "claim")
		if (ferr == nil) != (lerr == nil) {
			t.Fatalf("full: %v, list: %v", ferr, lerr)
		}
		if ferr != nil {
			if ferr.Error() != lerr.Error() {
				t.Fatalf("errors differ: %v / %v", ferr, lerr)
			}
			return
		}
		if a, b := listFields(full, "claim"), listFields(lite, "claim"); !reflect.DeepEqual(a, b) {
			t.Fatalf("list fields differ:\nfull %#v\nlist %#v", a, b)
		}
	})
}
