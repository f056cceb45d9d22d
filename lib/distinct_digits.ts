/**
 * How many significant digits a set of figures needs so that two different
 * figures never print alike: the fewest digits, from a floor up, at which
 * {@linkcode sig} gives every distinct value its own text.
 *
 * @module
 */
import { sig } from "./number_format.ts";

/** Options of {@linkcode distinctDigits}. */
export interface DistinctDigitsOptions {
  /** The fewest digits shown. @default 3 */
  min?: number;
  /** The most digits shown (17 tells any two doubles apart). @default 17 */
  max?: number;
}

/**
 * The fewest significant digits in [min, max] at which every two different
 * finite values of `values` print differently with {@linkcode sig} (missing
 * and non-finite values are left out; equal values may print alike).
 *
 * @example 0.03481 and 0.03492 need 3 digits; 0.03481 and 0.03483 need 4
 * ```ts
 * import assert from "node:assert/strict";
 * import { distinctDigits } from "./distinct_digits.ts";
 * assert.equal(distinctDigits([0.03481, 0.03492]), 3);
 * assert.equal(distinctDigits([0.03481, 0.03483, null]), 4);
 * assert.equal(distinctDigits([1, 1, 2]), 3);
 * assert.equal(distinctDigits([0.1 + 0.2, 0.3]), 17);
 * ```
 */
export function distinctDigits(
  values: readonly (number | null | undefined)[],
  options: DistinctDigitsOptions = {},
): number {
  const min = options.min ?? 3, max = options.max ?? 17;
  const distinct = [...new Set(values.filter((v): v is number => typeof v === "number" && Number.isFinite(v)))];
  for (let d = min; d < max; d++) {
    if (new Set(distinct.map((v) => sig(v, d))).size === distinct.length) return d;
  }
  return max;
}
