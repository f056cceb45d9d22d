/**
 * The `usage` object of an OpenAI Chat Completions response (and the Azure OpenAI and Responses dialects'
 * detail names), validated where it enters the runner and read into the neutral counts (runner/usage.ts).
 *
 * @module
 */
import type { Usage, UsageRead } from "../usage.ts";

/**
 * Where OpenAI-compatible targets report prompt-cache writes: OpenRouter's
 * `prompt_tokens_details.cache_write_tokens`, LiteLLM's
 * `prompt_tokens_details.cache_creation_tokens`, and the Anthropic name
 * `cache_creation_input_tokens` that LiteLLM passes at the top of usage.
 * When several are present they must agree.
 */
export const CACHE_WRITE_FIELDS = [
  "prompt_tokens_details.cache_write_tokens",
  "prompt_tokens_details.cache_creation_tokens",
  "cache_creation_input_tokens",
] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

class BadUsage extends Error {}

/** A count: absent or null → null; otherwise it must be a non-negative integer. */
function count(o: Obj | null, key: string, path: string): number | null {
  const v = o?.[key];
  if (v === undefined || v === null) return null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  throw new BadUsage(`usage.${path} is ${JSON.stringify(v)}, not a non-negative integer`);
}

/** A details object: absent or null → null; otherwise it must be an object. */
function details(u: Obj, key: string): Obj | null {
  const v = u[key];
  if (v === undefined || v === null) return null;
  if (isObj(v)) return v;
  throw new BadUsage(`usage.${key} is ${JSON.stringify(v)}, not an object`);
}

/**
 * Reads a response's `usage`. Every count present must be a non-negative
 * integer, reasoning tokens at most completion_tokens (OpenAI counts them
 * inside it), cached + cache-write tokens at most prompt_tokens (both are
 * part of it), and cache-write fields that are present must agree;
 * otherwise the usage cannot be used and `problem` says why. Absent
 * prompt/completion/cached counts read as 0 (as before contract 1.1), absent
 * reasoning and cache-write counts as null (not reported).
 *
 * @example OpenAI reasoning tokens and an Anthropic-style cache write
 * ```ts
 * import { readUsage } from "./openai_chat_usage.ts";
 * import assert from "node:assert/strict";
 * const r = readUsage({ prompt_tokens: 100, completion_tokens: 50, cache_creation_input_tokens: 60,
 *   completion_tokens_details: { reasoning_tokens: 30 } });
 * assert.deepEqual(r, { ok: true, usage: { prompt_tokens: 100, completion_tokens: 50, cached_tokens: 0,
 *   reasoning_tokens: 30, cache_write_tokens: 60 } });
 * assert.equal(readUsage({ prompt_tokens: "7" }).ok, false);
 * ```
 */
export function readUsage(u: unknown): UsageRead {
  try {
    if (!isObj(u)) throw new BadUsage(`usage is ${JSON.stringify(u)}, not an object`);
    const prompt = details(u, "prompt_tokens_details");
    const completion = details(u, "completion_tokens_details");
    const usage: Usage = {
      prompt_tokens: count(u, "prompt_tokens", "prompt_tokens") ?? 0,
      completion_tokens: count(u, "completion_tokens", "completion_tokens") ?? 0,
      cached_tokens: count(prompt, "cached_tokens", "prompt_tokens_details.cached_tokens") ?? 0,
      reasoning_tokens: count(completion, "reasoning_tokens", "completion_tokens_details.reasoning_tokens"),
      cache_write_tokens: null,
    };
    const writes = CACHE_WRITE_FIELDS.map((path) => {
      const [head, key] = path.includes(".") ? path.split(".") as [string, string] : [null, path];
      return { path, n: count(head === null ? u : prompt, key, path) };
    }).filter((w) => w.n !== null);
    if (writes.some((w) => w.n !== writes[0]!.n)) {
      throw new BadUsage(`cache-write counts disagree: ${writes.map((w) => `usage.${w.path} = ${w.n}`).join(", ")}`);
    }
    usage.cache_write_tokens = writes[0]?.n ?? null;
    if (usage.reasoning_tokens !== null && usage.reasoning_tokens > usage.completion_tokens) {
      throw new BadUsage(
        `usage.completion_tokens_details.reasoning_tokens (${usage.reasoning_tokens}) exceeds completion_tokens ` +
          `(${usage.completion_tokens}), which includes them`,
      );
    }
    const inPrompt = usage.cached_tokens + (usage.cache_write_tokens ?? 0);
    if (inPrompt > usage.prompt_tokens) {
      throw new BadUsage(
        `cached (${usage.cached_tokens}) + cache-write (${usage.cache_write_tokens ?? 0}) tokens exceed ` +
          `prompt_tokens (${usage.prompt_tokens}), which includes them`,
      );
    }
    return { ok: true, usage };
  } catch (e) {
    if (e instanceof BadUsage) return { ok: false, problem: e.message };
    throw e;
  }
}
