/**
 * The bounds of `--start-at`: a start the runner can wait for. A date more
 * than {@linkcode START_AT_PAST_MS} in the past would start at once, not at the
 * time given (shards started on other machines would not be aligned); one more
 * than {@linkcode START_AT_MAX_AHEAD_MS} ahead is beyond the range of a timer
 * (setTimeout's delay is a signed 32-bit count of ms: a longer one fires at
 * once).
 *
 * @module
 */

/** How far in the past `--start-at` may be (it then starts at once): 1 s, for a time computed just before. */
export const START_AT_PAST_MS = 1000;

/** How far ahead `--start-at` may be: 2^31 − 1 ms (24.8 days), the longest timer delay. */
export const START_AT_MAX_AHEAD_MS = 2 ** 31 - 1;

/** `--start-at`'s allowed values in words (the flag table). */
export const START_AT_VALUES = "an ISO date-time, at most 1 s in the past (it then starts at once) and at most " +
  "2^31 − 1 ms (24.8 days) ahead";

/**
 * The problem with a `--start-at` value at wall-clock time `now` (ms since 1970), or null.
 *
 * @example In the past, too far ahead, and good
 * ```ts
 * import assert from "node:assert/strict";
 * import { startAtProblem } from "./start_at.ts";
 * const now = Date.parse("2026-01-01T00:00:00Z");
 * assert.equal(startAtProblem("2026-01-01T00:00:10Z", now), null);
 * assert.match(startAtProblem("2025-12-31T23:59:00Z", now)!, /60 s in the past/);
 * // 2^31 − 1 ms = 24 d 20 h 31 min 23.647 s: 25 days ahead is beyond it
 * assert.match(startAtProblem("2026-01-26T00:00:00Z", now)!, /more than 2\^31 − 1 ms/);
 * ```
 */
export function startAtProblem(text: string, now: number): string | null {
  const at = Date.parse(text);
  if (Number.isNaN(at)) return `--start-at: not an ISO date-time: ${JSON.stringify(text)}`;
  const ahead = at - now;
  if (ahead < -START_AT_PAST_MS) {
    return `--start-at ${text}: ${seconds(-ahead)} s in the past (at most ${
      START_AT_PAST_MS / 1000
    } s allowed): it would start at once, not at that time`;
  }
  if (ahead > START_AT_MAX_AHEAD_MS) {
    return `--start-at ${text}: ${(ahead / 86_400_000).toFixed(1)} days ahead, more than 2^31 − 1 ms (24.8 days), ` +
      "the longest wait a timer allows";
  }
  return null;
}

const seconds = (ms: number) => String(Math.round(ms / 100) / 10);
