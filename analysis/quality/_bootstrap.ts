/**
 * The seeded percentile bootstrap the quality statistics share: draw n item
 * indices with replacement (mulberry32 from `seed`), recompute the statistic
 * on the draw, `resamples` times, and take the nearest-rank quantiles
 * x₍⌈(α/2)·B⌉₎ and x₍⌈(1 − α/2)·B⌉₎ of the B defined values (α = 1 − level).
 * A resample on which the statistic is undefined (kappa with one category
 * left, alpha with no expected disagreement) is counted, not used.
 *
 * @module
 */
import { mulberry32 } from "../../lib/prng.ts";

/** A percentile bootstrap interval with what it was computed on. */
export interface BootstrapInterval {
  /** Lower end; null when no resample gave a defined value (or `resamples` is 0). */
  low: number | null;
  /** Upper end; null when no resample gave a defined value (or `resamples` is 0). */
  high: number | null;
  /** Two-sided confidence level. */
  level: number;
  /** Always the percentile bootstrap. */
  method: "bootstrap";
  /** Resamples drawn. */
  resamples: number;
  /** Seed of the mulberry32 stream the resamples were drawn from. */
  seed: number;
  /** Resamples on which the statistic was undefined and that the interval leaves out. */
  resamples_undefined: number;
}

/** ⌈x⌉, guarded against float noise (0.025 · 2000 must give 50, not 51). */
function ceilRank(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - r) < 1e-9 * Math.max(1, x) ? r : Math.ceil(x);
}

/** The nearest-rank percentile interval of the defined values; null ends when there are none. */
export function percentileInterval(
  values: readonly number[],
  level: number,
): { low: number | null; high: number | null } {
  const b = values.length;
  if (b === 0) return { low: null, high: null };
  const sorted = Float64Array.from(values).sort();
  const tail = (1 - level) / 2;
  const lo = Math.min(b, Math.max(1, ceilRank(tail * b)));
  const hi = Math.min(b, Math.max(1, ceilRank((1 - tail) * b)));
  return { low: sorted[lo - 1]!, high: sorted[hi - 1]! };
}

/**
 * Resample n items with replacement `resamples` times and return the
 * percentile interval of `statistic` (null = undefined on that draw). The
 * statistic reads the drawn indices; the array is reused between draws.
 */
export function bootstrapItems(
  n: number,
  statistic: (drawn: Int32Array) => number | null,
  options: { level: number; resamples: number; seed: number },
): BootstrapInterval {
  const { level, resamples, seed } = options;
  const rand = mulberry32(seed);
  const drawn = new Int32Array(n);
  const values: number[] = [];
  let undefinedCount = 0;
  for (let b = 0; b < (n > 0 ? resamples : 0); b++) {
    for (let i = 0; i < n; i++) drawn[i] = Math.floor(rand() * n);
    const v = statistic(drawn);
    if (v === null || !Number.isFinite(v)) undefinedCount++;
    else values.push(v);
  }
  if (n === 0) undefinedCount = resamples;
  return {
    ...percentileInterval(values, level),
    level,
    method: "bootstrap",
    resamples,
    seed,
    resamples_undefined: undefinedCount,
  };
}
