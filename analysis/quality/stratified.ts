/**
 * A pass rate estimated from a stratified random sample drawn without
 * replacement, the sample size a target interval width needs, and the
 * allocation of a total sample to strata.
 *
 * Estimate (Cochran 1977, §5.8): with N_h items in stratum h, n_h sampled
 * and a share p_h of them passing, W_h = N_h / N,
 *
 *   p̂ = Σ W_h p_h,  v(p̂) = Σ W_h² (1 − n_h/N_h) p_h(1 − p_h)/(n_h − 1),
 *
 * v unbiased for the variance of p̂ over the draws; interval p̂ ± z·√v.
 *
 * @module
 */
import { z } from "zod";
import { normalQuantile } from "../../lib/normal_quantile.ts";
import { Count, Level, parseOr } from "./_validate.ts";

/** One stratum's population and sample. */
export const StratumSample = z.object({
  name: z.string().min(1),
  /** N_h: items in the stratum. */
  population: Count,
  /** n_h: items drawn (without replacement) and checked. */
  sampled: Count,
  /** Items of the sample that passed. */
  passed: Count,
}).strict();
/** One stratum's population and sample. */
export type StratumSample = z.infer<typeof StratumSample>;

/** Options of {@linkcode stratifiedProportion}. */
export const StratifiedOptions = z.object({
  /** Two-sided confidence level. @default {0.95} */
  level: Level.default(0.95),
}).strict();
/** Options of {@linkcode stratifiedProportion}. */
export type StratifiedOptions = z.input<typeof StratifiedOptions>;

/** One stratum's part of a {@linkcode StratifiedResult}. */
export interface StratumEstimate extends StratumSample {
  /** W_h = N_h / N. */
  weight: number;
  /** p_h = passed / sampled; null for an empty stratum (population 0). */
  estimate: number | null;
  /** 1 − n_h/N_h, the finite-population correction. */
  fpc: number;
  /** W_h² (1 − n_h/N_h) p_h(1 − p_h)/(n_h − 1): this stratum's term of the variance. */
  variance: number;
  /** False when n_h = 1 < N_h: the term is the bound W_h²·¼, not an estimate. */
  variance_estimable: boolean;
}

/** A stratified pass rate with its interval and what it was computed on. */
export interface StratifiedResult {
  /** Σ W_h p_h; null when the population is 0. */
  estimate: number | null;
  /** Lower end, clipped to [0, 1]. */
  low: number;
  /** Upper end, clipped to [0, 1]. */
  high: number;
  /** √v(p̂); null when the population is 0. */
  standard_error: number | null;
  level: number;
  /** Items checked: Σ n_h. */
  n_sampled: number;
  /** N = Σ N_h. */
  population: number;
  strata: StratumEstimate[];
  /** Normal interval on the stratified estimator with the finite-population correction. */
  method: "stratified_normal_fpc";
  /** Strata whose variance could not be estimated (n_h = 1), said in words; empty when none. */
  notes: string[];
}

const Strata = z.array(StratumSample).superRefine((strata, ctx) => {
  strata.forEach((s, i) => {
    if (s.sampled > s.population) {
      ctx.addIssue({
        code: "custom",
        path: [i, "sampled"],
        message: `stratum "${s.name}" samples more than its population`,
      });
    }
    if (s.passed > s.sampled) {
      ctx.addIssue({ code: "custom", path: [i, "passed"], message: `stratum "${s.name}" passes more than it samples` });
    }
  });
});

/**
 * The pass rate of a population from a stratified sample without
 * replacement: Σ W_h p_h with the finite-population-corrected variance and a
 * normal interval clipped to [0, 1].
 *
 * A stratum with items but no sample is refused (RangeError naming it): the
 * estimate would silently treat it as absent and be biased. A stratum with a
 * single item sampled (of more) has no variance estimate; its term is the
 * bound W_h²·¼ (one draw's variance is at most ¼), and `notes` says so.
 *
 * Limits: the normal interval is poor when the estimate is near 0 or 1 or
 * the strata's samples are small; then read it as a rough guide.
 *
 * @example Two strata: 8 of 10 pass in a stratum of 100, 9 of 10 in a stratum of 300
 * ```ts
 * import assert from "node:assert/strict";
 * import { stratifiedProportion } from "./stratified.ts";
 * const r = stratifiedProportion([
 *   { name: "short", population: 100, sampled: 10, passed: 8 },
 *   { name: "long", population: 300, sampled: 10, passed: 9 },
 * ]);
 * // 0.25·0.8 + 0.75·0.9 = 0.875
 * assert.ok(Math.abs(r.estimate! - 0.875) < 1e-12);
 * assert.equal(r.n_sampled, 20);
 * assert.ok(r.low < 0.875 && r.high <= 1);
 * ```
 */
export function stratifiedProportion(
  strata: readonly StratumSample[],
  options: StratifiedOptions = {},
): StratifiedResult {
  const data = parseOr(Strata, strata, "stratifiedProportion", "strata");
  const { level } = parseOr(StratifiedOptions, options, "stratifiedProportion", "options");
  const unsampled = data.filter((s) => s.population > 0 && s.sampled === 0).map((s) => `"${s.name}"`);
  if (unsampled.length > 0) {
    throw new RangeError(
      `stratifiedProportion: stratum ${unsampled.join(", ")} has items but none sampled; ` +
        "the estimate would leave it out and be biased",
    );
  }
  const population = data.reduce((a, s) => a + s.population, 0);
  const nSampled = data.reduce((a, s) => a + s.sampled, 0);
  const notes: string[] = [];
  let estimate = 0, variance = 0;
  const perStratum = data.map((s): StratumEstimate => {
    const weight = population > 0 ? s.population / population : 0;
    if (s.population === 0) return { ...s, weight, estimate: null, fpc: 0, variance: 0, variance_estimable: true };
    const p = s.passed / s.sampled, fpc = 1 - s.sampled / s.population;
    const estimable = s.sampled > 1 || fpc === 0;
    if (!estimable) {
      notes.push(`stratum "${s.name}": one item sampled, its variance cannot be estimated; the bound ¼ is used`);
    }
    const v = fpc === 0 ? 0 : weight ** 2 * (estimable ? fpc * p * (1 - p) / (s.sampled - 1) : 0.25);
    estimate += weight * p;
    variance += v;
    return { ...s, weight, estimate: p, fpc, variance: v, variance_estimable: estimable };
  });
  const base = {
    level,
    n_sampled: nSampled,
    population,
    strata: perStratum,
    method: "stratified_normal_fpc",
    notes,
  } as const;
  if (population === 0) return { ...base, estimate: null, low: 0, high: 1, standard_error: null };
  const se = Math.sqrt(variance), z = normalQuantile((1 + level) / 2);
  return {
    ...base,
    estimate,
    low: Math.max(0, estimate - z * se),
    high: Math.min(1, estimate + z * se),
    standard_error: se,
  };
}

/** Options of {@linkcode sampleSizeForWidth}. */
export const SampleSizeOptions = z.object({
  /** The target half-width of the interval, as a proportion (0.05 = ±5 points). */
  half_width: z.number().gt(0).lt(1),
  /** Two-sided confidence level. @default {0.95} */
  level: Level.default(0.95),
  /** The pass rate assumed for the variance; 0.5 is the worst case. @default {0.5} */
  p: z.number().gt(0).lt(1).default(0.5),
}).strict();
/** Options of {@linkcode sampleSizeForWidth} (`half_width` required). */
export type SampleSizeOptions = z.input<typeof SampleSizeOptions>;

/** A sample size with what it was computed for. */
export interface SampleSize {
  /** ⌈n_exact⌉, at most the population: the items to check. */
  n: number;
  /** n₀ / (1 + (n₀ − 1)/N) before rounding up. */
  n_exact: number;
  /** n₀ = z² p(1 − p) / h²: the size without the finite-population correction. */
  n_infinite: number;
  population: number;
  half_width: number;
  level: number;
  p: number;
}

/**
 * The sample size (without replacement) whose normal interval on one
 * stratum's pass rate has the target half-width h at pass rate p, with the
 * finite-population correction (Cochran 1977, eq. 4.2; the formula of
 * Krejcie & Morgan's 1970 table): n₀ = z² p(1 − p)/h², n = n₀ / (1 + (n₀ − 1)/N),
 * rounded up so the width is met. It solves z²·(1 − n/N)·S²/n = h² with
 * S² = N p(1 − p)/(N − 1).
 *
 * @example ±5 points at 95 % in a stratum of 1000 items needs 278
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleSizeForWidth } from "./stratified.ts";
 * // n₀ = 1.96² · 0.25 / 0.05² = 384.15; 384.15 / (1 + 383.15/1000) = 277.7 → 278
 * assert.equal(sampleSizeForWidth(1000, { half_width: 0.05 }).n, 278);
 * ```
 */
export function sampleSizeForWidth(population: number, options: SampleSizeOptions): SampleSize {
  const N = parseOr(Count, population, "sampleSizeForWidth", "population");
  const { half_width, level, p } = parseOr(SampleSizeOptions, options, "sampleSizeForWidth", "options");
  const n0 = normalQuantile((1 + level) / 2) ** 2 * p * (1 - p) / half_width ** 2;
  const exact = N === 0 ? 0 : n0 / (1 + (n0 - 1) / N);
  // Float noise must not add an item: 79.99999999999 is 80.
  const up = Math.abs(exact - Math.round(exact)) < 1e-9 ? Math.round(exact) : Math.ceil(exact);
  return { n: Math.min(N, up), n_exact: exact, n_infinite: n0, population: N, half_width, level, p };
}

/** Options of {@linkcode allocateSample}. */
export const AllocateOptions = z.object({
  /** The fewest items a stratum gets (all of them when it has fewer). @default {2} */
  min_per_stratum: Count.default(2),
}).strict();
/** Options of {@linkcode allocateSample}. */
export type AllocateOptions = z.input<typeof AllocateOptions>;

/** One stratum's share of an {@linkcode Allocation}. */
export interface StratumAllocation {
  name: string;
  population: number;
  /** Items to sample. */
  sampled: number;
  /** total · N_h / N: the exact proportional share. */
  proportional: number;
  /** Raised to `min_per_stratum` (or its population) above its proportional share. */
  raised_to_minimum: boolean;
}

/** A total sample split over strata. */
export interface Allocation {
  total: number;
  population: number;
  min_per_stratum: number;
  strata: StratumAllocation[];
  method: "proportional_largest_remainder";
}

const Named = z.array(z.object({ name: z.string().min(1), population: Count }).strict());

/**
 * Split a total sample over strata in proportion to their populations: each
 * stratum gets at least `min_per_stratum` (all its items if it has fewer),
 * the strata raised to that minimum are fixed and the rest of the total is
 * shared by the others in proportion, repeatedly until no share is below the
 * minimum; the shares are then rounded by largest remainder (Hamilton's
 * method; ties to the earlier stratum), so they sum to `total` and none
 * exceeds its population. RangeError when the total exceeds the population or
 * cannot give every stratum its minimum.
 *
 * @example 10 items over strata of 47, 16, 15.8, 12, 6.1 and 3.1 thousand
 * ```ts
 * import assert from "node:assert/strict";
 * import { allocateSample } from "./stratified.ts";
 * const sizes = [47000, 16000, 15800, 12000, 6100, 3100];
 * const a = allocateSample(sizes.map((population, i) => ({ name: `s${i}`, population })), 10, { min_per_stratum: 0 });
 * // quotas 4.7 1.6 1.58 1.2 0.61 0.31 → floors 4 1 1 1 0 0, the 3 left to .7, .61, .6
 * assert.deepEqual(a.strata.map((s) => s.sampled), [5, 2, 1, 1, 1, 0]);
 * ```
 */
export function allocateSample(
  strata: readonly { name: string; population: number }[],
  total: number,
  options: AllocateOptions = {},
): Allocation {
  const data = parseOr(Named, strata, "allocateSample", "strata");
  const n = parseOr(Count, total, "allocateSample", "total");
  const { min_per_stratum } = parseOr(AllocateOptions, options, "allocateSample", "options");
  const population = data.reduce((a, s) => a + s.population, 0);
  if (n > population) throw new RangeError(`allocateSample: total ${n} exceeds the population ${population}`);
  const floor = data.map((s) => Math.min(min_per_stratum, s.population));
  const floors = floor.reduce((a, b) => a + b, 0);
  if (floors > n) {
    throw new RangeError(`allocateSample: total ${n} cannot give each stratum its minimum (${floors} needed)`);
  }
  const raised = data.map(() => false);
  let share: number[] = [];
  for (;;) {
    const left = n - floor.reduce((a, f, i) => a + (raised[i] ? f : 0), 0);
    const freeN = data.reduce((a, s, i) => a + (raised[i] ? 0 : s.population), 0);
    share = data.map((s, i) => (raised[i] ? floor[i]! : freeN > 0 ? left * s.population / freeN : 0));
    const below = data.map((_, i) => !raised[i] && share[i]! < floor[i]!);
    if (!below.includes(true)) break;
    for (let i = 0; i < below.length; i++) if (below[i]) raised[i] = true;
  }
  const sampled = share.map(Math.floor);
  const order = share.map((q, i) => ({ i, r: q - Math.floor(q) })).sort((a, b) => b.r - a.r || a.i - b.i);
  let left = n - sampled.reduce((a, b) => a + b, 0);
  for (const { i } of order) {
    if (left === 0) break;
    sampled[i]!++;
    left--;
  }
  return {
    total: n,
    population,
    min_per_stratum,
    strata: data.map((s, i) => ({
      name: s.name,
      population: s.population,
      sampled: sampled[i]!,
      proportional: population > 0 ? n * s.population / population : 0,
      raised_to_minimum: raised[i]!,
    })),
    method: "proportional_largest_remainder",
  };
}
