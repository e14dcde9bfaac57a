package hookcmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/matrixx-dev/matrixx-tasks/pkg/cli/app"
	"github.com/matrixx-dev/matrixx-tasks/pkg/errcode"
	"github.com/matrixx-dev/matrixx-tasks/pkg/hook"
	"github.com/matrixx-dev/matrixx-tasks/pkg/project"
)

// install --mcp registers matrixx-mcp for Claude Code (docs/mcp.md): the
// "matrixx" entry of the project's .mcp.json runs matrixx-mcp from PATH, and
// the settings file install writes lists "matrixx" in
// enabledMcpjsonServers, so Claude Code starts it without asking. uninstall
// removes both when they are ours.

// mcpJSONPath is the project's .mcp.json.
func mcpJSONPath(a *app.App, dir string) (string, error) {
	root, err := project.CheckoutRoot(dir, a.Env)
	if err != nil {
		return "", errcode.Wrap(errcode.InternalError, err, "finding the project root")
	}
	return filepath.Join(root, ".mcp.json"), nil
}

// installMCPSettings adds "matrixx" to enabledMcpjsonServers in the
// settings install is about to write (res), before anything is written.
func (c *installCmd) installMCPSettings(res *hook.SettingsResult, path string) error {
	if !c.MCP {
		return nil
	}
	if c.User {
		return errcode.New(errcode.InvalidArguments, "--mcp registers the server in the project's .mcp.json, which --user settings do not enable; run install --mcp for the project (or: claude mcp add --scope user %s %s)", hook.MCPServer, hook.MCPBinary)
	}
	en, err := hook.EnableMCPServer(res.Data)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v; fix the file and run install again (nothing was written)", path, err)
	}
	res.Data, res.Changed = en.Data, res.Changed || en.Changed
	return nil
}

// checkMCPJSON refuses, before anything is written, an .mcp.json install
// --mcp cannot edit.
func (c *installCmd) checkMCPJSON(a *app.App) error {
	if !c.MCP {
		return nil
	}
	path, err := mcpJSONPath(a, c.Dir)
	if err != nil {
		return err
	}
	data, _, err := readSettings(path)
	if err != nil {
		return err
	}
	if _, err := hook.AddMCPServer(data); err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v (nothing was written)", path, err)
	}
	return nil
}

// installMCPJSON writes the .mcp.json entry (after the settings).
func (c *installCmd) installMCPJSON(a *app.App) error {
	if !c.MCP || c.Print {
		return nil
	}
	path, err := mcpJSONPath(a, c.Dir)
	if err != nil {
		return err
	}
	file, err := resolveSettings(path)
	if err != nil {
		return err
	}
	data, mode, err := readSettings(file)
	if err != nil {
		return err
	}
	res, err := hook.AddMCPServer(data)
	if err != nil {
		return errcode.New(errcode.ValidationError, "%s: %v", path, err)
	}
	if !res.Changed {
		fmt.Fprintf(a.Stdout, "%s: MCP server %s already registered in %s\n", a.Name, hook.MCPServer, path)
		return nil
	}
	if err := writeSettings(file, res.Data, mode); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "%s: registered MCP server %s in %s (command %s, from PATH); Claude Code names its tools mcp__%s__*\n", a.Name, hook.MCPServer, path, hook.MCPBinary, hook.MCPServer)
	return nil
}

// uninstallMCPSettings removes "matrixx" from enabledMcpjsonServers in the
// settings uninstall is about to write, unless .mcp.json's "matrixx" is
// someone else's server.
func (c *uninstallCmd) uninstallMCPSettings(a *app.App, res *hook.SettingsResult) error {
	if path, err := mcpJSONPath(a, c.Dir); err == nil {
		if data, _, err := readSettings(path); err == nil {
			if command, ok := hook.MCPEntry(data); ok && !hook.IsOurMCP(command) {
				return nil // the user's own "matrixx" server: its approval stays
			}
		}
	}
	dis, err := hook.DisableMCPServer(res.Data)
	if err != nil {
		return nil
	}
	res.Data, res.Changed = dis.Data, res.Changed || dis.Changed
	res.Empty = dis.Empty
	return nil
}

// run removes the hooks, then the MCP server of install --mcp.
func (c *uninstallCmd) run(a *app.App) error {
	if h, ok := otherHost(c.HookHostFlag); ok {
		return c.uninstallHost(a, h)
	}
	if err := c.runSettings(a); err != nil {
		return err
	}
	return c.uninstallMCPJSON(a)
}

// uninstallMCPJSON removes our .mcp.json entry, and the file when nothing
// else was in it.
func (c *uninstallCmd) uninstallMCPJSON(a *app.App) error {
	if c.Print {
		return nil
	}
	path, err := mcpJSONPath(a, c.Dir)
	if err != nil {
		return nil
	}
	file, err := resolveSettings(path)
	if err != nil {
		return err
	}
	data, mode, err := readSettings(file)
	if err != nil || data == nil {
		return err
	}
	res, err := hook.RemoveMCPServer(data)
	if err != nil {
		a.Warnf("warning: %s: %v; left as it is", path, err)
		return nil
	}
	if !res.Changed {
		return nil
	}
	if res.Empty && file == path {
		if err := os.Remove(path); err != nil {
			return errcode.Wrap(errcode.InternalError, err, "removing %s", path)
		}
		fmt.Fprintf(a.Stdout, "%s: removed MCP server %s from %s; nothing else was in it, so the file is gone\n", a.Name, hook.MCPServer, path)
		return nil
	}
	if err := writeSettings(file, res.Data, mode); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "%s: removed MCP server %s from %s\n", a.Name, hook.MCPServer, path)
	return nil
}
