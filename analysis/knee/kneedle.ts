/**
 * Kneedle (Satopää, Albrecht, Irwin, Raghavan: "Finding a 'Kneedle' in a
 * Haystack: Detecting Knee Points in System Behavior", ICDCS workshops 2011),
 * written from the paper's definition:
 *
 * 1. Normalise x and y to [0, 1].
 * 2. Bring the curve to the concave increasing shape the method assumes:
 *    a convex curve is flipped vertically (y ↦ 1 − y), a decreasing one
 *    horizontally (x ↦ 1 − x, the points then read in reverse order).
 * 3. Difference curve: y_d = y_n − x_n. Its local maxima are the candidates.
 * 4. Each local maximum sets a threshold T = y_d(max) − S · mean(Δx_n);
 *    a local minimum resets the threshold to 0. The candidate is a knee when
 *    the difference curve falls below its threshold before the next maximum.
 *
 * Offline mode returns the first knee; online mode keeps scanning and
 * returns the last one. No smoothing is applied (the raw points are used).
 *
 * Two options, both off by default (the paper's and kneed's behaviour), are
 * for curves that are not concave increasing throughout — the knee analysis
 * uses both on accepted goodput (analysis/knee/knee.ts): `yRange` normalises
 * y over a given range instead of y's own minimum and maximum (points
 * outside it fall outside [0, 1]); `interior` never takes the scan's first
 * point as a knee (its difference is a local maximum only when the curve
 * starts below its chord — a slow start, not a bend).
 *
 * @module
 */

/** Options of {@linkcode kneedle}. */
export interface KneedleOptions {
  /** Shape of the curve. @default "concave" */
  curve?: "concave" | "convex";
  /** Whether y rises or falls with x. @default "increasing" */
  direction?: "increasing" | "decreasing";
  /** Sensitivity S: larger waits for a clearer knee. @default 1 */
  S?: number;
  /** Keep scanning after the first knee and return the last. @default false */
  online?: boolean;
  /** Normalise y over [min, max] instead of y's own minimum and maximum; max > min. @default y's own */
  yRange?: { min: number; max: number };
  /** The scan's first point is not a candidate (a knee needs points on both sides). @default false */
  interior?: boolean;
}

/** A knee, its neighbourhood and the evidence: the transformed curve, the candidates and their thresholds. */
export interface KneedleResult {
  /** x of the knee (original units), null when none is found. */
  knee: number | null;
  /** y of the knee (original units). */
  knee_y: number | null;
  /** Index of the knee in the input arrays. */
  knee_index: number | null;
  /** x_n of the knee in the transformed, normalised space. */
  norm_knee: number | null;
  /** y_n of the knee in the transformed, normalised space. */
  norm_knee_y: number | null;
  /** Every knee found (x, ascending); offline mode stops at the first. */
  all_knees: number[];
  /** Normalised x and y after the shape transform, in scan order. */
  x_normalized: number[];
  y_normalized: number[];
  /** The difference curve y_n − x_n, in scan order. */
  y_difference: number[];
  /** Scan-order indices of the difference curve's local maxima and their thresholds. */
  maxima: { index: number; threshold: number }[];
  /** Why no knee was found; null when one was. */
  note: string | null;
  curve: "concave" | "convex";
  direction: "increasing" | "decreasing";
  S: number;
  online: boolean;
  /** The range y was normalised over (y's own minimum and maximum unless `yRange` was given); null for < 3 points. */
  y_range: { min: number; max: number } | null;
  interior: boolean;
}

function normalise(v: number[], lo = Math.min(...v), hi = Math.max(...v)): number[] | null {
  if (!(hi > lo)) return null;
  return v.map((x) => (x - lo) / (hi - lo));
}

/** Local extrema with plateaus included (≥ / ≤ both neighbours; an end compares with its one neighbour). */
function extrema(y: number[], cmp: (a: number, b: number) => boolean): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < y.length; i++) {
    const left = y[Math.max(0, i - 1)]!, right = y[Math.min(y.length - 1, i + 1)]!;
    if (cmp(y[i]!, left) && cmp(y[i]!, right)) out.add(i);
  }
  return out;
}

/**
 * Finds the knee (or elbow) of a curve with Kneedle. `x` must be strictly
 * increasing and `y` the same length; both finite. Returns the knee with the
 * evidence (difference curve, maxima, thresholds) and a note when none is found.
 *
 * @example The Kneedle paper's figure 2 curve, y = −1/x + 5 sampled on 10 points: the knee at x ≈ 0.22
 * ```ts
 * import assert from "node:assert/strict";
 * import { kneedle } from "./kneedle.ts";
 * const x = Array.from({ length: 10 }, (_, i) => i / 9);
 * const y = x.map((v) => -1 / (v + 0.1) + 5);
 * assert.ok(Math.abs(kneedle(x, y, { curve: "concave" }).knee! - 0.2222) < 1e-3);
 * ```
 */
export function kneedle(x: readonly number[], y: readonly number[], options: KneedleOptions = {}): KneedleResult {
  const curve = options.curve ?? "concave";
  const direction = options.direction ?? "increasing";
  const S = options.S ?? 1;
  const online = options.online ?? false;
  if (x.length !== y.length) throw new RangeError(`kneedle: x has ${x.length} points but y has ${y.length}`);
  if (![...x, ...y].every(Number.isFinite)) throw new RangeError("kneedle: x and y must be finite numbers");
  for (let i = 1; i < x.length; i++) {
    if (!(x[i]! > x[i - 1]!)) throw new RangeError(`kneedle: x must be strictly increasing (x[${i}] = ${x[i]})`);
  }
  if (!(S >= 0)) throw new RangeError(`kneedle: S must be ≥ 0, got ${S}`);
  const range = options.yRange;
  if (range && !(Number.isFinite(range.min) && Number.isFinite(range.max) && range.max > range.min)) {
    throw new RangeError(`kneedle: yRange must have finite min < max, got [${range.min}, ${range.max}]`);
  }
  const interior = options.interior ?? false;
  const base: KneedleResult = {
    knee: null,
    knee_y: null,
    knee_index: null,
    norm_knee: null,
    norm_knee_y: null,
    all_knees: [],
    x_normalized: [],
    y_normalized: [],
    y_difference: [],
    maxima: [],
    note: null,
    curve,
    direction,
    S,
    online,
    y_range: null,
    interior,
  };
  const n = x.length;
  if (n < 3) return { ...base, note: `${n} points: at least 3 are needed for a knee` };
  const y_range = range ?? { min: Math.min(...y), max: Math.max(...y) };
  const xn = normalise([...x]), yn = normalise([...y], y_range.min, y_range.max);
  if (!xn || !yn) return { ...base, y_range, note: "flat curve: y does not vary, so it has no knee" };

  // Shape transform to concave increasing; `flipX` reverses the scan order.
  const flipX = (curve === "concave") !== (direction === "increasing");
  const order = Array.from({ length: n }, (_, k) => (flipX ? n - 1 - k : k));
  const xs = order.map((i) => (flipX ? 1 - xn[i]! : xn[i]!));
  const ys = order.map((i) => (curve === "convex" ? 1 - yn[i]! : yn[i]!));
  const yd = ys.map((v, k) => v - xs[k]!);

  const maxIdx = extrema(yd, (a, b) => a >= b);
  if (interior) maxIdx.delete(0);
  const minIdx = extrema(yd, (a, b) => a <= b);
  const meanStep = Math.abs((xs[n - 1]! - xs[0]!) / (n - 1));
  const maxima = [...maxIdx].sort((a, b) => a - b).map((index) => ({ index, threshold: yd[index]! - S * meanStep }));
  const evidence = { ...base, y_range, x_normalized: xs, y_normalized: ys, y_difference: yd, maxima };
  if (!maxima.length) return { ...evidence, note: "the difference curve has no local maximum" };

  const found: number[] = []; // scan indices, in detection order
  let threshold = 0;
  let candidate = 0;
  let m = 0;
  for (let k = maxima[0]!.index; k < n - 1; k++) {
    if (maxIdx.has(k)) {
      threshold = maxima[m]!.threshold;
      candidate = k;
      m++;
    }
    if (minIdx.has(k)) threshold = 0;
    if (yd[k + 1]! < threshold) {
      if (!found.includes(candidate)) found.push(candidate);
      if (!online) break;
    }
  }
  if (!found.length) {
    return { ...evidence, note: `the difference curve never falls below a maximum's threshold (S = ${S})` };
  }
  const k = found[found.length - 1]!;
  const i = order[k]!;
  return {
    ...evidence,
    knee: x[i]!,
    knee_y: y[i]!,
    knee_index: i,
    norm_knee: xs[k]!,
    norm_knee_y: ys[k]!,
    all_knees: found.map((s) => x[order[s]!]!).sort((a, b) => a - b),
  };
}
