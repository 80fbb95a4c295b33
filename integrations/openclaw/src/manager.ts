// OpenClaw's MemorySearchManager over reverie serve: search, trigger candidates, reads, status, sync.
// status() is synchronous in OpenClaw's contract: it answers from the last status reverie gave
// (fetched when the manager opens, and again after each sync).

import type { ReverieClient } from "./client.ts";
import { searchResult } from "./mapping.ts";

type SearchOpts = {
  maxResults?: number;
  maxTokens?: number;
  minScore?: number;
  sessionKey?: string;
  lexicalOnly?: boolean;
  activeProjectKeys?: string[];
  sources?: string[];
  signal?: AbortSignal;
};

function statusOf(raw: any, error?: string): any {
  return {
    backend: "builtin",
    provider: "reverie",
    model: raw?.model ?? undefined,
    requestedProvider: raw?.provider ?? undefined,
    files: raw?.files ?? undefined,
    chunks: raw?.chunks ?? undefined,
    dirty: raw?.dirty ?? undefined,
    workspaceDir: raw?.workspaceDir ?? undefined,
    dbPath: raw?.dbPath ?? undefined,
    sources: ["memory", "sessions"],
    fts: { enabled: true, available: raw?.fts?.ok !== false, error: raw?.fts?.error ?? undefined },
    vector: { enabled: raw?.vector?.enabled !== false, available: raw?.vector?.ok !== false },
    ...(error ? { lastSyncError: error } : {}),
    custom: { reverie: { home: raw?.home, agent: raw?.agent, problems: raw?.problems ?? [] } },
  };
}

export async function createManager(client: ReverieClient, agent: string): Promise<any> {
  const base = `/v1/agents/${encodeURIComponent(agent)}`;
  let last = statusOf(await client.post(`${base}/status`, {}));

  return {
    async search(query: string, opts: SearchOpts = {}) {
      const out = await client.post(`${base}/search`, {
        query, maxResults: opts.maxResults, maxTokens: opts.maxTokens, minScore: opts.minScore,
        lexicalOnly: opts.lexicalOnly === true,
        activeProjectKeys: opts.activeProjectKeys, sources: opts.sources, sessionKey: opts.sessionKey,
      }, opts.signal);
      return (out.results ?? []).map((r: any) => searchResult(r));
    },
    async listTriggerCandidates(opts: { limit?: number; activeProjectKeys?: string[] } = {}) {
      const out = await client.post(`${base}/triggers`, { limit: opts.limit, activeProjectKeys: opts.activeProjectKeys });
      return (out.results ?? []).map((r: any) => searchResult(r));
    },
    async readFile(params: { relPath: string; from?: number; lines?: number }) {
      const out = await client.post(`${base}/read`, { path: params.relPath, from: params.from, lines: params.lines });
      if (out.status === "not_found") return { status: "not_found", text: "", path: String(out.path ?? params.relPath) };
      if (out.error) throw new Error(`reverie: ${out.error}`);
      const result: Record<string, unknown> = { status: "ok", text: String(out.text ?? ""), path: String(out.path) };
      for (const k of ["truncated", "from", "lines", "nextFrom"]) if (out[k] !== undefined) result[k] = out[k];
      return result;
    },
    status() {
      return last;
    },
    async sync(params: { force?: boolean } = {}) {
      try {
        await client.post(`${base}/sync`, { force: params.force === true });
        last = statusOf(await client.post(`${base}/status`, {}));
      } catch (err) {
        last = { ...last, lastSyncError: err instanceof Error ? err.message : String(err) };
        throw err;
      }
    },
    async probeEmbeddingAvailability() {
      return { ok: last.vector.available, checked: true };
    },
    async probeVectorAvailability() {
      return Boolean(last.vector.available);
    },
    async close() {},
  };
}
