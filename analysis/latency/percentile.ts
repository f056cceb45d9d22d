/**
 * Percentiles with their sample count and a distribution-free confidence
 * interval, and the flag for a percentile that n cannot support.
 *
 * Definitions (nearest rank): for n sorted values x₍₁₎ ≤ … ≤ x₍ₙ₎ and
 * 0 < p ≤ 1, the p-percentile is x₍ₖ₎ with k = ⌈p·n⌉.
 *
 * Interval: the number B of samples at or below the true p-quantile is
 * binomial(n, p), whatever the latency distribution. So
 * P(x₍ₗ₎ ≤ q ≤ x₍ᵤ₎) = P(l ≤ B ≤ u − 1) = F(u − 1) − F(l − 1) with F the
 * binomial CDF. We take the equal-tailed interval: l is the largest rank with
 * F(l − 1) ≤ α/2, u the smallest with F(u − 1) ≥ 1 − α/2 (α = 1 − confidence).
 *
 * Supported (MLPerf LoadGen's early-stopping rule, early_stopping.ts): the
 * percentile is supported when some order statistic bounds it from above at
 * the one-sided `supportConfidence` (default 0.99). With k samples above
 * x₍ₙ₋ₖ₎, "p-percentile ≤ x₍ₙ₋ₖ₎" is supported when
 * P[X ≤ k | n, 1 − p] ≤ 1 − c; that is F(n − k − 1) ≥ c, the same
 * order-statistic condition as the interval's upper end at one-sided c. So
 * `bound` is the smallest such x₍ₙ₋ₖ₎ (the largest tolerated k), and the
 * percentile is supported iff n ≥ earlyStoppingMinSamples(p, 0) (459 for p99
 * at 99 %). The interval's upper end is the same construction at one-sided
 * (1 + confidence)/2 (97.5 % for the 95 % interval), so with the defaults
 * upper ≤ bound.
 *
 * @module
 */
import { checkConfidence, checkP, percentLabel } from "./_percentile_checks.ts";
import { percent } from "../../lib/number_format.ts";
import { DEFAULT_SUPPORT_CONFIDENCE, earlyStoppingMinSamples } from "./early_stopping.ts";

/** A percentile with its sample count, confidence interval and support flag. */
export interface PercentileCI {
  /** The percentile asked for, as a fraction (0.99 = p99). */
  p: number;
  /** Nearest-rank value; null when there are no samples. */
  value: number | null;
  /** Sample count. */
  n: number;
  /** Confidence level of the interval. */
  confidence: number;
  /** Lower bound x₍lower_rank₎; null when no order statistic bounds it (lower_rank 0). */
  lower: number | null;
  /** Upper bound x₍upper_rank₎; null when no order statistic bounds it (upper_rank n + 1). */
  upper: number | null;
  /** 1-based rank of the lower bound; 0 = unbounded below. */
  lower_rank: number;
  /** 1-based rank of the upper bound; n + 1 = unbounded above. */
  upper_rank: number;
  /** One-sided confidence of the supported rule (LoadGen's early stopping). */
  support_confidence: number;
  /**
   * The early-stopping bound: the smallest x₍ᵣ₎ such that "p-percentile ≤ x₍ᵣ₎" is supported at
   * `support_confidence`; null when none is (not supported).
   */
  bound: number | null;
  /** 1-based rank of the bound; n + 1 = none. n − bound_rank samples lie above it (the tolerated count). */
  bound_rank: number;
  /** LoadGen's early-stopping rule: n is enough to bound the percentile at `support_confidence`. */
  supported: boolean;
  /** Why the percentile is not supported; null when it is. */
  note: string | null;
}

/** Options of {@linkcode percentileWithCI}. */
export interface PercentileOptions {
  /** Two-sided confidence level of the interval, in (0, 1). @default {0.95} */
  confidence?: number;
  /** One-sided confidence level of the supported rule and the bound, in (0, 1). @default {0.99} */
  supportConfidence?: number;
  /** Set when `values` is already sorted ascending, to skip the copy and sort. @default {false} */
  sorted?: boolean;
}

/**
 * Nearest-rank percentile of ascending values: x₍⌈p·n⌉₎ (NaN when empty).
 *
 * @example Median of four values
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentile } from "./percentile.ts";
 * // ⌈0.5 · 4⌉ = 2 → the 2nd smallest
 * assert.equal(percentile(new Float64Array([1, 2, 3, 4]), 0.5), 2);
 * ```
 */
export function percentile(sorted: Float64Array, p: number): number {
  checkP(p);
  const n = sorted.length;
  if (n === 0) return NaN;
  return sorted[nearestRank(n, p) - 1]!;
}

/**
 * Nearest-rank percentile of values in any order, x₍⌈p·n⌉₎ as {@linkcode percentile} gives it (NaN when empty), found
 * by selection in O(n) instead of a sort; `values` is reordered in place (partly sorted around the rank).
 *
 * @example The median and p95 of unsorted values
 * ```ts
 * import assert from "node:assert/strict";
 * import { selectPercentile } from "./percentile.ts";
 * const xs = new Float64Array([40, 10, 30, 20]);
 * // ⌈0.5 · 4⌉ = 2nd smallest = 20; ⌈0.95 · 4⌉ = 4th = 40
 * assert.deepEqual([selectPercentile(xs, 0.5), selectPercentile(xs, 0.95)], [20, 40]);
 * ```
 */
export function selectPercentile(values: Float64Array, p: number): number {
  checkP(p);
  const n = values.length;
  if (n === 0) return NaN;
  const k = nearestRank(n, p) - 1;
  let lo = 0, hi = n - 1;
  while (hi > lo) {
    // Hoare partition around the median of three; then keep the side that holds rank k.
    const mid = (lo + hi) >>> 1;
    const a = values[lo]!, b = values[mid]!, c = values[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    let i = lo, j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k]!;
  }
  return values[k]!;
}

/** ⌈p·n⌉, guarded against float noise (0.29·100 must give 29, not 30). */
function nearestRank(n: number, p: number): number {
  const exact = p * n;
  const rounded = Math.round(exact);
  const k = Math.abs(exact - rounded) < 1e-9 * Math.max(1, exact) ? rounded : Math.ceil(exact);
  return Math.min(n, Math.max(1, k));
}

/**
 * Equal-tailed order-statistic ranks [l, u] for the p-quantile of n samples.
 * Binomial probabilities are built by the ratio recurrence outwards from the
 * mode and normalised by their sum, so nothing under- or overflows for n in
 * the millions and the work is O(√n) (terms below 1e-18 of the mode are dropped).
 */
function ranks(n: number, p: number, alpha: number): { lower: number; upper: number } {
  if (p === 1) return { lower: n, upper: n + 1 }; // B = n surely: F(k) = 0 for k < n
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const ratio = p / (1 - p);
  const up: number[] = [1]; // weights for mode, mode+1, ...
  for (let k = mode; k < n; k++) {
    const w = up[up.length - 1]! * ((n - k) / (k + 1)) * ratio;
    if (w < 1e-18) break;
    up.push(w);
  }
  const down: number[] = []; // weights for mode-1, mode-2, ...
  let w = 1;
  for (let k = mode; k > 0; k--) {
    w = w * (k / (n - k + 1)) / ratio;
    if (w < 1e-18) break;
    down.push(w);
  }
  const first = mode - down.length;
  const pmf = new Float64Array(down.length + up.length);
  for (let i = 0; i < down.length; i++) pmf[down.length - 1 - i] = down[i]!;
  for (let i = 0; i < up.length; i++) pmf[down.length + i] = up[i]!;
  let total = 0;
  for (const v of pmf) total += v;
  // F(k) for k below `first` is < 1e-18 relative: treated as 0.
  let lower = first; // F(first − 1) ≈ 0 ≤ α/2, so rank `first` qualifies at least
  let upper = n + 1;
  let cdf = 0;
  for (let i = 0; i < pmf.length; i++) {
    cdf += pmf[i]! / total; // cdf = F(first + i)
    const k = first + i;
    if (cdf <= alpha / 2) lower = k + 1; // F((k+1) − 1) ≤ α/2
    if (cdf >= 1 - alpha / 2) {
      upper = k + 1; // F((k+1) − 1) ≥ 1 − α/2
      break;
    }
  }
  if (upper === n + 1 && first + pmf.length - 1 < n) upper = first + pmf.length; // mass beyond is < 1e-18
  return { lower: Math.max(lower, 0), upper: Math.min(upper, n + 1) };
}

/**
 * Nearest-rank percentile with n, a distribution-free confidence interval,
 * the early-stopping bound and the `supported` flag (see the module doc for
 * the definitions). NaN values are rejected: filter ineligible requests before.
 *
 * @example p50 of 20 samples
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileWithCI } from "./percentile.ts";
 * const r = percentileWithCI(Array.from({ length: 20 }, (_, i) => i + 1), 0.5);
 * assert.deepEqual([r.value, r.lower_rank, r.upper_rank, r.supported], [10, 6, 15, true]);
 * // One-sided 99 %: F(15) = 0.9941 ≥ 0.99 > F(14) = 0.9793 → bound rank 16, 4 samples above it
 * assert.deepEqual([r.bound, r.support_confidence], [16, 0.99]);
 * ```
 */
export function percentileWithCI(
  values: ArrayLike<number>,
  p: number,
  options: PercentileOptions = {},
): PercentileCI {
  checkP(p);
  const confidence = options.confidence ?? 0.95;
  checkConfidence(confidence);
  const support = options.supportConfidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  checkConfidence(support, "supportConfidence");
  const sorted = options.sorted && values instanceof Float64Array ? values : Float64Array.from(values);
  if (!options.sorted) sorted.sort();
  // An ascending sort puts NaN last, so one look finds any.
  if (sorted.length > 0 && Number.isNaN(sorted[sorted.length - 1]!)) {
    throw new RangeError("percentileWithCI: values contain NaN");
  }
  const n = sorted.length;
  const label = percentLabel(p);
  const need = earlyStoppingMinSamples(p, 0, { confidence: support });
  const needText = `MLPerf LoadGen's early-stopping rule at ${percent(support)} one-sided confidence needs at ` +
    `least ${need === Infinity ? "infinitely many" : need} samples`;
  if (n === 0) {
    return {
      p,
      value: null,
      n,
      confidence,
      lower: null,
      upper: null,
      lower_rank: 0,
      upper_rank: 1,
      support_confidence: support,
      bound: null,
      bound_rank: 1,
      supported: false,
      note: `${label} from 0 samples: no data; ${needText}`,
    };
  }
  const k = nearestRank(n, p);
  const { lower, upper } = ranks(n, p, 1 - confidence);
  // The bound: the interval's upper rank at one-sided `support` (α/2 = 1 − support).
  const boundRank = ranks(n, p, 2 * (1 - support)).upper;
  const supported = boundRank <= n;
  const what = k === n ? "is the sample maximum" : `is rank ${k} of ${n}`;
  const note = supported ? null : `${label} from ${n} samples ${what}; no order statistic bounds it: ${needText}`;
  return {
    p,
    value: sorted[k - 1]!,
    n,
    confidence,
    lower: lower >= 1 ? sorted[lower - 1]! : null,
    upper: upper <= n ? sorted[upper - 1]! : null,
    lower_rank: lower,
    upper_rank: upper,
    support_confidence: support,
    bound: supported ? sorted[boundRank - 1]! : null,
    bound_rank: boundRank,
    supported,
    note,
  };
}
