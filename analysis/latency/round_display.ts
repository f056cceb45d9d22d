/**
 * Rounding for display in the conservative direction only: a capacity or a
 * production limit is shown rounded down (never more than was measured), an
 * upper bound on a latency rounded up (never a tighter claim than the data
 * support). JSON always carries the exact value; only text is rounded.
 *
 * Differences below 10⁻¹² relative are float noise of the arithmetic that
 * made the value (3 × (1 − 0.3) = 2.0999999999999996), not a rounding, so
 * such a value shows as the display value it is noise around.
 *
 * @module
 */

const NOISE = 1e-12;

function roundSignificant(x: number, digits: number, direction: "down" | "up"): number {
  if (!(Number.isInteger(digits) && digits >= 1 && digits <= 15)) {
    throw new RangeError(`digits must be an integer in [1, 15], got ${digits}`);
  }
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  // Toward −∞ for a negative x is away from zero in magnitude.
  const magnitude = (x > 0) === (direction === "down") ? Math.floor : Math.ceil;
  const scale = digits - 1 - Math.floor(Math.log10(a));
  // Multiply or divide by an exact power of ten so `scaled` carries one rounding at most.
  const scaled = scale >= 0 ? a * 10 ** scale : a / 10 ** -scale;
  const nearest = Math.round(scaled);
  const m = Math.abs(scaled - nearest) <= NOISE * nearest ? nearest : magnitude(scaled);
  // Built from its decimal text, so 6787e-3 is the double nearest 6.787, not 6787 × 0.001.
  return Math.sign(x) * Number(`${m}e${-scale}`);
}

/**
 * The largest number of `digits` significant digits that is ≤ x (up to float
 * noise): how a capacity or a limit is displayed.
 *
 * @example 6.7875 req/s shows as 6.787, never 6.788
 * ```ts
 * import assert from "node:assert/strict";
 * import { roundDown } from "./round_display.ts";
 * assert.equal(roundDown(6.7875), 6.787);
 * assert.equal(roundDown(3 * (1 - 0.3)), 2.1); // 2.0999999999999996 is float noise around 2.1
 * ```
 */
export function roundDown(x: number, digits = 4): number {
  return roundSignificant(x, digits, "down");
}

/**
 * The smallest number of `digits` significant digits that is ≥ x (up to
 * float noise): how an upper bound is displayed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { roundUp } from "./round_display.ts";
 * assert.equal(roundUp(1234.01), 1235);
 * ```
 */
export function roundUp(x: number, digits = 4): number {
  return roundSignificant(x, digits, "up");
}
