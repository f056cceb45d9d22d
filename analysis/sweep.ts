/**
 * SLO sweeps as curves: accepted goodput and acceptance rate as functions of
 * a latency limit, computed in one pass (sort once, count by binary search).
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

/** Number of entries of ascending `sorted` that are ≤ x (upper bound). */
function countAtMost(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Accepted count, goodput and acceptance rate at every limit, in
 * O((n + k) log n): the eligible latencies are sorted once and each limit is
 * a binary search. `latencies` holds one entry per request that passed every
 * other condition; null or NaN = never accepted at any limit.
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
  const eligible = new Float64Array(latencies.length);
  let m = 0;
  for (let i = 0; i < latencies.length; i++) {
    const v = latencies[i];
    if (v !== null && v !== undefined && !Number.isNaN(v)) eligible[m++] = v;
  }
  if (m > denominator) {
    throw new RangeError(`sloSweep: ${m} eligible latencies exceed the denominator ${denominator}`);
  }
  const sorted = eligible.subarray(0, m).sort();
  const k = limits.length;
  const curve: SweepCurve = {
    limit_ms: Float64Array.from(limits),
    accepted: new Float64Array(k),
    accepted_goodput: new Float64Array(k),
    acceptance_rate: new Float64Array(k),
    eligible: m,
    denominator,
    measurement_seconds,
    rule: "accepted at a limit = latency ≤ limit (inclusive); requests without a latency count in the denominator only",
  };
  for (let i = 0; i < k; i++) {
    const limit = curve.limit_ms[i]!;
    if (Number.isNaN(limit)) throw new RangeError(`sloSweep: limit ${i} is NaN`);
    const a = countAtMost(sorted, limit);
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
