/**
 * OpenAI's rate-limit headers, as every OpenAI API sends them (Chat Completions, Responses; Azure OpenAI sends the
 * same names): `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests`, `x-ratelimit-reset-requests`, and
 * the same three for `-tokens`. The reset values are Go-style durations (`1s`, `6m0s`, `20ms`, `1h2m3.5s`).
 * Reference: https://platform.openai.com/docs/guides/rate-limits (section "Rate limits in headers").
 *
 * @module
 */
import type { ProviderLimits } from "./dialect.ts";

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, "µs": 1e-3, ns: 1e-6 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/**
 * A Go-style duration (`6m0s`, `1.5s`, `20ms`) in milliseconds, rounded to a whole ms; null when it is not one.
 *
 * @example
 * ```ts
 * import { parseDurationMs } from "./openai_limits.ts";
 * import assert from "node:assert/strict";
 * assert.equal(parseDurationMs("6m0s"), 360_000);
 * assert.equal(parseDurationMs("1h2m3.5s"), 3_723_500);
 * assert.equal(parseDurationMs("20ms"), 20);
 * assert.equal(parseDurationMs("soon"), null);
 * ```
 */
export function parseDurationMs(text: string): number | null {
  const t = text.trim();
  if (!DURATION.test(t)) return null;
  let ms = 0;
  for (const [, n, unit] of t.matchAll(PART)) ms += Number(n) * UNIT_MS[unit!]!;
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

/** A count header: a non-negative integer, else null. */
function count(v: string | undefined): number | null {
  if (v === undefined || !/^\s*\d{1,15}\s*$/.test(v)) return null;
  return Number(v.trim());
}

/** The headers read by {@linkcode readOpenAiLimits}. */
export const OPENAI_LIMIT_HEADERS = [
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-tokens",
] as const;

/**
 * OpenAI's rate-limit headers read off a response head (names lower-case); null when none of them is present. A
 * malformed value is null, never an exception.
 *
 * @example
 * ```ts
 * import { readOpenAiLimits } from "./openai_limits.ts";
 * import assert from "node:assert/strict";
 * const h = new Map([["x-ratelimit-limit-requests", "60"], ["x-ratelimit-reset-tokens", "6m0s"]]);
 * assert.deepEqual(readOpenAiLimits(h), {
 *   limit_requests: 60, remaining_requests: null, limit_tokens: null, remaining_tokens: null,
 *   reset_requests_ms: null, reset_tokens_ms: 360_000,
 * });
 * assert.equal(readOpenAiLimits(new Map()), null);
 * ```
 */
export function readOpenAiLimits(headers: ReadonlyMap<string, string>): ProviderLimits | null {
  if (!OPENAI_LIMIT_HEADERS.some((h) => headers.has(h))) return null;
  const reset = (name: string) => {
    const v = headers.get(name);
    return v === undefined ? null : parseDurationMs(v);
  };
  return {
    limit_requests: count(headers.get("x-ratelimit-limit-requests")),
    remaining_requests: count(headers.get("x-ratelimit-remaining-requests")),
    limit_tokens: count(headers.get("x-ratelimit-limit-tokens")),
    remaining_tokens: count(headers.get("x-ratelimit-remaining-tokens")),
    reset_requests_ms: reset("x-ratelimit-reset-requests"),
    reset_tokens_ms: reset("x-ratelimit-reset-tokens"),
  };
}
