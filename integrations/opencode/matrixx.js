// matrixx-tasks for OpenCode: the task tools and the four hooks of the
// original plugin, run by the matrixx binaries, so OpenCode users share one
// .matrixx/ store with Claude Code, Codex CLI and Gemini CLI users.
//
// Install: copy (or link) this file into .opencode/plugin/ of a project
// (or ~/.config/opencode/plugin/), with the matrixx binaries on PATH or in
// $MATRIXX_BIN_DIR. See docs/hosts.md.
//
//   tools   task_create, task_get, task_list, task_update, task_cleanup:
//           the JSON document of the call goes to task-<name> on stdin, its
//           answer is the tool's output; the session id is stamped as
//           threadID (MATRIXX_SESSION_ID).
//   tool.execute.before   task-edit-guard: the call, as a PreToolUse event,
//           to matrixx-hook; a deny throws, which refuses the call and
//           gives the model our reason.
//   tool.execute.after    task-notepad-writer: bash and our task tools, as
//           a PostToolUse event.
//   shell.env             MATRIXX_SESSION_ID=<the session's id> in the
//           agent's shell, so task binaries run there stamp the session
//           as threadID, as the tools do.
//   experimental.text.complete   task-continuation-enforcer: when the
//           agent's answer ends a step without tool calls, a Stop event; a
//           block is added to the session as a user message before the
//           turn ends, so the agent goes on in the same turn (under
//           `opencode run` as in a long-lived session).
//   event session.idle    the same Stop, when the turn ended without a
//           text answer (at most once per turn); a block is sent back to
//           the session as a prompt.
//   event session.created task-session-start: the task summary is added to
//           the session as context (noReply).

import { spawnSync } from "node:child_process"
import path from "node:path"

const TOOLS = {
  task_create: {
    binary: "task-create",
    description:
      "Create a task in the project's .matrixx/tasks store. Fields: subject (required), description, activeForm, blockedBy, blocks, owner, metadata, repoURL, parentID. Answers {tasks:[{id,subject}],errors:[]}.",
    args: (s) => ({
      subject: s.string(),
      description: s.string().optional(),
      activeForm: s.string().optional(),
      blockedBy: s.array(s.string()).optional(),
      blocks: s.array(s.string()).optional(),
      owner: s.string().optional(),
      parentID: s.string().optional(),
      repoURL: s.string().optional(),
      metadata: s.record(s.string(), s.any()).optional(),
    }),
  },
  task_get: {
    binary: "task-get",
    description: "Read one task by id (T-…). Answers {task: … | null}.",
    args: (s) => ({ id: s.string() }),
  },
  task_list: {
    binary: "task-list",
    description:
      "List tasks with their unresolved blockers: active ones by default; status, parentID, ready, all filter.",
    args: (s) => ({
      status: s.string().optional(),
      parentID: s.string().optional(),
      ready: s.boolean().optional(),
      all: s.boolean().optional(),
    }),
  },
  task_update: {
    binary: "task-update",
    description:
      "Update one task: id (required), status (pending|in_progress|completed|deleted), subject, description, activeForm, owner, addBlocks, addBlockedBy, metadata (null removes a key).",
    args: (s) => ({
      id: s.string(),
      status: s.string().optional(),
      subject: s.string().optional(),
      description: s.string().optional(),
      activeForm: s.string().optional(),
      owner: s.string().optional(),
      addBlocks: s.array(s.string()).optional(),
      addBlockedBy: s.array(s.string()).optional(),
      metadata: s.record(s.string(), s.any()).optional(),
    }),
  },
  task_cleanup: {
    binary: "task-cleanup",
    description:
      "Delete finished tasks: olderThan (e.g. 7d), includeDeleted, stale, dryRun.",
    args: (s) => ({
      olderThan: s.string().optional(),
      includeDeleted: s.boolean().optional(),
      stale: s.boolean().optional(),
      dryRun: s.boolean().optional(),
    }),
  },
}

// OpenCode's tool names, as Claude Code's (the guard's own names for the
// common tools; other tools are judged by the words in their names).
const TOOL_NAMES = { bash: "Bash", write: "Write", edit: "Edit", multiedit: "MultiEdit", read: "Read", glob: "Glob", grep: "Grep", list: "LS" }

// MAX_BLOCKS: consecutive continuation prompts per session between two
// user messages, as Claude Code allows (the hook's own no-progress cap
// stops earlier when no task moves).
const MAX_BLOCKS = 8

function bin(name) {
  const dir = process.env.MATRIXX_BIN_DIR
  return dir ? path.join(dir, name) : name
}

// run runs one binary with a JSON document on stdin; it returns
// {status, stdout, stderr}. A binary that cannot be started is status -1.
function run(name, args, input, cwd, env) {
  const r = spawnSync(bin(name), args, {
    cwd,
    input: input === undefined ? "" : JSON.stringify(input),
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 30000,
    maxBuffer: 64 << 20,
  })
  if (r.error) return { status: -1, stdout: "", stderr: String(r.error.message || r.error) }
  return { status: r.status, stdout: r.stdout || "", stderr: r.stderr || "" }
}

// hook sends one event to matrixx-hook and returns its answer (null: no
// opinion). matrixx-hook always exits 0 with at most one JSON object.
function hook(event, cwd, host) {
  const r = run("matrixx-hook", host ? ["--host", host] : [], event, cwd)
  const out = r.stdout.trim()
  if (!out) return null
  try {
    return JSON.parse(out)
  } catch {
    return null
  }
}

// toEvent maps an OpenCode tool call onto Claude Code's PreToolUse or
// PostToolUse event (our task tools as an MCP server named matrixx, so the
// notepad writer knows them; a patch as Codex's apply_patch).
function toEvent(name, input, args, directory, output) {
  const ev = { hook_event_name: name, session_id: input.sessionID || "", cwd: directory, tool_use_id: input.callID || "" }
  let host
  if (TOOLS[input.tool]) {
    ev.tool_name = "mcp__matrixx__" + input.tool
    ev.tool_input = args || {}
  } else if ((input.tool === "patch" || input.tool === "apply_patch") && args && typeof args.patchText === "string") {
    ev.tool_name = "apply_patch"
    ev.tool_input = { command: args.patchText }
    ev.turn_id = input.callID || "opencode"
    host = "codex"
  } else {
    ev.tool_name = TOOL_NAMES[input.tool] || input.tool
    ev.tool_input = args || {}
  }
  if (output !== undefined) {
    ev.tool_response = ev.tool_name === "Bash" ? { stdout: output } : output
  }
  return { ev, host }
}

// createMatrixxPlugin builds the plugin; tool is @opencode-ai/plugin's
// tool helper (tool(def) and tool.schema, zod), or undefined to register
// the hooks only.
export function createMatrixxPlugin(tool) {
  return async ({ client, directory }) => {
    const tools = {}
    if (tool) {
      for (const [name, t] of Object.entries(TOOLS)) {
        tools[name] = tool({
          description: t.description,
          args: t.args(tool.schema),
          async execute(args, context) {
            const r = run(t.binary, [], args, directory, { MATRIXX_SESSION_ID: context.sessionID || "" })
            if (r.status === -1) throw new Error(`${t.binary} could not run (${r.stderr}); install the matrixx binaries on PATH or set MATRIXX_BIN_DIR`)
            return r.stdout || r.stderr
          },
        })
      }
    }
    // The arguments of calls in flight (tool.execute.after has none), and
    // per session: the stops blocked since its last user message (OpenCode
    // has no cap of its own, so at most MAX_BLOCKS in a row), the agent and
    // model of its last model request, and the state of the current step
    // (a tool started in it; its stop already judged).
    const calls = new Map()
    const blocks = new Map()
    const ours = new Set() // sessions whose next user message is our prompt
    const steps = new Map() // sessionID → {tools, judged, agent, model}
    const step = (sessionID) => {
      let st = steps.get(sessionID)
      if (!st) steps.set(sessionID, (st = { tools: false, judged: false }))
      return st
    }
    const say = async (sessionID, text, noReply) => {
      if (!client || !client.session || !sessionID) return
      const st = steps.get(sessionID) || {}
      const body = { noReply: !!noReply, parts: [{ type: "text", text }] }
      if (st.agent) body.agent = st.agent
      if (st.model) body.model = st.model
      await client.session.prompt({ path: { id: sessionID }, body })
    }
    // stop sends a Stop event for the session and, when it is blocked (at
    // most MAX_BLOCKS in a row), puts the reason into the session as a user
    // message: with noReply inside a turn (the turn then goes on), as a
    // prompt after it. The step's stop is judged once (OpenCode may report
    // one idle session twice).
    const stop = async (sessionID, lastMessage, noReply) => {
      const st = step(sessionID)
      if (st.judged) return
      st.judged = true
      const n = blocks.get(sessionID) || 0
      const ev = { hook_event_name: "Stop", session_id: sessionID, cwd: directory, stop_hook_active: n > 0 }
      if (lastMessage) ev.last_assistant_message = lastMessage
      const a = hook(ev, directory)
      if (a && a.decision === "block" && a.reason && n < MAX_BLOCKS) {
        blocks.set(sessionID, n + 1)
        ours.add(sessionID)
        await say(sessionID, a.reason, noReply)
      } else {
        blocks.delete(sessionID)
      }
    }
    return {
      tool: tools,
      "tool.execute.before": async (input, output) => {
        if (input.sessionID) step(input.sessionID).tools = true
        if (input.callID) calls.set(input.callID, (output && output.args) || {})
        const { ev, host } = toEvent("PreToolUse", input, output && output.args, directory)
        const a = hook(ev, directory, host)
        const o = a && a.hookSpecificOutput
        if (o && o.permissionDecision === "deny") throw new Error(o.permissionDecisionReason)
      },
      "tool.execute.after": async (input, output) => {
        const args = calls.get(input.callID) || input.args || {}
        calls.delete(input.callID)
        if (input.tool !== "bash" && !TOOLS[input.tool]) return
        const { ev, host } = toEvent("PostToolUse", input, args, directory, (output && output.output) || "")
        hook(ev, directory, host)
      },
      "shell.env": async (input, output) => {
        if (input && input.sessionID && output && output.env) output.env.MATRIXX_SESSION_ID = input.sessionID
      },
      // Each model request starts a step: nothing judged yet.
      "chat.params": async (input) => {
        if (!input || !input.sessionID) return
        const st = step(input.sessionID)
        st.tools = false
        st.judged = false
        if (typeof input.agent === "string") st.agent = input.agent
        else if (input.agent && input.agent.name) st.agent = input.agent.name
        const m = input.model
        if (m && m.providerID && (m.id || m.modelID)) st.model = { providerID: m.providerID, modelID: m.id || m.modelID }
      },
      // The answer of a step that called no tool ends the turn: judge the
      // stop now, while OpenCode can still go on (under opencode run the
      // process ends with the turn).
      "experimental.text.complete": async (input, output) => {
        if (!input || !input.sessionID) return
        const st = step(input.sessionID)
        if (st.tools || st.judged) return
        await stop(input.sessionID, output && output.text, true)
      },
      "chat.message": async (input) => {
        if (!input || !input.sessionID) return
        if (ours.delete(input.sessionID)) return // our continuation prompt
        blocks.delete(input.sessionID)
      },
      event: async ({ event }) => {
        const sessionID = event && event.properties && (event.properties.sessionID || (event.properties.info && event.properties.info.id))
        if (!sessionID) return
        if (event.type === "session.idle") {
          await stop(sessionID, "", false)
        } else if (event.type === "session.created") {
          const a = hook({ hook_event_name: "SessionStart", session_id: sessionID, cwd: directory, source: "startup" }, directory)
          const text = a && a.hookSpecificOutput && a.hookSpecificOutput.additionalContext
          if (text) await say(sessionID, text, true)
        }
      },
    }
  }
}

let helper
try {
  helper = (await import("@opencode-ai/plugin")).tool
} catch {
  helper = undefined // the hooks still run; the tools need @opencode-ai/plugin
}

export const MatrixxPlugin = createMatrixxPlugin(helper)
