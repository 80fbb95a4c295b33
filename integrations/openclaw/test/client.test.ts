// The client against real `reverie serve`s (REVERIE_BIN, else `reverie` on PATH): the right home
// answers; a stopped server, a home that never ran one, and a URL of another home's server are each
// one clear line.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { ReverieClient } from "../src/client.ts";
import { register } from "../src/index.ts";

const BIN = process.env.REVERIE_BIN || "reverie";
const root = mkdtempSync(join(process.env.REVERIE_TEST_TMP || tmpdir(), "reverie-openclaw-"));
const env = (home: string) => ({ ...process.env, REVERIE_HOME: home, REVERIE_EMBEDDING_PROVIDER: "fake",
  REVERIE_TIMEZONE: "UTC" });
const servers: ChildProcess[] = [];

function reverie(home: string, ...args: string[]) {
  const done = spawnSync(BIN, args, { env: env(home), encoding: "utf8" });
  assert.equal(done.status, 0, `${BIN} ${args.join(" ")}: ${done.stderr}${done.error ?? ""}`);
}

async function serve(home: string): Promise<ChildProcess> {
  const proc = spawn(BIN, ["serve", "--port", "0", "--no-scheduler"], { env: env(home), stdio: "ignore" });
  servers.push(proc);
  const state = join(home, "run", "serve.json");
  for (let i = 0; i < 600; i++) {
    // (a home with a long path has its socket elsewhere: serve.json says where)
    const info = existsSync(state) ? JSON.parse(readFileSync(state, "utf8")) : {};
    if (info.pid === proc.pid && existsSync(info.socket || join(home, "run", "serve.sock"))) return proc;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`reverie serve did not start for ${home}`);
}

async function stop(proc: ChildProcess) {
  if (proc.exitCode !== null) return;
  const gone = new Promise((r) => proc.once("exit", r));
  proc.kill("SIGTERM");
  await gone;
}

const A = join(root, "a");
const B = join(root, "b");

before(async () => {
  reverie(A, "init");
  reverie(A, "remember", "The cabin's boat is called Saltwater Dream.");
  // a curated entry is its own passage: two results for the boat
  appendFileSync(join(A, "workspace", "MEMORY.md"), "\n- The boat's spare sail hangs in the shed behind the cabin.\n");
  reverie(A, "index");
  reverie(B, "init");
  await serve(A);
  await serve(B);
});

after(async () => {
  for (const p of servers) await stop(p);
});

test("the home's server answers over its socket, and the manager searches it", async () => {
  const client = new ReverieClient({ home: A });
  const st = await client.post("/v1/agents/main/status", {});
  assert.equal(st.home, A);
  const hooks: Record<string, Function> = {};
  let capability: any;
  register({ pluginConfig: { home: A }, logger: { warn: (m: string) => console.error(m) }, on: (name: string, fn: Function) => { hooks[name] = fn; },
    registerTool: () => {}, registerMemoryCapability: (c: any) => { capability = c; } });
  const { manager } = await capability.runtime.getMemorySearchManager({ agentId: "main" });
  const hits = await manager.search("what is the boat called", { maxResults: 3 });
  assert.ok(hits.some((h: any) => h.snippet.includes("Saltwater") && h.provenance?.originClass === "owner"));
  // a budget reaches reverie: one token holds only the first result (always whole)
  const budgeted = await manager.search("what is the boat called", { maxTokens: 1 });
  assert.ok(hits.length >= 2, JSON.stringify(hits));
  assert.equal(budgeted.length, 1);
  assert.equal(budgeted[0].snippet, hits[0].snippet);
  assert.equal(manager.status().workspaceDir, join(A, "workspace"));
  assert.equal(capability.flushPlanResolver({}), null); // the flush is reverie's, never OpenClaw's own file write
  const added = await hooks.before_prompt_build({ prompt: "hello" }, { sessionKey: "agent:main:t", agentId: "main" });
  assert.match(added.appendSystemContext, /Saltwater Dream/);
});

test("a URL of another home's server: its token is refused, and the message says so", async () => {
  const urlOfB = JSON.parse(readFileSync(join(B, "run", "serve.json"), "utf8")).url;
  const client = new ReverieClient({ home: A, url: urlOfB });
  await assert.rejects(client.post("/v1/agents/main/status", {}), /refused the token of .*\/a \(it serves another home/);
});

test("a home that never ran reverie serve, and a stopped one, are one line each", async () => {
  await assert.rejects(new ReverieClient({ home: join(root, "none") }).post("/v1/agents/main/status", {}),
    /reverie serve has never run for the home .*none.*: start it with: reverie --home .*none serve/);
  await stop(servers[1]);
  const warned: string[] = [];
  let capability: any;
  register({ pluginConfig: { home: B }, logger: { warn: (m: string) => warned.push(m) }, on: () => {},
    registerTool: () => {}, registerMemoryCapability: (c: any) => { capability = c; } });
  const opened = await capability.runtime.getMemorySearchManager({ agentId: "main" });
  assert.equal(opened.manager, null);
  assert.match(opened.error, /reverie serve is not running for the home .*\/b/);
  assert.match(warned[0], /^reverie: opening memory failed, the turn goes on without memory: reverie serve is not running/);
  const cls = await capability.runtime.classifyWorkspaceMemoryPaths({ agentId: "main", workspaceDir: "/w",
    relativePaths: ["MEMORY.md"] });
  assert.deepEqual(cls, [{ relativePath: "MEMORY.md", originClass: "untrusted" }]); // fails closed
});
