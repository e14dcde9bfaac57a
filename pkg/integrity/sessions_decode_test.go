package integrity

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
)

// sessionRecordCorpus holds records as Touch writes them and damaged or
// odd ones; decodeSessionRecord must agree with json.Unmarshal on each.
var sessionRecordCorpus = []string{
	`{"session":"s","spans":[{"from":-9223372036854775808,"last":1796219404543718890}]}`,
	`{"session":"s","spans":[{"from":1,"last":2,"end":true},{"from":3,"last":4}]}`,
	`{"session":"s","spans":[]}`,
	`{"session":"s","spans":null}`,
	`{"session":"s"}`,
	`{"spans":[{"from":1,"last":2}],"session":"s"}`,
	`{"session":"s","spans":[{"from":1,"last":2,"end":false}]}`,
	`{"session":"s","spans":[null]}`,
	`{"session":null,"spans":[{"from":null,"last":2,"end":null}]}`,
	`{"session":"s","later":{"a":[1,2]},"spans":[{"from":1,"x":"y","last":2}]}`,
	` {"session":"s","spans":[]} `,
	`{"session":"s\u00e9\n","spans":[]}`,
	``,
	`[]`,
	`null`,
	`{"session":"s","spans":[]}{}`,
	`{"session":"s","spans":[]} x`,
	`{"session":"s","session":"t"}`,
	`{"session":1}`,
	`{"session":"s","spans":{}}`,
	`{"session":"s","spans":[1]}`,
	`{"session":"s","spans":[{"from":1.5,"last":2}]}`,
	`{"session":"s","spans":[{"from":1e3,"last":2}]}`,
	`{"session":"s","spans":[{"from":"1","last":2}]}`,
	`{"session":"s","spans":[{"from":1,"last":99999999999999999999}]}`,
	`{"session":"s","spans":[{"from":1,"from":2}]}`,
	`{"session":"s","spans":[{"end":1}]}`,
	`{"session":"s","spans":[{"end":"true"}]}`,
	`{"session":"s","spans":[{"from":1,"last":2}`,
	`{"session":"s",}`,
	"{\"session\":\"\xff\"}",
}

func TestDecodeSessionRecordAgreesWithJSON(t *testing.T) {
	for _, in := range sessionRecordCorpus {
		var want sessionRecord
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := decodeSessionRecord([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, json.Unmarshal's %v", in, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, json.Unmarshal got %+v", in, got, want)
		}
	}
}

func FuzzDecodeSessionRecord(f *testing.F) {
	for _, in := range sessionRecordCorpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want sessionRecord
		wantErr := json.Unmarshal(in, &want)
		got, err := decodeSessionRecord(in)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", in, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %+v, json.Unmarshal got %+v", in, got, want)
		}
	})
}
