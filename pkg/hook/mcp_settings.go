package hook

import (
	"fmt"
	"path/filepath"

	"github.com/tailscale/hujson"
)

// The MCP server install --mcp registers for Claude Code (docs/mcp.md).
const (
	// MCPServer is the server's name in .mcp.json: Claude Code calls its
	// tools mcp__matrixx__<tool>.
	MCPServer = "matrixx"
	// MCPBinary is the command the entry runs, looked up on PATH.
	MCPBinary = "matrixx-mcp"
	// enabledKey is the settings key listing the approved .mcp.json servers.
	enabledKey = "enabledMcpjsonServers"
)

// IsOurMCP reports whether an .mcp.json server command runs matrixx-mcp
// (whatever its directory).
func IsOurMCP(command string) bool {
	return filepath.Base(filepath.ToSlash(command)) == MCPBinary
}

// AddMCPServer adds (or brings up to date) the "matrixx" entry of a
// project .mcp.json (JSONC tolerated; empty means {}): mcpServers.matrixx
// = {"type":"stdio","command":"matrixx-mcp","args":[]}. An entry of ours
// keeps its other keys (args, env); every other server stays as it is. A
// "matrixx" entry that runs something else is refused: it is the user's.
func AddMCPServer(mcpJSON []byte) (SettingsResult, error) {
	root, res, err := parseSettings(mcpJSON)
	if err != nil {
		return res, err
	}
	servers, err := member(root, "mcpServers", "{}", true)
	if err != nil {
		return res, err
	}
	if _, ok := servers.Value.(*hujson.Object); !ok {
		return res, fmt.Errorf(`"mcpServers" is not an object`)
	}
	entry, err := member(servers, MCPServer, `{"type":"stdio","command":"`+MCPBinary+`","args":[]}`, true)
	if err != nil {
		return res, err
	}
	obj, ok := entry.Value.(*hujson.Object)
	if !ok {
		return res, fmt.Errorf(`"mcpServers.%s" is not an object`, MCPServer)
	}
	if c, ok := stringMember(entry, "command"); ok && !IsOurMCP(c) {
		return res, fmt.Errorf(`"mcpServers.%s" already runs %q, not %s: rename that server, or remove it, and run install again`, MCPServer, c, MCPBinary)
	}
	if t, ok := stringMember(entry, "type"); ok && t != "stdio" {
		return res, fmt.Errorf(`"mcpServers.%s" has type %q, not stdio: remove it and run install again`, MCPServer, t)
	}
	if err := setMember(obj, "command", MCPBinary); err != nil {
		return res, err
	}
	if err := setMember(obj, "type", "stdio"); err != nil {
		return res, err
	}
	return finish(root, mcpJSON, res)
}

// RemoveMCPServer removes the "matrixx" entry of .mcp.json when it is ours
// (IsOurMCP), and "mcpServers" when that left it empty.
func RemoveMCPServer(mcpJSON []byte) (SettingsResult, error) {
	root, res, err := parseSettings(mcpJSON)
	if err != nil {
		return res, err
	}
	servers, err := member(root, "mcpServers", "", false)
	if err != nil || servers == nil {
		return finish(root, mcpJSON, res)
	}
	sobj, ok := servers.Value.(*hujson.Object)
	if !ok {
		return finish(root, mcpJSON, res)
	}
	entry, _ := member(sobj, MCPServer, "", false)
	if entry == nil {
		return finish(root, mcpJSON, res)
	}
	if c, ok := stringMember(entry, "command"); !ok || !IsOurMCP(c) {
		return finish(root, mcpJSON, res)
	}
	removeMember(sobj, MCPServer)
	if len(sobj.Members) == 0 {
		removeMember(root.Value.(*hujson.Object), "mcpServers")
	}
	return finish(root, mcpJSON, res)
}

// MCPEntry returns the command of .mcp.json's "matrixx" entry; ok is false
// when there is none (or the file cannot be read as JSON).
func MCPEntry(mcpJSON []byte) (command string, ok bool) {
	root, _, err := parseSettings(mcpJSON)
	if err != nil {
		return "", false
	}
	servers, _ := member(root, "mcpServers", "", false)
	if servers == nil {
		return "", false
	}
	entry, _ := member(servers, MCPServer, "", false)
	if entry == nil {
		return "", false
	}
	command, _ = stringMember(entry, "command")
	return command, true
}

// EnableMCPServer adds "matrixx" to the settings' enabledMcpjsonServers
// (the .mcp.json servers Claude Code runs without asking), keeping the
// other names.
func EnableMCPServer(settings []byte) (SettingsResult, error) {
	root, res, err := parseSettings(settings)
	if err != nil {
		return res, err
	}
	list, err := member(root, enabledKey, "[]", true)
	if err != nil {
		return res, err
	}
	arr, ok := list.Value.(*hujson.Array)
	if !ok {
		return res, fmt.Errorf(`%q is not an array`, enabledKey)
	}
	for _, e := range arr.Elements {
		if lit, ok := e.Value.(hujson.Literal); ok && lit.Kind() == '"' && lit.String() == MCPServer {
			return finish(root, settings, res)
		}
	}
	arr.Elements = append(arr.Elements, hujson.Value{Value: hujson.String(MCPServer)})
	return finish(root, settings, res)
}

// DisableMCPServer removes "matrixx" from enabledMcpjsonServers, and the
// key when that left it empty.
func DisableMCPServer(settings []byte) (SettingsResult, error) {
	root, res, err := parseSettings(settings)
	if err != nil {
		return res, err
	}
	list, err := member(root, enabledKey, "", false)
	if err != nil || list == nil {
		return finish(root, settings, res)
	}
	arr, ok := list.Value.(*hujson.Array)
	if !ok {
		return finish(root, settings, res)
	}
	kept := arr.Elements[:0]
	removed := false
	for _, e := range arr.Elements {
		if lit, ok := e.Value.(hujson.Literal); ok && lit.Kind() == '"' && lit.String() == MCPServer {
			removed = true
			continue
		}
		kept = append(kept, e)
	}
	arr.Elements = kept
	if removed && len(kept) == 0 {
		removeMember(root.Value.(*hujson.Object), enabledKey)
	}
	return finish(root, settings, res)
}

// stringMember returns obj[name] when it is a string.
func stringMember(obj *hujson.Value, name string) (string, bool) {
	v, _ := member(obj, name, "", false)
	if v == nil {
		return "", false
	}
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}
