// reverie as OpenClaw's memory (kind "memory"): registerMemoryCapability's parts and the hooks
// that follow each conversation, every call going to `reverie serve` (docs/hosts/openclaw.md).
//
//   session_start        -> sidecar start       (the startup context, kept for the session's turns)
//   before_prompt_build  -> sidecar before_model (trigger recall, standing intents, Active Memory);
//                           returns the startup context as system context, the turn's recall before
//                           the user's words
//   agent_end            -> sidecar after_turn   (the turn's messages, OpenClaw's own objects: reverie
//                           classes them: the owner's words, the agent's, untrusted tool output and
//                           taint, memory_search / memory_get results as recall)
//   before_compaction    -> sidecar before_compaction (the flush, written through reverie);
//   after_compaction     -> sidecar start("compact") (the startup context again, a new flush cycle)
//   before_reset / session_end -> sidecar end    (the session note)
//
// Memory failing never fails a turn: each failure is one line in OpenClaw's log and the turn goes on
// without memory.

import { ReverieClient, ReverieError, type ReverieConfig } from "./client.ts";
import { createManager } from "./manager.ts";
import { memoryTools } from "./tools.ts";
import {
  authorizedHits, type HookContext, ownerInput, PROMPT_SECTION, requestText, sessionKind, sessionOf, turnMessages,
} from "./mapping.ts";

const HOST = "openclaw";

type Logger = { info?: (msg: string) => void; warn?: (msg: string) => void; error?: (msg: string) => void };

export function register(api: any): void {
  const config: ReverieConfig = (api.pluginConfig ?? {}) as ReverieConfig;
  const client = new ReverieClient(config);
  const log: Logger = api.logger ?? console;
  const agentOf = (id?: string) => config.agent || id || "main";
  const startup = new Map<string, string>(); // session -> its startup context, added to every turn's system prompt
  const failed = new Set<string>(); // what failed, said once per step and reason (a stopped server fails every turn)

  const say = (step: string, err: unknown) => {
    const line = err instanceof Error ? err.message : String(err);
    const key = `${step}\0${line}`;
    if (failed.has(key)) return;
    failed.add(key);
    log.warn?.(`reverie: ${step} failed, the turn goes on without memory: ${line}`);
  };

  const sidecar = async (op: string, ctx: HookContext, fields: Record<string, unknown>): Promise<any | undefined> => {
    const session = sessionOf(ctx);
    if (!session) return undefined;
    try {
      const out = await client.post(`/v1/agents/${encodeURIComponent(agentOf(ctx.agentId))}/sidecar/${op}`, {
        host: HOST, session, kind: sessionKind(ctx), owner: ownerInput(ctx),
        projects: ctx.activeProjectKeys, cwd: ctx.workspaceDir, ...fields,
      });
      if (out?.error) throw new ReverieError(out.error);
      for (const n of out?.notices ?? []) log.info?.(`reverie: ${n}`);
      failed.clear(); // reachable again: a later failure is news
      return out;
    } catch (err) {
      say(op, err);
      return undefined;
    }
  };

  const start = async (ctx: HookContext, source: string): Promise<string> => {
    const out = await sidecar("start", ctx, { source });
    const session = sessionOf(ctx);
    if (out && session) startup.set(session, String(out.text ?? ""));
    return out ? String(out.text ?? "") : "";
  };

  api.on("session_start", async (event: any, ctx: HookContext) => {
    await start({ ...ctx, sessionKey: ctx.sessionKey ?? event?.sessionKey }, event?.resumedFrom ? "resume" : "startup");
  });

  api.on("before_prompt_build", async (event: any, ctx: HookContext) => {
    const session = sessionOf(ctx);
    if (!session) return undefined;
    const system = startup.has(session) ? startup.get(session)! : await start(ctx, "startup");
    const text = requestText(event ?? {});
    const turn = text.trim() ? await sidecar("before_model", ctx, {
      text, turn: typeof event?.currentUserMessageId === "string" ? event.currentUserMessageId : undefined,
    }) : undefined;
    const extra = turn ? String(turn.text ?? "") : "";
    const result: Record<string, string> = {};
    if (system) result.appendSystemContext = system;
    if (extra) result.prependContext = extra;
    return Object.keys(result).length ? result : undefined;
  });

  api.on("agent_end", async (event: any, ctx: HookContext) => {
    const messages = turnMessages(event?.messages);
    if (messages.length) await sidecar("after_turn", ctx, { openclawMessages: messages });
  });

  api.on("before_compaction", async (event: any, ctx: HookContext) => {
    await sidecar("before_compaction", ctx, { openclawMessages: turnMessages(event?.messages) });
  });

  api.on("after_compaction", async (_event: any, ctx: HookContext) => {
    await start(ctx, "compact");
  });

  const end = async (ctx: HookContext, messages: unknown[] | undefined, reason: string) => {
    const list = turnMessages(messages);
    if (list.length) await sidecar("after_turn", ctx, { openclawMessages: list });
    await sidecar("end", ctx, { reason });
    const session = sessionOf(ctx);
    if (session) startup.delete(session);
  };

  api.on("before_reset", async (event: any, ctx: HookContext) => {
    await end(ctx, event?.messages, String(event?.reason || "reset"));
  });

  api.on("session_end", async (event: any, ctx: HookContext) => {
    await end({ ...ctx, sessionKey: ctx.sessionKey ?? event?.sessionKey }, undefined, String(event?.reason || "end"));
  });

  // memory_search / memory_get as the model calls them: reverie's search and reads (OpenClaw's own
  // memory-core tools read its builtin index, not the memory slot's: disable memory-core)
  const managerFor = async (agentId?: string) => await createManager(client, agentOf(agentId));
  api.registerTool((toolCtx: any) => memoryTools(managerFor, toolCtx), { names: ["memory_search", "memory_get"] });

  api.registerMemoryCapability({
    promptBuilder: (params: { availableTools?: Set<string> }) =>
      params?.availableTools && !params.availableTools.has("memory_search") ? [] : [...PROMPT_SECTION],
    // OpenClaw would otherwise run a flush turn of its own, and its model would write the flush file
    // into the workspace itself (a write reverie cannot vouch for). reverie flushes at
    // before_compaction instead, through its own writer, with the transcript's provenance.
    flushPlanResolver: () => null,
    runtime: {
      async getMemorySearchManager(params: { agentId: string }) {
        try {
          return { manager: await createManager(client, agentOf(params.agentId)) };
        } catch (err) {
          say("opening memory", err);
          return { manager: null, error: err instanceof Error ? err.message : String(err) };
        }
      },
      resolveMemoryBackendConfig: () => ({ backend: "builtin" }),
      async authorizeSearchHits(params: { requesterSessionKey?: string; sandboxed: boolean; hits: any[] }) {
        return authorizedHits(params.hits ?? [], params.requesterSessionKey, params.sandboxed);
      },
      async classifyWorkspaceMemoryPaths(params: { agentId: string; workspaceDir: string; relativePaths: string[] }) {
        try {
          const out = await client.post(`/v1/agents/${encodeURIComponent(agentOf(params.agentId))}/classify`, {
            workspaceDir: params.workspaceDir, paths: params.relativePaths,
          });
          return out.classifications;
        } catch (err) {
          say("classifying workspace files", err);
          // fail closed: a file reverie could not vouch for is never injected automatically
          return params.relativePaths.map((relativePath) => ({ relativePath, originClass: "untrusted" }));
        }
      },
    },
  });
}

export default {
  id: "reverie",
  name: "reverie",
  description: "Long-term memory by reverie, through reverie serve",
  kind: "memory",
  register,
};
