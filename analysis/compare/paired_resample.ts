/**
 * Paired resampling of runs made on one schedule: the same draws of the
 * schedule (time blocks, or request positions) for every run, so a statistic's
 * difference between two routes is resampled on the same arrivals.
 *
 * The schedule is cut into strata, one per stage of the run (a stage keeps its
 * length and rate in every resample: the plan is fixed, only the outcomes
 * vary). Units are either one-second bins of scheduled time (`blocks`,
 * seconds counted from the stage's start, as the knee's block bootstrap counts
 * them) drawn as moving blocks of `block_units` consecutive bins (Künsch 1989:
 * ⌈n / L⌉ block starts uniform in [0, n − L], the last block cut to the
 * stage's n bins), or the stage's requests in schedule order (`requests`: an
 * arrival resampled with its position). Draws come from mulberry32(seed): for
 * each resample, each stratum in stage order, each block's start
 * ⌊u · (n − L + 1)⌋. A resample is a count per unit; a statistic
 * (a + Σ count·num) / (b + Σ count·den) is re-summed over it.
 *
 * @module
 */
import { mulberry32 } from "../../lib/prng.ts";
import { BLOCK_MS } from "../knee/block_bootstrap.ts";

/** One stratum: a stage of the schedule and how many units it has. */
export interface Stratum {
  stage: string;
  start_ms: number;
  end_ms: number;
  units: number;
}

/** How units are made and drawn. */
export interface ResampleScheme {
  /** `blocks`: one-second bins drawn as moving blocks; `requests`: each request its own unit. */
  unit: "blocks" | "requests";
  /** Units per block (1 for `requests`). */
  block_units: number;
}

/** The units of a run: its strata and each used request's unit (global index). */
export interface UnitLayout {
  strata: Stratum[];
  /** request_id → its unit's index over all strata (stratum offsets added). */
  unit_of: Map<string, number>;
  /** `requests` only: each unit's key (`request_id@scheduled_ms`), for checking that two runs pair. */
  keys: string[];
  total_units: number;
}

/** A request as the layout needs it. */
export interface UnitRequest {
  request_id: string;
  stage: string;
  scheduled_ms: number;
}

/** One-second bins (the knee's block, lib/percentile_support.ts). */
export const BIN_MS = BLOCK_MS;

/**
 * The units of the strata `stages` (in the order given) and the unit of each
 * of `requests` (each must be of one of them): `blocks`, a stage's seconds
 * (⌈length / 1 s⌉ bins, a request in the bin of its scheduled time); `requests`,
 * the stage's requests in (scheduled_ms, request_id) order.
 */
export function unitLayout(
  stages: readonly { name: string; start_ms: number; end_ms: number }[],
  requests: readonly UnitRequest[],
  scheme: ResampleScheme,
): UnitLayout {
  const byStage = new Map<string, UnitRequest[]>();
  for (const r of requests) byStage.set(r.stage, [...(byStage.get(r.stage) ?? []), r]);
  const unknown = [...byStage.keys()].filter((s) => !stages.some((x) => x.name === s));
  if (unknown.length) throw new RangeError(`requests of stage(s) ${unknown.join(", ")} are in no stratum`);
  const strata: Stratum[] = [];
  const unit_of = new Map<string, number>();
  const keys: string[] = [];
  let offset = 0;
  for (const s of stages) {
    const rows = byStage.get(s.name) ?? [];
    if (scheme.unit === "blocks") {
      const units = Math.max(1, Math.ceil((s.end_ms - s.start_ms) / BIN_MS));
      for (const r of rows) {
        const bin = Math.min(units - 1, Math.max(0, Math.floor((r.scheduled_ms - s.start_ms) / BIN_MS)));
        unit_of.set(r.request_id, offset + bin);
      }
      strata.push({ stage: s.name, start_ms: s.start_ms, end_ms: s.end_ms, units });
      offset += units;
    } else {
      const sorted = [...new Map(rows.map((r) => [r.request_id, r])).values()]
        .sort((a, b) => a.scheduled_ms - b.scheduled_ms || (a.request_id < b.request_id ? -1 : 1));
      sorted.forEach((r, i) => {
        unit_of.set(r.request_id, offset + i);
        keys.push(`${r.request_id}@${r.scheduled_ms}`);
      });
      strata.push({ stage: s.name, start_ms: s.start_ms, end_ms: s.end_ms, units: sorted.length });
      offset += sorted.length;
    }
  }
  return { strata, unit_of, keys, total_units: offset };
}

/**
 * Fills `counts` (one per unit, over all strata) with one resample: per
 * stratum of n units, ⌈n / L⌉ blocks of L = min(block_units, n) consecutive
 * units, each starting at ⌊rand() · (n − L + 1)⌋, the last cut so the
 * stratum gets n units.
 *
 * @example One stratum of 5 units in blocks of 2: 3 starts, 5 units drawn
 * ```ts
 * import assert from "node:assert/strict";
 * import { drawResample } from "./paired_resample.ts";
 * const counts = new Float64Array(5);
 * const u = [0.99, 0, 0.1];
 * drawResample([{ stage: "s", start_ms: 0, end_ms: 5000, units: 5 }], 2, () => u.shift()!, counts);
 * assert.deepEqual([...counts], [2, 1, 0, 1, 1]); // starts 3, 0, 0 (the last block cut to 1 unit)
 * ```
 */
export function drawResample(
  strata: readonly Stratum[],
  blockUnits: number,
  rand: () => number,
  counts: Float64Array,
): void {
  counts.fill(0);
  let offset = 0;
  for (const s of strata) {
    const n = s.units;
    if (n > 0) {
      const L = Math.min(blockUnits, n);
      let filled = 0;
      while (filled < n) {
        const start = Math.floor(rand() * (n - L + 1));
        const take = Math.min(L, n - filled);
        for (let t = 0; t < take; t++) counts[offset + start + t]!++;
        filled += take;
      }
    }
    offset += n;
  }
}

/** A ratio over units: (num_const + Σ count·num) / (den_const + Σ count·den); `den` null: den_const alone. */
export interface UnitRatio {
  num: Float64Array;
  num_const: number;
  den: Float64Array | null;
  den_const: number;
}

/** The ratio under `counts` (every unit once when not given); x / 0 is ±Infinity, 0 / 0 NaN. */
export function ratioValue(r: UnitRatio, counts?: Float64Array): number {
  let num = r.num_const, den = r.den_const;
  for (let u = 0; u < r.num.length; u++) {
    const c = counts ? counts[u]! : 1;
    if (c === 0) continue;
    num += c * r.num[u]!;
    if (r.den) den += c * r.den[u]!;
  }
  return num / den;
}

/**
 * `resamples` values of each ratio of each group, the groups drawing in step:
 * every group's ratios see the same counts in a resample (`paired`: one
 * group, one stream from `seed`); with several groups (unpaired runs), group
 * g draws its own stream from `seed + g`.
 */
export function resampleRatios(
  groups: readonly { strata: readonly Stratum[]; ratios: readonly UnitRatio[] }[],
  options: { resamples: number; seed: number; block_units: number },
): Float64Array[][] {
  return groups.map((g, gi) => {
    const rand = mulberry32(options.seed + gi);
    const total = g.strata.reduce((s, x) => s + x.units, 0);
    const counts = new Float64Array(total);
    const out = g.ratios.map(() => new Float64Array(options.resamples));
    for (let b = 0; b < options.resamples; b++) {
      drawResample(g.strata, options.block_units, rand, counts);
      g.ratios.forEach((r, k) => out[k]![b] = ratioValue(r, counts));
    }
    return out;
  });
}

/** A bootstrap interval: the percentile interval at `level`, the resamples' sd, and how many were undefined. */
export interface BootInterval {
  lo: number | null;
  hi: number | null;
  /** Standard deviation of the finite resampled values (n − 1). */
  sd: number | null;
  /** Resamples whose value is not a number (0 / 0: nothing in the denominator), left out. */
  undefined: number;
}

/**
 * The two-sided percentile interval at `level` of resampled values: the
 * ⌊(1 − level)/2 · m⌋-th and (⌈(1 + level)/2 · m⌉ − 1)-th of the m sorted
 * defined values (0-based; as the knee's percentileInterval at 95 %), a
 * non-finite end null; NaN values left out and counted.
 *
 * @example 95 % of 0..999: the 25th and the 974th
 * ```ts
 * import assert from "node:assert/strict";
 * import { bootInterval } from "./paired_resample.ts";
 * const v = Float64Array.from({ length: 1000 }, (_, i) => i);
 * const i = bootInterval(v, 0.95);
 * assert.deepEqual([i.lo, i.hi], [25, 974]);
 * ```
 */
export function bootInterval(values: Float64Array, level: number): BootInterval {
  const s = values.filter((v) => !Number.isNaN(v)).sort();
  const undef = values.length - s.length;
  if (!s.length) return { lo: null, hi: null, sd: null, undefined: undef };
  const m = s.length;
  const lo = s[Math.floor((1 - level) / 2 * m + 1e-9)]!;
  const hi = s[Math.min(m - 1, Math.ceil((1 + level) / 2 * m - 1e-9) - 1)]!;
  const finite = s.filter((v) => Number.isFinite(v));
  let sd: number | null = null;
  if (finite.length > 1) {
    const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
    sd = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / (finite.length - 1));
  }
  return { lo: Number.isFinite(lo) ? lo : null, hi: Number.isFinite(hi) ? hi : null, sd, undefined: undef };
}
