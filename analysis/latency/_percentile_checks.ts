/** Argument checks shared by the percentile and early-stopping functions (RangeError naming the value). */

/** A percentile as a fraction: 0 < p ≤ 1. */
export function checkP(p: number): void {
  if (!(p > 0 && p <= 1)) throw new RangeError(`percentile p must be in (0, 1], got ${p}`);
}

/** A confidence level: 0 < c < 1. */
export function checkConfidence(c: number, what = "confidence"): void {
  if (!(c > 0 && c < 1)) throw new RangeError(`${what} must be in (0, 1), got ${c}`);
}

/** "p99", "p99.9", "p50": the percentile's label. */
export function percentLabel(p: number): string {
  return `p${Number((p * 100).toPrecision(6))}`;
}

/** "99 %", "97.5 %": a confidence level in words. */
export function percentText(c: number): string {
  return `${Number((c * 100).toPrecision(6))} %`;
}
