/**
 * When a run supports a percentile claim: MLPerf LoadGen's early-stopping
 * criterion, derived here from its definition (docs/percentiles.md).
 *
 * The claim "the p-percentile of the latency is ≤ B" fails exactly when the
 * true share of requests above B is more than 1 − p. With n independent
 * samples of which k are above B (overlatency), the number X of samples
 * above B is binomial(n, 1 − p) in the boundary case where the claim just
 * fails, and it is stochastically larger when the claim fails by more. So
 * P[X ≤ k | n, 1 − p] is the largest chance that a failing claim shows as
 * few as k overlatency samples; when it is ≤ 1 − confidence the failing case
 * is rejected and the claim is supported at that one-sided confidence.
 * LoadGen uses confidence 0.99 and no tolerance (its `d` = 0).
 *
 * @module
 */
import { checkConfidence, checkP, percentLabel } from "./percentile_checks.ts";
import { percent, sig } from "./number_format.ts";

/** The default one-sided confidence of the supported rule: LoadGen's 99 %. */
export const DEFAULT_SUPPORT_CONFIDENCE = 0.99;

/** Options of the early-stopping functions. */
export interface EarlyStoppingOptions {
  /** One-sided confidence level, in (0, 1). @default {0.99} */
  confidence?: number;
}

function confidenceOf(options: EarlyStoppingOptions): number {
  const c = options.confidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  checkConfidence(c);
  return c;
}

function checkCount(name: string, v: number): void {
  if (!(Number.isInteger(v) && v >= 0)) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
}

/** ln(eᵃ + eᵇ) without overflow. */
function logAdd(a: number, b: number): number {
  if (a === -Infinity) return b;
  const [hi, lo] = a > b ? [a, b] : [b, a];
  return hi + Math.log1p(Math.exp(lo - hi));
}

/**
 * ln P[X ≤ k], X ~ binomial(n, 1 − p): the terms ln P[X = x] from x = 0
 * (n·ln p) upwards by the ratio C(n, x+1)/C(n, x) · (1 − p)/p, summed in log
 * space, so nothing underflows for n in the millions. O(k).
 */
function logOdds(n: number, k: number, p: number): number {
  if (k >= n || p === 1) return 0; // every outcome is ≤ k, or X = 0 surely
  const step = Math.log1p(-p) - Math.log(p);
  let term = n * Math.log(p);
  let sum = term;
  for (let x = 0; x < k; x++) {
    term += Math.log((n - x) / (x + 1)) + step;
    sum = logAdd(sum, term);
  }
  return sum;
}

/** The criterion for one (n, k): its probability and whether it is met. */
export interface EarlyStoppingTest {
  /** P[X ≤ k | n, 1 − p]: the chance that a just-failing claim shows k or fewer overlatency samples. */
  odds: number;
  /** odds ≤ 1 − confidence. */
  supported: boolean;
}

/**
 * LoadGen's early-stopping test: with `n` samples of which `overlatency`
 * exceed the bound, the claim "p-percentile ≤ bound" is supported when
 * P[X ≤ overlatency | n, 1 − p] ≤ 1 − confidence.
 *
 * @example p99 with no sample above the bound: 459 samples suffice at 99 %, 458 do not
 * ```ts
 * import assert from "node:assert/strict";
 * import { earlyStopping } from "./early_stopping.ts";
 * // 0.99^459 = 0.00992 ≤ 0.01; 0.99^458 = 0.01002 > 0.01
 * assert.equal(earlyStopping(0.99, { n: 459, overlatency: 0 }).supported, true);
 * assert.equal(earlyStopping(0.99, { n: 458, overlatency: 0 }).supported, false);
 * ```
 */
export function earlyStopping(
  p: number,
  counts: { n: number; overlatency: number },
  options: EarlyStoppingOptions = {},
): EarlyStoppingTest {
  checkP(p);
  checkCount("n", counts.n);
  checkCount("overlatency", counts.overlatency);
  if (counts.overlatency > counts.n) {
    throw new RangeError(`overlatency ${counts.overlatency} exceeds n ${counts.n}`);
  }
  const c = confidenceOf(options);
  const log = logOdds(counts.n, counts.overlatency, p);
  return { odds: Math.exp(log), supported: log <= Math.log1p(-c) };
}

/**
 * The fewest samples n at which the claim is supported with `tolerated`
 * samples above the bound (the smallest n with P[X ≤ tolerated | n, 1 − p] ≤
 * 1 − confidence; LoadGen's h + t). Infinity for p = 1: no sample count
 * bounds the maximum.
 *
 * @example p99 at 99 %: 459 samples with none above the bound, 662 with one
 * ```ts
 * import assert from "node:assert/strict";
 * import { earlyStoppingMinSamples } from "./early_stopping.ts";
 * assert.equal(earlyStoppingMinSamples(0.99, 0), 459);
 * assert.equal(earlyStoppingMinSamples(0.99, 1), 662);
 * ```
 */
export function earlyStoppingMinSamples(p: number, tolerated: number, options: EarlyStoppingOptions = {}): number {
  checkP(p);
  checkCount("tolerated", tolerated);
  const c = confidenceOf(options);
  if (p === 1) return Infinity;
  const target = Math.log1p(-c);
  // P[X ≤ k | n] falls as n grows: double until it passes, then bisect (lo fails, hi passes).
  let lo = tolerated; // n = k: P = 1 > 1 − c
  let hi = Math.max(tolerated + 1, Math.ceil(target / Math.log(p)));
  while (logOdds(hi, tolerated, p) > target) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (logOdds(mid, tolerated, p) <= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The most samples above a bound that `n` samples tolerate: the largest k
 * with P[X ≤ k | n, 1 − p] ≤ 1 − confidence, or −1 when even k = 0 fails
 * (n is too small to support the percentile at all). O(k).
 *
 * @example 1000 samples tolerate 2 above the bound for p99 at 99 %
 * ```ts
 * import assert from "node:assert/strict";
 * import { earlyStoppingTolerance } from "./early_stopping.ts";
 * // earlyStoppingMinSamples(0.99, 2) = 838 ≤ 1000 < 1001 = earlyStoppingMinSamples(0.99, 3)
 * assert.equal(earlyStoppingTolerance(0.99, 1000), 2);
 * assert.equal(earlyStoppingTolerance(0.99, 458), -1);
 * ```
 */
export function earlyStoppingTolerance(p: number, n: number, options: EarlyStoppingOptions = {}): number {
  checkP(p);
  checkCount("n", n);
  const c = confidenceOf(options);
  if (p === 1 || n === 0) return -1;
  const target = Math.log1p(-c);
  const step = Math.log1p(-p) - Math.log(p);
  let term = n * Math.log(p);
  let sum = term;
  let k = -1;
  for (let x = 0; x < n && sum <= target; x++) {
    k = x;
    term += Math.log((n - x) / (x + 1)) + step;
    sum = logAdd(sum, term);
  }
  return k;
}

/** One row of {@linkcode earlyStoppingTable}. */
export interface MinSamplesRow {
  p: number;
  /** Samples above the bound that are tolerated. */
  tolerated: number;
  /** The fewest samples at which the claim is supported with that many above the bound. */
  min_n: number;
}

/**
 * The minimum sample count for each percentile and each tolerated count
 * 0..maxTolerated at one confidence: the table of docs/percentiles.md.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { earlyStoppingTable } from "./early_stopping.ts";
 * const t = earlyStoppingTable([0.9, 0.99], 1);
 * assert.deepEqual(t.map((r) => r.min_n), [44, 64, 459, 662]);
 * ```
 */
export function earlyStoppingTable(
  ps: readonly number[],
  maxTolerated: number,
  options: EarlyStoppingOptions = {},
): MinSamplesRow[] {
  checkCount("maxTolerated", maxTolerated);
  return ps.flatMap((p) =>
    Array.from({ length: maxTolerated + 1 }, (_, k) => ({
      p,
      tolerated: k,
      min_n: earlyStoppingMinSamples(p, k, options),
    }))
  );
}

/** The check of a claim "p-percentile ≤ bound" against samples. */
export interface PercentileClaimCheck {
  p: number;
  bound: number;
  n: number;
  /** Samples strictly above the bound. */
  overlatency: number;
  confidence: number;
  /** P[X ≤ overlatency | n, 1 − p]. */
  odds: number;
  supported: boolean;
  /** The fewest samples that would support the claim with this many above the bound (all further ones under it). */
  min_n: number;
  /** The verdict in words, with the arithmetic. */
  note: string;
}

/**
 * Checks the claim "the p-percentile is ≤ bound" against samples with
 * LoadGen's early-stopping test (a sample counts as overlatency when it is
 * strictly above the bound, as in LoadGen). NaN samples are refused.
 *
 * @example MLPerf's llama2-70b server TTFT bound, 2000 ms at p99
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileClaim } from "./early_stopping.ts";
 * const ttft = [...Array(700).fill(900), 2500]; // 701 samples, 1 above 2000
 * // P[X ≤ 1 | 701, 0.01] = 0.99^701 + 701 · 0.01 · 0.99^700 = 0.0071 ≤ 0.01
 * assert.equal(percentileClaim(ttft, { p: 0.99, bound: 2000 }).supported, true);
 * ```
 */
export function percentileClaim(
  values: ArrayLike<number>,
  claim: { p: number; bound: number },
  options: EarlyStoppingOptions = {},
): PercentileClaimCheck {
  const { p, bound } = claim;
  checkP(p);
  const c = confidenceOf(options);
  let over = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) throw new RangeError("percentileClaim: values contain NaN");
    if (v > bound) over++;
  }
  const n = values.length;
  const t = earlyStopping(p, { n, overlatency: over }, { confidence: c });
  const min_n = earlyStoppingMinSamples(p, over, { confidence: c });
  const label = percentLabel(p);
  const arithmetic = `${over} of ${n} samples above ${bound}; P[X ≤ ${over} | n = ${n}, 1 − p = ${sig(1 - p, 6)}] = ${
    t.odds.toPrecision(3)
  } ${t.supported ? "≤" : ">"} ${sig(1 - c, 6)}`;
  const rule = `MLPerf LoadGen early stopping, ${percent(c)} one-sided confidence`;
  const note = t.supported
    ? `${label} ≤ ${bound} is supported (${rule}): ${arithmetic}`
    : `${label} ≤ ${bound} is not supported (${rule}): ${arithmetic}; with ${over} above the bound it needs at ` +
      `least ${min_n === Infinity ? "infinitely many" : min_n} samples`;
  return { p, bound, n, overlatency: over, confidence: c, odds: t.odds, supported: t.supported, min_n, note };
}

/**
 * The supported rule in words, with its confidence and the fewest samples
 * for each percentile: printed by every table or figure that shows
 * "UNSUPPORTED".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { supportRuleText } from "./early_stopping.ts";
 * assert.equal(
 *   supportRuleText([0.5, 0.99]),
 *   "supported = MLPerf LoadGen's early-stopping rule at 99 % one-sided confidence (n ≥ 7 for p50, 459 for p99)",
 * );
 * ```
 */
export function supportRuleText(ps: readonly number[], options: EarlyStoppingOptions = {}): string {
  const c = confidenceOf(options);
  const need = [...new Set(ps)].sort((a, b) => a - b).map((p) => {
    const n = earlyStoppingMinSamples(p, 0, { confidence: c });
    return `${n === Infinity ? "∞" : n} for ${percentLabel(p)}`;
  });
  return `supported = MLPerf LoadGen's early-stopping rule at ${percent(c)} one-sided confidence` +
    (need.length ? ` (n ≥ ${need.join(", ")})` : "");
}
