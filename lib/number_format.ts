/**
 * Numbers as text, the one set of formatters every text report, disclosure
 * and figure label uses: significant digits, fixed decimals, percentages.
 * A missing value (null, undefined, or not finite) prints as `missing`
 * ("-" unless the caller says otherwise).
 *
 * @module
 */

type Maybe = number | null | undefined;

const isMissing = (v: Maybe): v is null | undefined => v === null || v === undefined || !Number.isFinite(v);

/**
 * `v` to `digits` significant digits, as the shortest decimal that shows
 * them (trailing zeros dropped; exponent form only where JavaScript uses it).
 *
 * @example Four significant digits by default
 * ```ts
 * import { sig } from "./number_format.ts";
 * import assert from "node:assert/strict";
 * assert.equal(sig(1234.567), "1235");
 * assert.equal(sig(0.000123456), "0.0001235");
 * assert.equal(sig(2.5), "2.5");
 * assert.equal(sig(1 / 3, 6), "0.333333");
 * assert.equal(sig(null), "-");
 * assert.equal(sig(null, 4, "∞"), "∞");
 * ```
 */
export function sig(v: Maybe, digits = 4, missing = "-"): string {
  return isMissing(v) ? missing : String(Number(v.toPrecision(digits)));
}

/**
 * `v` with exactly `decimals` digits after the point.
 *
 * @example
 * ```ts
 * import { fixed } from "./number_format.ts";
 * import assert from "node:assert/strict";
 * assert.equal(fixed(2 / 3, 4), "0.6667");
 * assert.equal(fixed(10, 1), "10.0");
 * assert.equal(fixed(null, 2), "-");
 * ```
 */
export function fixed(v: Maybe, decimals: number, missing = "-"): string {
  return isMissing(v) ? missing : v.toFixed(decimals);
}

/**
 * A fraction as a percentage in words: × 100 to 6 significant digits, then " %".
 *
 * @example A confidence level
 * ```ts
 * import { percent } from "./number_format.ts";
 * import assert from "node:assert/strict";
 * assert.equal(percent(0.975), "97.5 %");
 * assert.equal(percent(0.07), "7 %"); // 0.07 × 100 = 7.000000000000001 before rounding
 * ```
 */
export function percent(fraction: number): string {
  return `${sig(fraction * 100, 6)} %`;
}
