/**
 * Percentile methods the audit of a peer's headline searches: numpy's linear interpolation (AIPerf's, vLLM's, LLMPerf's,
 * inference-perf's), nearest rank (this toolkit's), the lower and higher closest ranks, and GuideLLM's inverse of its
 * cumulative distribution (the first value whose cumulative probability reaches p).
 *
 * @module
 */

/** How a percentile is taken from n sorted values. */
export type PercentileMethod =
  | "linear"
  | "nearest_rank"
  | "lower"
  | "higher"
  | "inverse_cdf"
  | "inverse_cdf_each"
  | "index_floor";

/** Words for each method, as stated in the audit. */
export const METHOD_TEXT: Record<PercentileMethod, string> = {
  linear: "linear interpolation between closest ranks (numpy.percentile default: x[(n−1)·p])",
  nearest_rank: "nearest rank x₍⌈p·n⌉₎ (this toolkit's)",
  lower: "the lower closest rank x[⌊(n−1)·p⌋]",
  higher: "the higher closest rank x[⌈(n−1)·p⌉]",
  inverse_cdf: "the first distinct value whose cumulative probability (running sum of count/n) reaches p " +
    "(GuideLLM ≥ 0.4 Percentiles.from_pdf: searchsorted(cumsum, p, 'left')); nearest rank up to float rounding",
  inverse_cdf_each: "the first value whose cumulative probability (running sum of 1/n per value) reaches p " +
    "(GuideLLM 0.3 from_distribution_function: argmax(cdf ≥ p)); nearest rank up to float rounding",
  index_floor: "the sorted value at index ⌊n·p⌋ (MLPerf LoadGen's, no interpolation)",
};

/** The first value at which a running float sum of `weights` (in the values' order) reaches p; the last if none. */
function inverseCdf(values: readonly number[], weights: readonly number[], p: number): number {
  let cum = 0;
  for (let i = 0; i < values.length; i++) {
    cum += weights[i]!;
    if (cum >= p) return values[i]!;
  }
  return values[values.length - 1]!;
}

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
  if (method === "index_floor") return sorted[Math.min(n - 1, Math.floor(n * p + 1e-9))]!;
  if (method === "inverse_cdf_each") return inverseCdf(sorted, sorted.map(() => 1 / n), p);
  if (method === "inverse_cdf") {
    // numpy.unique, then each distinct value's weight count / n, as GuideLLM's from_values does.
    const values: number[] = [];
    const counts: number[] = [];
    for (const x of sorted) {
      if (values.length && values[values.length - 1] === x) counts[counts.length - 1]!++;
      else values.push(x), counts.push(1);
    }
    return inverseCdf(values, counts.map((c) => c / n), p);
  }
  const h = (n - 1) * p;
  const lo = Math.floor(h + 1e-12);
  const hi = Math.min(n - 1, Math.ceil(h - 1e-12));
  if (method === "lower") return sorted[lo]!;
  if (method === "higher") return sorted[hi]!;
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}
