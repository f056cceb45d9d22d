import { sig } from "./number_format.ts";

/** Argument checks shared by the percentile and early-stopping functions (RangeError naming the value). */

/** A percentile as a fraction: 0 < p ≤ 1. */
export function checkP(p: number): void {
  if (!(p > 0 && p <= 1)) throw new RangeError(`percentile p must be in (0, 1], got ${p}`);
}

/** A confidence level: 0 < c < 1. */
export function checkConfidence(c: number, what = "confidence"): void {
  if (!(c > 0 && c < 1)) throw new RangeError(`${what} must be in (0, 1), got ${c}`);
}

/** "p99", "p99.9", "p50": the percentile's label (p × 100 to 6 significant digits). */
export function percentLabel(p: number): string {
  return `p${sig(p * 100, 6)}`;
}
