/**
 * Rates of a binary judgement: a proportion with its Wilson score interval,
 * and a judge's confusion matrix against the truth (sensitivity, specificity
 * and accuracy, each with its Wilson interval, and Cohen's kappa).
 *
 * Wilson (1927): for s successes in n trials, p̂ = s/n and z = Φ⁻¹((1 + level)/2),
 *
 *   (p̂ + z²/2n ± z·√(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n).
 *
 * @module
 */
import { z } from "zod";
import { normalQuantile } from "../../lib/normal_quantile.ts";
import { cohenKappa, type CohenKappaResult } from "./cohen_kappa.ts";
import { Count, Level, parseOr, Resamples, Seed } from "./_validate.ts";

/** Options of {@linkcode wilsonInterval}. */
export const WilsonOptions = z.object({
  /** Two-sided confidence level. @default {0.95} */
  level: Level.default(0.95),
}).strict();
/** Options of {@linkcode wilsonInterval}. */
export type WilsonOptions = z.input<typeof WilsonOptions>;

/** A proportion with its Wilson score interval and what it was computed on. */
export interface WilsonInterval {
  /** successes / n; null when n = 0. */
  estimate: number | null;
  /** Lower end (0 when n = 0). */
  low: number;
  /** Upper end (1 when n = 0). */
  high: number;
  /** Trials. */
  n: number;
  /** Successes. */
  successes: number;
  /** Two-sided confidence level. */
  level: number;
  /** Always the Wilson score interval. */
  method: "wilson";
}

/**
 * The Wilson score interval of a binomial proportion (no continuity
 * correction). With n = 0 nothing is known: estimate null, interval [0, 1].
 *
 * @example Newcombe (1998), Table I: 81 of 263 → 0.2553 to 0.3662
 * ```ts
 * import assert from "node:assert/strict";
 * import { wilsonInterval } from "./binary_rates.ts";
 * const w = wilsonInterval(81, 263);
 * assert.deepEqual([w.low.toFixed(4), w.high.toFixed(4)], ["0.2553", "0.3662"]);
 * assert.equal(wilsonInterval(0, 0).estimate, null);
 * ```
 */
export function wilsonInterval(successes: number, n: number, options: WilsonOptions = {}): WilsonInterval {
  const args = parseOr(
    z.object({ successes: Count, n: Count }).refine((a) => a.successes <= a.n, "successes must not exceed n"),
    { successes, n },
    "wilsonInterval",
  );
  const { level } = parseOr(WilsonOptions, options, "wilsonInterval", "options");
  if (args.n === 0) return { estimate: null, low: 0, high: 1, n: 0, successes: 0, level, method: "wilson" };
  const p = args.successes / args.n, z2 = normalQuantile((1 + level) / 2) ** 2;
  const centre = (p + z2 / (2 * args.n)) / (1 + z2 / args.n);
  const half = Math.sqrt(z2) * Math.sqrt(p * (1 - p) / args.n + z2 / (4 * args.n * args.n)) / (1 + z2 / args.n);
  return {
    estimate: p,
    // At s = 0 (s = n) the lower (upper) end is exactly 0 (1); the subtraction would leave float noise.
    low: args.successes === 0 ? 0 : Math.max(0, centre - half),
    high: args.successes === args.n ? 1 : Math.min(1, centre + half),
    n: args.n,
    successes: args.successes,
    level,
    method: "wilson",
  };
}

/** A judged item: its true label and the judge's. */
export const JudgedPairs = z.array(z.object({ truth: z.boolean(), judged: z.boolean() }).strict());

/** Options of {@linkcode confusionMatrix}: the intervals' level and kappa's bootstrap. */
export const ConfusionMatrixOptions = z.object({
  /** Two-sided confidence level of every interval. @default {0.95} */
  level: Level.default(0.95),
  /** Bootstrap resamples of kappa's interval; 0 skips it. @default {2000} */
  resamples: Resamples.default(2000),
  /** Seed of kappa's resamples. @default {1} */
  seed: Seed.default(1),
}).strict();
/** Options of {@linkcode confusionMatrix}. */
export type ConfusionMatrixOptions = z.input<typeof ConfusionMatrixOptions>;

/** A judge against the truth: the four counts and the rates with their intervals. */
export interface ConfusionMatrix {
  /** Truth pass, judged pass. */
  tp: number;
  /** Truth fail, judged pass. */
  fp: number;
  /** Truth fail, judged fail. */
  tn: number;
  /** Truth pass, judged fail. */
  fn: number;
  /** Items. */
  n: number;
  /** tp / (tp + fn): the share of true passes the judge passes. */
  sensitivity: WilsonInterval;
  /** tn / (tn + fp): the share of true fails the judge fails. */
  specificity: WilsonInterval;
  /** (tp + tn) / n. */
  accuracy: WilsonInterval;
  /** Cohen's kappa of truth against judge, on the labels "pass"/"fail". */
  kappa: CohenKappaResult;
}

/**
 * The confusion matrix of a binary judge against the truth ("pass" = true):
 * sensitivity, specificity and accuracy with Wilson intervals, and Cohen's
 * kappa with its bootstrap interval ({@linkcode cohenKappa} on the pairs
 * (truth, judged) labelled "pass"/"fail").
 *
 * @example 10 items: the judge passes 4 of 5 true passes and fails 4 of 5 true fails
 * ```ts
 * import assert from "node:assert/strict";
 * import { confusionMatrix } from "./binary_rates.ts";
 * const item = (truth: boolean, judged: boolean, times: number) => Array(times).fill({ truth, judged });
 * const m = confusionMatrix([...item(true, true, 4), ...item(true, false, 1), ...item(false, false, 4), ...item(false, true, 1)]);
 * assert.deepEqual([m.tp, m.fn, m.tn, m.fp, m.n], [4, 1, 4, 1, 10]);
 * assert.equal(m.sensitivity.estimate, 0.8);
 * // p_o = 0.8, p_e = 0.5·0.5 + 0.5·0.5 = 0.5 → κ = 0.3/0.5 = 0.6
 * assert.ok(Math.abs(m.kappa.kappa! - 0.6) < 1e-12);
 * ```
 */
export function confusionMatrix(
  pairs: readonly { truth: boolean; judged: boolean }[],
  options: ConfusionMatrixOptions = {},
): ConfusionMatrix {
  const data = parseOr(JudgedPairs, pairs, "confusionMatrix", "pairs");
  const opts = parseOr(ConfusionMatrixOptions, options, "confusionMatrix", "options");
  let tp = 0, fp = 0, tn = 0, fn = 0;
  for (const { truth, judged } of data) {
    if (truth && judged) tp++;
    else if (!truth && judged) fp++;
    else if (!truth && !judged) tn++;
    else fn++;
  }
  const label = (b: boolean) => (b ? "pass" : "fail");
  return {
    tp,
    fp,
    tn,
    fn,
    n: data.length,
    sensitivity: wilsonInterval(tp, tp + fn, { level: opts.level }),
    specificity: wilsonInterval(tn, tn + fp, { level: opts.level }),
    accuracy: wilsonInterval(tp + tn, data.length, { level: opts.level }),
    kappa: cohenKappa(data.map((d) => [label(d.truth), label(d.judged)] as const), opts),
  };
}
