package mcpserver

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolsFileName is the file of docs/schemas that holds the tool list.
const ToolsFileName = "mcp-tools.json"

// ToolsFile returns what docs/schemas/mcp-tools.json holds: every tool as
// tools/list announces it, {"tools":[…]}, indented by two spaces, ending in
// a newline (go generate ./... writes it).
func ToolsFile() ([]byte, error) {
	var defs []*mcp.Tool
	for _, tl := range Tools() {
		defs = append(defs, tl.definition())
	}
	b, err := json.Marshal(map[string]any{"tools": defs})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
