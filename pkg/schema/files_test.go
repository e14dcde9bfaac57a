package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dir is docs/schemas from this package.
var dir = filepath.Join("..", "..", "docs", "schemas")

// TestFilesUpToDate: docs/schemas holds exactly what the Go types
// generate. MATRIXX_UPDATE_SCHEMAS=1 rewrites the files instead.
func TestFilesUpToDate(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("MATRIXX_UPDATE_SCHEMAS") == "1" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/schemas/%s is out of date (or missing): run MATRIXX_UPDATE_SCHEMAS=1 go test ./pkg/schema/ ./pkg/mcpserver/", name)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".input.json") || strings.HasSuffix(n, ".output.json") {
			if _, ok := files[n]; !ok {
				stale = append(stale, n)
			}
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("docs/schemas has files no Go type generates: %v", stale)
	}
}
