/**
 * The neutral usage counts every dialect reads its provider's usage report into (runner/dialects/), and the request
 * row's sums of the detail counts. OpenAI Chat Completions' own reader is runner/dialects/openai_chat_usage.ts.
 *
 * @module
 */

/** What the runner keeps of a response's usage, whatever the dialect. */
export interface Usage {
  /** Every input token, cached and cache-written ones included (the log's `input_tokens`). */
  prompt_tokens: number;
  /** Every output token, hidden reasoning included (the log's `output_tokens`). */
  completion_tokens: number;
  /** Input tokens read from the provider's prompt cache (absent: 0); part of prompt_tokens. */
  cached_tokens: number;
  /** Hidden reasoning/thinking tokens; part of completion_tokens (null: not reported). */
  reasoning_tokens: number | null;
  /** Prompt-cache write tokens; part of prompt_tokens (null: not reported). */
  cache_write_tokens: number | null;
}

/** A usage report read: its counts, or the first reason it cannot be used. */
export type UsageRead = { ok: true; usage: Usage } | { ok: false; problem: string };

/**
 * A request row's reasoning or cache-write tokens: the sum over its
 * attempts that reported the count (failed attempts and retries included),
 * null when none did.
 *
 * @example One attempt reported 4, one did not report: 4
 * ```ts
 * import { sumReported } from "./usage.ts";
 * import assert from "node:assert/strict";
 * assert.equal(sumReported([{ reasoning_tokens: 4 }, { reasoning_tokens: null }], "reasoning_tokens"), 4);
 * assert.equal(sumReported([{ reasoning_tokens: null }], "reasoning_tokens"), null);
 * ```
 */
export function sumReported<K extends "reasoning_tokens" | "cache_write_tokens">(
  rows: readonly { [k in K]: number | null }[],
  key: K,
): number | null {
  let sum: number | null = null;
  for (const r of rows) if (r[key] !== null) sum = (sum ?? 0) + r[key]!;
  return sum;
}
