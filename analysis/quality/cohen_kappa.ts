/**
 * Cohen's kappa (Cohen 1960): the agreement of two raters on the same items
 * beyond what their own label frequencies would give by chance, unweighted,
 * with a seeded percentile-bootstrap interval over the items.
 *
 * For n items and categories c (the union of both raters' labels):
 * p_o = Σ_c n_cc / n (observed agreement), p_e = Σ_c (n_c· / n)(n_·c / n)
 * (expected agreement from the two margins), κ = (p_o − p_e) / (1 − p_e).
 * κ is undefined when p_e = 1: both raters used one and the same category,
 * so there is no disagreement chance could have produced.
 *
 * @module
 */
import { z } from "zod";
import { type BootstrapInterval, bootstrapItems } from "./_bootstrap.ts";
import { Level, parseOr, Resamples, Seed } from "./_validate.ts";

export type { BootstrapInterval };

/** One item's two labels: rater A's, rater B's. */
export const LabelPairs = z.array(z.tuple([z.string(), z.string()]));

/** Options of {@linkcode cohenKappa}. */
export const CohenKappaOptions = z.object({
  /** Two-sided confidence level of the bootstrap interval. @default {0.95} */
  level: Level.default(0.95),
  /** Bootstrap resamples of the items; 0 skips the interval. @default {2000} */
  resamples: Resamples.default(2000),
  /** Seed of the resamples (mulberry32). @default {1} */
  seed: Seed.default(1),
}).strict();
/** Options of {@linkcode cohenKappa} (every field optional). */
export type CohenKappaOptions = z.input<typeof CohenKappaOptions>;

/** Cohen's kappa with what it was computed on. */
export interface CohenKappaResult {
  /** κ = (p_o − p_e)/(1 − p_e); null when undefined (see `undefined_reason`). */
  kappa: number | null;
  /** p_o: the share of items both raters labelled alike; null when n = 0. */
  observed_agreement: number | null;
  /** p_e = Σ_c p_A(c)·p_B(c); null when n = 0. */
  expected_agreement: number | null;
  /** Why kappa is null; null when it is defined. */
  undefined_reason: string | null;
  /** Items (pairs). */
  n: number;
  /** The categories seen, sorted. */
  categories: string[];
  /** Percentile bootstrap over items (resampled pairs). */
  ci: BootstrapInterval;
}

/** κ from the diagonal count and the two margins' counts; null when p_e = 1 or n = 0. */
function kappaOf(diagonal: number, rowMargin: ArrayLike<number>, colMargin: ArrayLike<number>, n: number) {
  if (n === 0) return { po: null, pe: null, kappa: null };
  let pe = 0;
  for (let c = 0; c < rowMargin.length; c++) pe += (rowMargin[c]! / n) * (colMargin[c]! / n);
  const po = diagonal / n;
  // p_e = 1 only when both raters used one category throughout; compare with a margin for float sums.
  const kappa = pe > 1 - 1e-12 ? null : (po - pe) / (1 - pe);
  return { po, pe, kappa };
}

/**
 * Cohen's kappa of two raters' labels on the same items, unweighted, with a
 * seeded percentile-bootstrap interval that resamples items (pairs) with
 * replacement. Resamples on which κ is undefined (one category left) are
 * counted in `ci.resamples_undefined` and left out of the interval.
 *
 * @example Wikipedia's 50 grant proposals: 20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no
 * ```ts
 * import assert from "node:assert/strict";
 * import { cohenKappa } from "./cohen_kappa.ts";
 * const pairs = [
 *   ...Array(20).fill(["yes", "yes"]), ...Array(5).fill(["yes", "no"]),
 *   ...Array(10).fill(["no", "yes"]), ...Array(15).fill(["no", "no"]),
 * ] as [string, string][];
 * const r = cohenKappa(pairs);
 * // p_o = 35/50 = 0.7; p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.2/0.5 = 0.4
 * assert.ok(Math.abs(r.kappa! - 0.4) < 1e-12);
 * assert.ok(r.ci.low! < 0.4 && 0.4 < r.ci.high!);
 * assert.equal(r.n, 50);
 * ```
 */
export function cohenKappa(
  pairs: readonly (readonly [string, string])[],
  options: CohenKappaOptions = {},
): CohenKappaResult {
  const data = parseOr(LabelPairs, pairs, "cohenKappa", "pairs");
  const opts = parseOr(CohenKappaOptions, options, "cohenKappa", "options");
  const categories = [...new Set(data.flat())].sort();
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length, n = data.length;
  const a = new Int32Array(n), b = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    a[i] = index.get(data[i]![0])!;
    b[i] = index.get(data[i]![1])!;
  }
  const rowMargin = new Float64Array(k), colMargin = new Float64Array(k);
  const statistic = (items: ArrayLike<number>, count: number) => {
    rowMargin.fill(0);
    colMargin.fill(0);
    let diagonal = 0;
    for (let j = 0; j < count; j++) {
      const i = items[j]!;
      rowMargin[a[i]!]!++;
      colMargin[b[i]!]!++;
      if (a[i] === b[i]) diagonal++;
    }
    return kappaOf(diagonal, rowMargin, colMargin, count);
  };
  const all = statistic(Int32Array.from({ length: n }, (_, i) => i), n);
  const ci = bootstrapItems(n, (drawn) => statistic(drawn, n).kappa, opts);
  return {
    kappa: all.kappa,
    observed_agreement: all.po,
    expected_agreement: all.pe,
    undefined_reason: n === 0
      ? "no pairs"
      : all.kappa === null
      ? `both raters used only "${categories[0]}": expected agreement is 1, so kappa is 0/0`
      : null,
    n,
    categories,
    ci,
  };
}
