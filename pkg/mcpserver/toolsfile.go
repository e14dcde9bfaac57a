package mcpserver

import (
	"github.com/matrixx-dev/matrixx-tasks/pkg/schema"
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
	return schema.Marshal(map[string]any{"tools": defs})
}
