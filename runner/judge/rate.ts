/**
 * `--rate`: items started per second, written `5/s`, `120/min`, `3600/h` or a bare number (per second).
 *
 * @module
 */

const SECONDS: Record<string, number> = { s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/**
 * The rate in items per second, or a problem naming the forms accepted.
 *
 * @example
 * ```ts
 * import { parseJudgeRate } from "./rate.ts";
 * import assert from "node:assert/strict";
 * assert.equal(parseJudgeRate("5/s"), 5);
 * assert.equal(parseJudgeRate("120/min"), 2);
 * assert.equal(parseJudgeRate("0.5"), 0.5);
 * assert.match(String(parseJudgeRate("fast")), /expected/);
 * ```
 */
export function parseJudgeRate(text: string): number | string {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(text);
  const unit = m?.[2]?.toLowerCase() ?? "s";
  const seconds = SECONDS[unit];
  const n = m ? Number(m[1]) / (seconds ?? NaN) : NaN;
  if (Number.isFinite(n) && n > 0 && n <= 10_000) return n;
  return `expected a rate above 0 and at most 10000/s, written like 5/s, 120/min, 3600/h or 2, got ${
    JSON.stringify(text)
  }`;
}
