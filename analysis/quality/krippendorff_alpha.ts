/**
 * Krippendorff's alpha by the coincidence-matrix method of Krippendorff
 * (2011), "Computing Krippendorff's Alpha-Reliability" (Annenberg School for
 * Communication, University of Pennsylvania, repository.upenn.edu/asc_papers/43).
 *
 * Reliability data: `units[u][r]` is rater r's value for unit u, null when
 * missing. A unit with m_u ≥ 2 values is pairable; the others are dropped.
 * Each pairable unit adds, for every ordered pair of its values from two
 * different raters, 1/(m_u − 1) to the coincidence o_ck of the pair's values;
 * n_c = Σ_k o_ck and n = Σ_c n_c (the pairable values). Then
 *
 *   D_o = (1/n) Σ_c Σ_k o_ck δ²_ck,  D_e = (1/(n(n − 1))) Σ_c Σ_k n_c n_k δ²_ck,  α = 1 − D_o / D_e
 *
 * with δ² by metric: nominal 1 when c ≠ k; ordinal (Σ_{g=c..k} n_g − (n_c + n_k)/2)²,
 * from the marginal frequencies of the ranks; interval (c − k)²; ratio ((c − k)/(c + k))².
 *
 * @module
 */
import { z } from "zod";
import { type BootstrapInterval, bootstrapItems } from "./_bootstrap.ts";
import { Level, parseOr, Resamples, Seed } from "./_validate.ts";

/** The four metrics (levels of measurement) of the 2011 paper. */
export const ALPHA_METRICS = ["nominal", "ordinal", "interval", "ratio"] as const;
/** One of {@linkcode ALPHA_METRICS}. */
export type AlphaMetric = typeof ALPHA_METRICS[number];

/** Reliability data: `units[u][r]` is rater r's value for unit u; null = missing. */
export const ReliabilityData = z.array(z.array(z.union([z.number(), z.string(), z.null()])));

/** Options of {@linkcode krippendorffAlpha}. */
export const KrippendorffAlphaOptions = z.object({
  /** Level of measurement: which difference function δ² compares two values. */
  metric: z.enum(ALPHA_METRICS),
  /** Two-sided confidence level of the bootstrap interval. @default {0.95} */
  level: Level.default(0.95),
  /** Bootstrap resamples of the pairable units; 0 skips the interval. @default {2000} */
  resamples: Resamples.default(2000),
  /** Seed of the resamples (mulberry32). @default {1} */
  seed: Seed.default(1),
}).strict();
/** Options of {@linkcode krippendorffAlpha} (`metric` required). */
export type KrippendorffAlphaOptions = z.input<typeof KrippendorffAlphaOptions>;

/** Krippendorff's alpha with what it was computed on. */
export interface KrippendorffAlphaResult {
  /** α = 1 − D_o/D_e; null when undefined (see `undefined_reason`). */
  alpha: number | null;
  /** The metric δ² used. */
  metric: AlphaMetric;
  /** Units given (rows). */
  units: number;
  /** Units with at least two values: the ones alpha is computed on. */
  units_pairable: number;
  /** n: the values in pairable units. */
  values_pairable: number;
  /** D_o; null when no unit is pairable. */
  observed_disagreement: number | null;
  /** D_e; null when no unit is pairable. */
  expected_disagreement: number | null;
  /** Why alpha is null; null when it is defined. */
  undefined_reason: string | null;
  /** The distinct values of the pairable units, sorted (the rows and columns of `coincidences`). */
  values: (number | string)[];
  /** The coincidence matrix o_ck. */
  coincidences: number[][];
  /** Percentile bootstrap over units; `resampled: "units"` (see {@linkcode krippendorffAlpha}). */
  ci: BootstrapInterval & { resampled: "units" };
}

function sortValues(values: (number | string)[]): (number | string)[] {
  return values.sort((x, y) => typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : typeof x === "number" ? -1 : 1);
}

/** Refuse what the metric cannot compare: text for ordinal/interval/ratio, negatives for ratio. */
function checkMetric(units: (number | string | null)[][], metric: AlphaMetric): void {
  if (metric === "nominal") return;
  const bad: string[] = [];
  units.forEach((row, u) =>
    row.forEach((v, r) => {
      if (typeof v === "string") bad.push(`units[${u}][${r}] = ${JSON.stringify(v)} is not a number`);
      else if (metric === "ratio" && typeof v === "number" && v < 0) {
        bad.push(`units[${u}][${r}] = ${v} is negative`);
      }
    })
  );
  if (bad.length === 0) return;
  const shown = bad.slice(0, 5).join("; ") + (bad.length > 5 ? `; and ${bad.length - 5} more` : "");
  throw new RangeError(
    `krippendorffAlpha: the ${metric} metric needs numbers${metric === "ratio" ? " ≥ 0" : ""}: ${shown}`,
  );
}

/**
 * Krippendorff's alpha of reliability data with missing values, by the
 * coincidence-matrix method (Krippendorff 2011), with a seeded percentile
 * bootstrap interval.
 *
 * The interval resamples pairable **units** with replacement and recomputes
 * alpha (the ordinal δ² from each resample's own margins). This is not
 * Krippendorff's own bootstrap (Hayes & Krippendorff 2007, the KALPHA macro),
 * which resamples pairable values (pairs of values from the coincidence
 * matrix), so the two intervals differ. Resampling units keeps the values a
 * unit got together: it treats the units as the sample drawn, and units that
 * are harder to agree on than others widen the interval as they should.
 *
 * Text values are allowed for the nominal metric only; ordinal, interval and
 * ratio refuse them with a RangeError (ratio also refuses negative numbers).
 *
 * @example Krippendorff's (2011) 4 observers × 12 units: α nominal 0.743, interval 0.849
 * ```ts
 * import assert from "node:assert/strict";
 * import { krippendorffAlpha } from "./krippendorff_alpha.ts";
 * const _ = null;
 * const byObserver = [
 *   [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
 *   [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
 *   [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
 *   [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
 * ];
 * const units = byObserver[0]!.map((_v, u) => byObserver.map((row) => row[u] ?? null));
 * const nominal = krippendorffAlpha(units, { metric: "nominal", resamples: 0 });
 * assert.equal(nominal.alpha!.toFixed(3), "0.743");
 * assert.equal(nominal.units_pairable, 11); // unit 12 has one value
 * assert.equal(nominal.values_pairable, 40);
 * assert.equal(krippendorffAlpha(units, { metric: "interval", resamples: 0 }).alpha!.toFixed(3), "0.849");
 * ```
 */
export function krippendorffAlpha(
  units: readonly (readonly (number | string | null)[])[],
  options: KrippendorffAlphaOptions,
): KrippendorffAlphaResult {
  const data = parseOr(ReliabilityData, units, "krippendorffAlpha", "units");
  const opts = parseOr(KrippendorffAlphaOptions, options, "krippendorffAlpha", "options");
  const metric = opts.metric;
  checkMetric(data, metric);
  const pairable = data.map((row) => row.filter((v): v is number | string => v !== null))
    .filter((vs) => vs.length >= 2);
  const values = sortValues([...new Set(pairable.flat())]);
  const index = new Map<number | string, number>(values.map((v, i) => [v, i]));
  const V = values.length;

  // Each pairable unit's coincidences, flattened: entries [start[u], start[u + 1]) of (cell, weight).
  const start = [0], cell: number[] = [], weight: number[] = [];
  for (const vs of pairable) {
    const counts = new Map<number, number>();
    for (const v of vs) counts.set(index.get(v)!, (counts.get(index.get(v)!) ?? 0) + 1);
    for (const [c, nc] of counts) {
      for (const [k, nk] of counts) {
        const pairs = c === k ? nc * (nc - 1) : nc * nk;
        if (pairs > 0) {
          cell.push(c * V + k);
          weight.push(pairs / (vs.length - 1));
        }
      }
    }
    start.push(cell.length);
  }

  const fixedDelta = new Float64Array(V * V);
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      const x = values[c]!, y = values[k]!;
      if (metric === "nominal") fixedDelta[c * V + k] = c === k ? 0 : 1;
      else if (metric === "interval") fixedDelta[c * V + k] = ((x as number) - (y as number)) ** 2;
      else if (metric === "ratio") {
        const sum = (x as number) + (y as number);
        fixedDelta[c * V + k] = sum === 0 ? 0 : (((x as number) - (y as number)) / sum) ** 2;
      }
    }
  }

  const o = new Float64Array(V * V), margin = new Float64Array(V), prefix = new Float64Array(V + 1);
  const delta = metric === "ordinal" ? new Float64Array(V * V) : fixedDelta;
  const compute = (drawn: ArrayLike<number>) => {
    o.fill(0);
    for (let j = 0; j < drawn.length; j++) {
      const u = drawn[j]!;
      for (let e = start[u]!; e < start[u + 1]!; e++) o[cell[e]!]! += weight[e]!;
    }
    margin.fill(0);
    for (let c = 0; c < V; c++) for (let k = 0; k < V; k++) margin[c]! += o[c * V + k]!;
    let n = 0;
    for (let c = 0; c < V; c++) n += margin[c]!;
    if (metric === "ordinal") {
      for (let c = 0; c < V; c++) prefix[c + 1] = prefix[c]! + margin[c]!;
      for (let c = 0; c < V; c++) {
        for (let k = 0; k < V; k++) {
          const lo = Math.min(c, k), hi = Math.max(c, k);
          delta[c * V + k] = c === k ? 0 : (prefix[hi + 1]! - prefix[lo]! - (margin[c]! + margin[k]!) / 2) ** 2;
        }
      }
    }
    let observed = 0, expected = 0;
    for (let c = 0; c < V; c++) {
      for (let k = 0; k < V; k++) {
        observed += o[c * V + k]! * delta[c * V + k]!;
        expected += margin[c]! * margin[k]! * delta[c * V + k]!;
      }
    }
    if (n < 2) return { n, Do: null, De: null, alpha: null };
    const Do = observed / n, De = expected / (n * (n - 1));
    return { n, Do, De, alpha: De > 0 ? 1 - Do / De : null };
  };

  const all = compute(Int32Array.from({ length: pairable.length }, (_, i) => i));
  const coincidences = Array.from({ length: V }, (_, c) => Array.from(o.subarray(c * V, (c + 1) * V)));
  const ci = bootstrapItems(pairable.length, (drawn) => compute(drawn).alpha, opts);
  return {
    alpha: all.alpha,
    metric,
    units: data.length,
    units_pairable: pairable.length,
    values_pairable: all.n,
    observed_disagreement: all.Do,
    expected_disagreement: all.De,
    undefined_reason: pairable.length === 0
      ? "no unit has two or more values"
      : all.alpha === null
      ? `every pairable value is ${JSON.stringify(values[0])}: expected disagreement is 0, so alpha is 0/0`
      : null,
    values,
    coincidences,
    ci: { ...ci, resampled: "units" },
  };
}
