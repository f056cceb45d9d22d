/**
 * The precision a number was published at, read from its text: "3833.39" has 2 decimals (it stands for any value in
 * [3833.385, 3833.395]), "22020.9" 1, "3.09379e-08" 6 significant digits, "89" none. A value recomputed from the raw
 * data reproduces a published one when it lies within half a unit of the published text's last digit — not within an
 * arbitrary percentage. The audit (analysis/audit/) and the MLPerf LoadGen reader (its summary against its detail log)
 * compare this way.
 *
 * @module
 */

/** The precision of a published number's text. */
export interface Precision {
  /** The text as published (trimmed). */
  text: string;
  /** Its value. */
  value: number;
  /** Significant digits shown (at least 1; "0" and "0.000" count 1). */
  significant: number;
  /** Decimal places the last digit stands for: 2 for "1.25", 0 for "125", −3 for "1.25e5", 10 for "1.2e-9". */
  decimals: number;
  /** Half a unit of the last digit shown: 0.005 for "1.25"; a value within it of `value` rounds to the text. */
  half_unit: number;
}

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The precision of a number's text (decimal or exponent form). A RangeError names a text that is not a finite number.
 *
 * @example Decimals, significant digits and the half unit
 * ```ts
 * import assert from "node:assert/strict";
 * import { precisionOf } from "./published_precision.ts";
 * assert.deepEqual(precisionOf("22020.92"), { text: "22020.92", value: 22020.92, significant: 7, decimals: 2, half_unit: 0.005 });
 * assert.equal(precisionOf("22020.9").half_unit, 0.05);
 * assert.equal(precisionOf("3.09379e-08").decimals, 13);
 * assert.equal(precisionOf("89").half_unit, 0.5);
 * assert.equal(precisionOf("0.0500").significant, 3);
 * ```
 */
export function precisionOf(text: string): Precision {
  const t = text.trim();
  const m = NUMBER.exec(t);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new RangeError(`not a number: "${text}"`);
  const [, , int = "", frac = "", exp = "0"] = m;
  const value = Number(t);
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: "${text}"`);
  const decimals = frac.length - Number(exp);
  const digits = (int + frac).replace(/^0+/, "");
  return { text: t, value, significant: Math.max(1, digits.length), decimals, half_unit: 0.5 * 10 ** -decimals };
}

/**
 * The text a number carries when only the number is left (a JSON value parsed): JavaScript's shortest round-trip form,
 * the digits Python's `repr` and `json.dumps` print for the same float. Trailing zeros of a text source are lost.
 */
export function numberText(value: number): string {
  return String(value);
}

/**
 * Whether `value` lies within half a unit of `published`'s last digit, widened by `resolution` (how far the
 * recomputation itself may be off: the grid of the times it reads, its floating-point arithmetic). Ties count (a value
 * exactly half a unit away rounds either way), with a margin of 1e-12 of the values for the decimal half unit's own
 * binary error.
 *
 * @example 22020.92 at two decimals: 22020.924 rounds to it, 22020.926 does not
 * ```ts
 * import assert from "node:assert/strict";
 * import { precisionOf, withinPrecision } from "./published_precision.ts";
 * const p = precisionOf("22020.92");
 * assert.equal(withinPrecision(22020.924, p), true);
 * assert.equal(withinPrecision(22020.926, p), false);
 * assert.equal(withinPrecision(22020.926, p, 0.001), true);
 * ```
 */
export function withinPrecision(value: number, published: Precision, resolution = 0): boolean {
  if (!Number.isFinite(value)) return false;
  const slack = 1e-12 * Math.max(Math.abs(value), Math.abs(published.value));
  return Math.abs(value - published.value) <= published.half_unit + resolution + slack;
}

/**
 * Whether two printings of one number agree at the coarser of their two precisions: "22020.92" and "22020.9" do (at
 * one decimal 22020.92 is 22020.9), "29.41" and "29.4065" do (at two decimals 29.4065 is 29.41), "29.41" and "31.2"
 * do not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { agreeAtCoarser } from "./published_precision.ts";
 * assert.equal(agreeAtCoarser("22020.92", "22020.9"), true);
 * assert.equal(agreeAtCoarser("29.41", "29.4065"), true);
 * assert.equal(agreeAtCoarser("29.41", "31.2"), false);
 * ```
 */
export function agreeAtCoarser(a: string, b: string): boolean {
  const pa = precisionOf(a);
  const pb = precisionOf(b);
  const coarse = pa.half_unit >= pb.half_unit ? pa : pb;
  const fine = coarse === pa ? pb : pa;
  return withinPrecision(fine.value, coarse);
}
