package hook

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzScanDecode: any input is decoded without a panic, and a valid JSON
// input stays valid JSON after the long-string cut.
func FuzzScanDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "claude-code", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 8)
	}
	f.Add([]byte(`{"a":"\u00e9\"\\x","b":[1,{"path":["x"]}]}`), 2)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 64 {
			max = 8
		}
		sc := newScan(bytes.NewReader(data), max)
		out, err := io.ReadAll(sc)
		if err != nil {
			t.Fatal(err)
		}
		if jsontext.Value(data).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) &&
			!jsontext.Value(out).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
			t.Fatalf("valid input became invalid:\n%q\n%q", data, out)
		}
		_, _ = Decode(newScan(bytes.NewReader(data), max))
	})
}
