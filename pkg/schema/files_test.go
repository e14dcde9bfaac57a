package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/matrixx-dev/matrixx-tasks/pkg/commands"
)

// dir is docs/schemas from this package.
var dir = filepath.Join("..", "..", "docs", "schemas")

// TestFilesUpToDate: docs/schemas holds exactly what the Go types
// generate (go generate ./... writes them: pkg/schema/internal/gen).
func TestFilesUpToDate(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/schemas/%s is out of date (or missing): run go generate ./...", name)
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
		t.Errorf("docs/schemas has files no Go type generates: %v (go generate ./... removes them)", stale)
	}
}

// TestHookEvents: the recorded Claude Code events of pkg/hook's tests are
// hook events the matrixx-hook input schema accepts.
func TestHookEvents(t *testing.T) {
	d, _ := Find("matrixx-hook")
	rs, err := d.Input.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "hook", "testdata", "claude-code", "*.json"))
	if len(files) < 5 {
		t.Fatalf("only %d events found", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// And one that is not an event is refused.
	if rs.Validate(map[string]any{"hook_event_name": 7}) == nil {
		t.Errorf("a numeric hook_event_name validates")
	}
}

// TestEverySchemaListed: the schema stems of the command table and the
// documents described here are the same set, so docs/schemas lists every
// command the table says has documents, and nothing else.
func TestEverySchemaListed(t *testing.T) {
	docs := documents()
	stems := map[string]bool{}
	for _, c := range commands.Commands() {
		if c.Schema == "" {
			continue
		}
		stems[c.Schema] = true
		if _, ok := docs[c.Schema]; !ok {
			t.Errorf("%s: a schema stem of the command table without documents", c.Schema)
		}
	}
	for name := range docs {
		if !stems[name] {
			t.Errorf("%s: documents for a stem the command table does not name", name)
		}
	}
}
