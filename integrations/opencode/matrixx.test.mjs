// The OpenCode plugin through its plugin API (node --test), against the
// real matrixx binaries ($MATRIXX_BIN_DIR): the hooks and tools OpenCode
// would call, with OpenCode's argument shapes. t/opencode runs it.
import { test } from "node:test"
import assert from "node:assert/strict"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { execFileSync } from "node:child_process"
import { createMatrixxPlugin } from "./matrixx.js"

assert.ok(process.env.MATRIXX_BIN_DIR, "MATRIXX_BIN_DIR names the directory of the matrixx binaries")

// A stand-in for @opencode-ai/plugin's tool helper: tool(def) returns the
// definition, tool.schema builds chainable schema stubs.
const schema = new Proxy({}, { get: () => (..._) => stub })
const stub = new Proxy({}, { get: () => () => stub })
const tool = Object.assign((def) => def, { schema })

function project() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "matrixx-opencode-"))
  fs.mkdirSync(path.join(dir, ".matrixx"))
  process.env.HOME = dir
  process.env.OPENCODE_CONFIG_DIR = path.join(dir, "home-opencode")
  delete process.env.MATRIXX_SESSION_ID
  delete process.env.MATRIXX_PROJECT_DIR
  delete process.env.CLAUDE_PROJECT_DIR
  return dir
}

function bin(name, input, cwd) {
  return execFileSync(path.join(process.env.MATRIXX_BIN_DIR, name), [], { cwd, input: JSON.stringify(input), encoding: "utf8" })
}

async function plugin(dir) {
  const prompts = []
  const client = { session: { prompt: async (req) => { prompts.push(req) } } }
  const hooks = await createMatrixxPlugin(tool)({ client, directory: dir, worktree: dir })
  return { hooks, prompts }
}

test("session.created adds the task summary as context", async () => {
  const dir = project()
  bin("task-create", { subject: "Earlier work on the parser" }, dir)
  const { hooks, prompts } = await plugin(dir)
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_1" } } } })
  assert.equal(prompts.length, 1)
  assert.equal(prompts[0].path.id, "ses_1")
  assert.equal(prompts[0].body.noReply, true)
  assert.match(prompts[0].body.parts[0].text, /Earlier work on the parser/)
})

test("the guard refuses raw writes to the stores with our reason; other calls pass", async () => {
  const dir = project()
  const id = JSON.parse(bin("task-create", { subject: "Guarded" }, dir)).tasks[0].id
  const file = path.join(dir, ".matrixx", "tasks", id + ".json")
  const before = fs.readFileSync(file, "utf8")
  const { hooks } = await plugin(dir)
  const call = (tool, args) => hooks["tool.execute.before"]({ tool, sessionID: "ses_1", callID: "c_" + tool }, { args })
  await assert.rejects(call("bash", { command: `echo hacked > .matrixx/tasks/${id}.json`, description: "x" }), /Task files change only through task-create/)
  await assert.rejects(call("write", { filePath: path.join(dir, ".matrixx", "tasks", id + ".json"), content: "{}" }), /Task files change only through task-create/)
  await assert.rejects(call("edit", { filePath: ".matrixx/plans/p.md", oldString: "a", newString: "b" }), /plan/)
  await assert.rejects(call("read", { filePath: ".matrixx/plans/p.md" }), /plan/)
  await assert.rejects(call("patch", { patchText: `*** Begin Patch\n*** Delete File: .matrixx/tasks/${id}.json\n*** End Patch\n` }), /Task files change only through task-create/)
  await call("bash", { command: "echo ok > allowed.txt", description: "x" })
  await call("write", { filePath: path.join(dir, "src.txt"), content: "x" })
  await call("task_update", { id, status: "in_progress" })
  assert.equal(fs.readFileSync(file, "utf8"), before)
})

test("task tools stamp the session; notepads follow task_create and bash task-create", async () => {
  const dir = project()
  const { hooks } = await plugin(dir)
  const args = { subject: "Plugin task" }
  await hooks["tool.execute.before"]({ tool: "task_create", sessionID: "ses_2", callID: "c1" }, { args })
  const out = await hooks.tool.task_create.execute(args, { sessionID: "ses_2" })
  const id = JSON.parse(out).tasks[0].id
  const task = JSON.parse(fs.readFileSync(path.join(dir, ".matrixx", "tasks", id + ".json"), "utf8"))
  assert.equal(task.threadID, "ses_2")
  await hooks["tool.execute.after"]({ tool: "task_create", sessionID: "ses_2", callID: "c1" }, { title: "", output: out, metadata: {} })
  const cmd = `printf '%s' '{"subject":"Shell task"}' | task-create`
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_2", callID: "c2" }, { args: { command: cmd, description: "x" } })
  // OpenCode asks shell.env for the shell's environment before it runs.
  const shell = { env: {} }
  await hooks["shell.env"]({ cwd: dir, sessionID: "ses_2", callID: "c2" }, shell)
  assert.equal(shell.env.MATRIXX_SESSION_ID, "ses_2")
  const shellOut = execFileSync("sh", ["-c", cmd], { cwd: dir, encoding: "utf8", env: { ...process.env, ...shell.env, PATH: process.env.MATRIXX_BIN_DIR + ":" + process.env.PATH } })
  const shellID = JSON.parse(shellOut).tasks[0].id
  const shellTask = JSON.parse(fs.readFileSync(path.join(dir, ".matrixx", "tasks", shellID + ".json"), "utf8"))
  assert.equal(shellTask.threadID, "ses_2")
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_2", callID: "c2" }, { title: "", output: shellOut, metadata: {} })
  const notes = fs.readdirSync(path.join(dir, ".matrixx", "notepads"), { recursive: true })
    .map((f) => path.join(dir, ".matrixx", "notepads", String(f)))
    .filter((f) => fs.statSync(f).isFile())
    .map((f) => fs.readFileSync(f, "utf8"))
    .join("\n")
  assert.match(notes, new RegExp(id))
  assert.match(notes, new RegExp(shellID))
})

test("session.idle: the continuation prompt while the session has tasks, until the no-progress cap", async () => {
  const dir = project()
  const { hooks, prompts } = await plugin(dir)
  await hooks.tool.task_create.execute({ subject: "Unfinished" }, { sessionID: "ses_3" })
  for (let i = 0; i < 5; i++) {
    // Each prompt starts a model request (chat.params); OpenCode may
    // report one idle session twice: judged once.
    await hooks["chat.params"]({ sessionID: "ses_3", agent: "build", model: { providerID: "mock", id: "m1" } }, {})
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_3" } } })
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_3" } } })
  }
  assert.equal(prompts.length, 3)
  for (const p of prompts) {
    assert.equal(p.path.id, "ses_3")
    assert.equal(p.body.noReply, false)
    assert.match(p.body.parts[0].text, /Do not stop yet/)
    assert.match(p.body.parts[0].text, /Unfinished/)
    assert.equal(p.body.agent, "build")
    assert.deepEqual(p.body.model, { providerID: "mock", modelID: "m1" })
  }
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_other" } } })
  assert.equal(prompts.length, 3)
})

test("a step's answer without tool calls is judged before the turn ends: a block goes in as a user message (noReply), once", async () => {
  const dir = project()
  const { hooks, prompts } = await plugin(dir)
  await hooks.tool.task_create.execute({ subject: "Half done" }, { sessionID: "ses_4" })
  // A step that calls a tool: its text is not the end of the turn.
  await hooks["chat.params"]({ sessionID: "ses_4", agent: "build", model: { providerID: "mock", id: "m1" } }, {})
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_4", callID: "c1" }, { args: { command: "ls", description: "x" } })
  await hooks["experimental.text.complete"]({ sessionID: "ses_4", messageID: "m1", partID: "p1" }, { text: "Listing." })
  assert.equal(prompts.length, 0)
  // The final answer: blocked, the reason added without a reply of its own.
  await hooks["chat.params"]({ sessionID: "ses_4", agent: "build", model: { providerID: "mock", id: "m1" } }, {})
  await hooks["experimental.text.complete"]({ sessionID: "ses_4", messageID: "m2", partID: "p2" }, { text: "Done." })
  assert.equal(prompts.length, 1)
  assert.equal(prompts[0].body.noReply, true)
  assert.match(prompts[0].body.parts[0].text, /Do not stop yet/)
  // The idle that may follow the same step is not judged again.
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_4" } } })
  assert.equal(prompts.length, 1)
  // An answer that asks the user a question lets the turn end.
  await hooks["chat.params"]({ sessionID: "ses_4" }, {})
  await hooks["experimental.text.complete"]({ sessionID: "ses_4", messageID: "m3", partID: "p3" }, { text: "Should I also migrate the old records, or leave them for you?" })
  assert.equal(prompts.length, 1)
})
