package mcpserver

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestToolsFileUpToDate: docs/schemas/mcp-tools.json is what tools/list
// announces (go generate ./... writes it).
func TestToolsFileUpToDate(t *testing.T) {
	want, err := ToolsFile()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "schemas", ToolsFileName))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("docs/schemas/%s is out of date (or missing): run go generate ./...", ToolsFileName)
	}
}
