/**
 * Cache-busting (`--cache-bust`): a unique short prefix before the first user message of every request, so that a
 * target's prefix cache (llama.cpp's prompt cache, vLLM's automatic prefix caching) cannot serve one request's prompt
 * from another's. A rising-rate sweep over a workload of few distinct prompts otherwise measures a warmer cache at
 * every step, and the higher rates look cheaper than the traffic they stand for.
 *
 * The prefix is `[cb <first 8 hex of sha256(run_id)> <request_id>] `: unique within the run (request ids are) and across
 * runs (run ids are), about 10 tokens. Every round and retry of one request carries the same prefix (a retry may hit
 * the cache its own first attempt filled, as a client's retry would). The system message, when the case has one, is
 * left as it is: a shared system prompt stays cacheable, as it is in production. `prompt_sha256` stays the case's.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { WireMessage } from "./dialects/openai_chat.ts";

/** The rule run.json `runner.cache_bust` states when the prefix is on. */
export const CACHE_BUST_RULE = "each request's first user message is sent as `[cb <first 8 hex of sha256(run_id)> " +
  "<request_id>] ` + its content (every round and retry of the request alike; the system message unchanged; " +
  "prompt_sha256 is the case's, without the prefix)";

/**
 * The prefix function of a run: request id → its prefix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cacheBustPrefix } from "./cache_bust.ts";
 * const prefix = cacheBustPrefix("run-1");
 * assert.match(prefix("r0000007"), /^\[cb [0-9a-f]{8} r0000007\] $/);
 * assert.notEqual(prefix("r0000007"), cacheBustPrefix("run-2")("r0000007"));
 * ```
 */
export function cacheBustPrefix(runId: string): (requestId: string) => string {
  const tag = createHash("sha256").update(runId).digest("hex").slice(0, 8);
  return (requestId) => `[cb ${tag} ${requestId}] `;
}

/**
 * Puts `prefix` before the content of the first user message of `messages` (the request's own copy, changed in
 * place); returns false when there is no user message (nothing changed).
 */
export function prefixFirstUser(messages: WireMessage[], prefix: string): boolean {
  const i = messages.findIndex((m) => m.role === "user");
  if (i < 0) return false;
  const m = messages[i] as { role: "user"; content: string };
  messages[i] = { role: "user", content: prefix + m.content };
  return true;
}
