package mcpserver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsFileUpToDate: docs/schemas/mcp-tools.json is what tools/list
// announces. MATRIXX_UPDATE_SCHEMAS=1 rewrites it.
func TestToolsFileUpToDate(t *testing.T) {
	var defs []*mcp.Tool
	for _, tl := range Tools() {
		defs = append(defs, tl.definition())
	}
	b, err := json.Marshal(map[string]any{"tools": defs})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("..", "..", "docs", "schemas", "mcp-tools.json")
	if os.Getenv("MATRIXX_UPDATE_SCHEMAS") == "1" {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("docs/schemas/mcp-tools.json is out of date (or missing): run MATRIXX_UPDATE_SCHEMAS=1 go test ./pkg/schema/ ./pkg/mcpserver/")
	}
}
