import assert from "node:assert/strict";
import { test } from "node:test";

import {
  authorizedHits, ownerInput, requestText, searchResult, sessionKind, sessionOf, turnMessages,
} from "../src/mapping.ts";

test("session kinds from OpenClaw's hook context", () => {
  assert.equal(sessionKind({ sessionKey: "agent:main:main" }), "main");
  assert.equal(sessionKind({ sessionKey: "agent:main:telegram:group:42" }), "group");
  assert.equal(sessionKind({ sessionKey: "agent:main:discord:channel:7" }), "group");
  assert.equal(sessionKind({ sessionKey: "agent:main:subagent:abc" }), "subagent");
  assert.equal(sessionKind({ sessionKey: "agent:main:main", jobId: "nightly" }), "cron");
  assert.equal(sessionKind({ sessionKey: "agent:main:cron:nightly" }), "cron");
});

test("input another session or the system sent is not the owner's", () => {
  assert.equal(ownerInput({}), true);
  assert.equal(ownerInput({ inputProvenance: { kind: "external_user" } }), true);
  assert.equal(ownerInput({ inputProvenance: { kind: "inter_session" } }), false);
  assert.equal(ownerInput({ inputProvenance: { kind: "internal_system" } }), false);
  assert.equal(sessionOf({ sessionId: "s1" }), "s1");
  assert.equal(sessionOf({ sessionKey: "k", sessionId: "s1" }), "k");
  assert.equal(sessionOf({}), undefined);
});

test("the newest turn is from its user message on", () => {
  const msgs = [{ role: "user", content: "a" }, { role: "assistant", content: "b" }, { role: "user", content: "c" },
    { role: "assistant", content: [] }, { role: "toolResult", content: "d" }, { role: "assistant", content: "e" }];
  assert.deepEqual(turnMessages(msgs).map((m: any) => m.content), ["c", [], "d", "e"]);
  assert.deepEqual(turnMessages(undefined), []);
  assert.equal(turnMessages([{ role: "assistant" }]).length, 1);
  assert.equal(requestText({ prompt: "history + now", currentUserMessage: "now" }), "now");
  assert.equal(requestText({ prompt: "now" }), "now");
  assert.equal(requestText({ prompt: "x", currentUserMessage: "" }), ""); // no textual request: never the history
});

test("search rows become OpenClaw's MemorySearchResult with provenance", () => {
  const hit = searchResult({ path: "MEMORY.md", startLine: 3, endLine: 3, score: 0.8, snippet: "tea", source: "memory",
    triggers: "green tea", provenance: { originClass: "owner", sessionKind: "interactive" }, vectorScore: null }, 5);
  assert.deepEqual(hit, { path: "MEMORY.md", startLine: 3, endLine: 3, score: 0.8, snippet: "tea", source: "memory",
    triggers: "green tea", provenance: { originClass: "owner", sessionKind: "interactive", observedAt: 5 } });
  const odd = searchResult({ path: "x", snippet: "y", provenance: { originClass: "recall", sessionKind: "?" } }, 1);
  assert.deepEqual(odd.provenance, { originClass: "untrusted", sessionKind: "unknown", observedAt: 1 });
});

test("transcript hits only for an unsandboxed main session", () => {
  const hits = [{ source: "memory" }, { source: "sessions" }];
  assert.equal(authorizedHits(hits, "agent:main:main", false).length, 2);
  assert.equal(authorizedHits(hits, "agent:main:main", true).length, 1);
  assert.equal(authorizedHits(hits, undefined, false).length, 1);
  assert.equal(authorizedHits(hits, "agent:main:telegram:group:9", false).length, 1);
});
