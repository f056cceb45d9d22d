/**
 * Percentile methods the audit of a peer's headline searches: numpy's linear interpolation (the tools'), nearest rank
 * (this toolkit's), and the lower and higher closest ranks.
 *
 * @module
 */

/** How a percentile is taken from n sorted values. */
export type PercentileMethod = "linear" | "nearest_rank" | "lower" | "higher";

/** Words for each method, as stated in the audit. */
export const METHOD_TEXT: Record<PercentileMethod, string> = {
  linear: "linear interpolation between closest ranks (numpy.percentile default: x[(n−1)·p])",
  nearest_rank: "nearest rank x₍⌈p·n⌉₎ (this toolkit's)",
  lower: "the lower closest rank x[⌊(n−1)·p⌋]",
  higher: "the higher closest rank x[⌈(n−1)·p⌉]",
};

/** A percentile of ascending values by `method` (NaN when empty); p in (0, 1]. */
export function percentileBy(sorted: readonly number[], p: number, method: PercentileMethod): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (method === "nearest_rank") {
    const exact = p * n;
    const r = Math.round(exact);
    const k = Math.abs(exact - r) < 1e-9 * Math.max(1, exact) ? r : Math.ceil(exact);
    return sorted[Math.min(n, Math.max(1, k)) - 1]!;
  }
  const h = (n - 1) * p;
  const lo = Math.floor(h + 1e-12);
  const hi = Math.min(n - 1, Math.ceil(h - 1e-12));
  if (method === "lower") return sorted[lo]!;
  if (method === "higher") return sorted[hi]!;
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}
