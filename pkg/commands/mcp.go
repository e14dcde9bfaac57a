package commands

import "github.com/alecthomas/kong"

const mcpHelp = `Example: matrixx-mcp -C ~/src/project

An MCP server (stdio) named "matrixx" whose tools are the task binaries and plan's subcommands:
task_create, task_get, task_list, task_update, task_cleanup, task_claim, task_doctor, plan_create,
plan_read, plan_update, plan_list, plan_delete, plan_tasks, plan_check, plan_sync; with --tools core
only task_create, task_list, task_get, task_update and task_claim (a smaller context for the model).

Each tool takes the binary's stdin document as its arguments (plan tools: the name and options as
members) and answers exactly the binary's JSON document, errors as {"error","message"} with
isError. The project is -C DIR, else the client's first file:// root, else the working directory,
then resolved as the binaries do ($MATRIXX_PROJECT_DIR, $CLAUDE_PROJECT_DIR, the nearest ancestor
holding .matrixx/ or .git). Register it for Claude Code with "matrixx-hook install --mcp", or a
.mcp.json entry {"mcpServers":{"matrixx":{"command":"matrixx-mcp"}}}. See docs/mcp.md.

JSON Schemas of every document: docs/schemas/ (mcp-tools.json: what tools/list announces).`

// MCP is matrixx-mcp's command line.
type MCP struct {
	Dir     string           `short:"C" name:"dir" placeholder:"DIR" help:"Use DIR as the project root of every call (default: the client's root, else the working directory)."`
	Session string           `name:"session" placeholder:"ID" help:"Session id stamped as threadID by writes (default: $MATRIXX_SESSION_ID, else \"no-session\")."`
	Tools   string           `name:"tools" enum:"core,all" default:"all" env:"MATRIXX_MCP_TOOLS" placeholder:"TIER" help:"Which tools to announce: core (task_create, task_list, task_get, task_update, task_claim: under 5 KiB of definitions) or all (default; also $MATRIXX_MCP_TOOLS)."`
	Version kong.VersionFlag `help:"Print the version and exit."`
}
