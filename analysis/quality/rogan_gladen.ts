/**
 * The pass rate corrected for the judge's measured error (Rogan & Gladen
 * 1978): a judge that passes a share p of the items, with sensitivity Se and
 * specificity Sp measured on a calibration set with known truth, estimates
 * the true pass rate as
 *
 *   θ = (p + Sp − 1) / (Se + Sp − 1),  p = judged_pass/judged_n,  Se = tp/(tp + fn),  Sp = tn/(tn + fp),
 *
 * clipped to [0, 1]. Its variance by the delta method, with Se and Sp
 * estimated from independent calibration samples of n_pos = tp + fn true
 * passes and n_neg = tn + fp true fails (Reiczigel, Földi & Ózsvári 2010,
 * Epidemiol. Infect. 138:1674; Lang & Reiczigel 2014, Prev. Vet. Med. 113:13):
 *
 *   Var(θ) = [p(1 − p)/n_j + θ²·Se(1 − Se)/n_pos + (1 − θ)²·Sp(1 − Sp)/n_neg] / (Se + Sp − 1)².
 *
 * @module
 */
import { z } from "zod";
import { mulberry32 } from "../../lib/prng.ts";
import { normalQuantile } from "../../lib/normal_quantile.ts";
import { percentileInterval } from "./_bootstrap.ts";
import { Count, Level, parseOr, Resamples, Seed } from "./_validate.ts";

/** The judged counts and the calibration counts (judge against known truth; "positive" = pass). */
export const RoganGladenCounts = z.object({
  /** Items the judge passed, of `judged_n`. */
  judged_pass: Count,
  /** Items judged (the ones whose true pass rate is wanted). */
  judged_n: Count,
  /** Calibration: truly passing, judged pass. */
  tp: Count,
  /** Calibration: truly passing, judged fail. */
  fn: Count,
  /** Calibration: truly failing, judged fail. */
  tn: Count,
  /** Calibration: truly failing, judged pass. */
  fp: Count,
}).strict().refine((c) => c.judged_pass <= c.judged_n, "judged_pass must not exceed judged_n");
/** The input of {@linkcode roganGladen}. */
export type RoganGladenCounts = z.infer<typeof RoganGladenCounts>;

/** Options of {@linkcode roganGladen}. */
export const RoganGladenOptions = z.object({
  /** Two-sided confidence level. @default {0.95} */
  level: Level.default(0.95),
  /**
   * "delta": θ ± z·√Var(θ) by the delta method; "bootstrap": parametric, p, Se and Sp redrawn
   * from their binomials, percentile interval. @default {"delta"}
   */
  method: z.enum(["delta", "bootstrap"]).default("delta"),
  /** Bootstrap resamples (method "bootstrap" only; with none defined the interval is [0, 1]). @default {2000} */
  resamples: Resamples.default(2000),
  /** Seed of the bootstrap (mulberry32). @default {1} */
  seed: Seed.default(1),
  /** The judge is refused when Se + Sp − 1 (Youden's J) is at most this. @default {0.05} */
  min_youden: z.number().min(0).lt(1).default(0.05),
}).strict();
/** Options of {@linkcode roganGladen}. */
export type RoganGladenOptions = z.input<typeof RoganGladenOptions>;

/** What every answer carries: the inputs and the judge's measured rates. */
interface RoganGladenBasis {
  judged_pass: number;
  judged_n: number;
  /** n_pos = tp + fn: calibration items truly passing. */
  n_pos: number;
  /** n_neg = tn + fp: calibration items truly failing. */
  n_neg: number;
  /** p = judged_pass / judged_n; null when judged_n = 0. */
  apparent: number | null;
  /** Se = tp / n_pos; null when n_pos = 0. */
  sensitivity: number | null;
  /** Sp = tn / n_neg; null when n_neg = 0. */
  specificity: number | null;
  /** Youden's J = Se + Sp − 1; null when either is unknown. */
  youden: number | null;
  level: number;
  method: "delta" | "bootstrap";
}

/** A corrected pass rate with its interval. */
export interface RoganGladenUsable extends RoganGladenBasis {
  usable: true;
  /** θ clipped to [0, 1]. */
  estimate: number;
  /** θ before clipping. */
  raw_estimate: number;
  /** θ fell outside [0, 1] and was clipped. */
  clipped: boolean;
  /** Lower end, clipped to [0, 1]. */
  low: number;
  /** Upper end, clipped to [0, 1]. */
  high: number;
  /** √Var(θ) by the delta method (method "delta"); null for "bootstrap". */
  standard_error: number | null;
  /** The bootstrap's draws (method "bootstrap"); null for "delta". */
  bootstrap: { resamples: number; seed: number; resamples_undefined: number } | null;
}

/** A refusal: the correction cannot be made from these counts. */
export interface RoganGladenRefused extends RoganGladenBasis {
  usable: false;
  /** Why. */
  reason: string;
  estimate: null;
  low: null;
  high: null;
}

/** {@linkcode roganGladen}'s answer. */
export type RoganGladenResult = RoganGladenUsable | RoganGladenRefused;

function binomial(rand: () => number, n: number, p: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) if (rand() < p) s++;
  return s;
}

const clip = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The judged pass rate corrected for the judge's sensitivity and
 * specificity (Rogan–Gladen), with a delta-method interval (default) or a
 * seeded parametric bootstrap. Refused (`usable: false`, with the reason)
 * when nothing was judged, when a calibration class is empty (Se or Sp
 * unknown), or when Se + Sp − 1 ≤ `min_youden`: such a judge says almost
 * nothing about the truth and the correction would divide by ~0.
 *
 * Limits: the delta interval is a Wald interval and under-covers when θ is
 * near 0 or 1 or the calibration sample is small (Lang & Reiczigel 2014
 * propose an adjusted one); the bootstrap costs O(resamples · (judged_n +
 * n_pos + n_neg)) draws and leaves out (counts) resamples with Se* + Sp* ≤ 1.
 *
 * @example 150 judged, 23 passed; calibration Se = 96/100, Sp = 89/100
 * ```ts
 * import assert from "node:assert/strict";
 * import { roganGladen } from "./rogan_gladen.ts";
 * const r = roganGladen({ judged_pass: 23, judged_n: 150, tp: 96, fn: 4, tn: 89, fp: 11 });
 * assert.ok(r.usable);
 * // (23/150 + 0.89 − 1) / (0.96 + 0.89 − 1) = 0.043333 / 0.85 = 0.050980
 * assert.equal(r.estimate.toFixed(4), "0.0510");
 * assert.ok(r.low < r.estimate && r.estimate < r.high);
 * ```
 */
export function roganGladen(counts: RoganGladenCounts, options: RoganGladenOptions = {}): RoganGladenResult {
  const c = parseOr(RoganGladenCounts, counts, "roganGladen", "counts");
  const opts = parseOr(RoganGladenOptions, options, "roganGladen", "options");
  const nPos = c.tp + c.fn, nNeg = c.tn + c.fp, nJ = c.judged_n;
  const p = nJ > 0 ? c.judged_pass / nJ : null;
  const se = nPos > 0 ? c.tp / nPos : null;
  const sp = nNeg > 0 ? c.tn / nNeg : null;
  const youden = se !== null && sp !== null ? se + sp - 1 : null;
  const basis: RoganGladenBasis = {
    judged_pass: c.judged_pass,
    judged_n: nJ,
    n_pos: nPos,
    n_neg: nNeg,
    apparent: p,
    sensitivity: se,
    specificity: sp,
    youden,
    level: opts.level,
    method: opts.method,
  };
  const refuse = (reason: string): RoganGladenRefused => ({
    ...basis,
    usable: false,
    reason,
    estimate: null,
    low: null,
    high: null,
  });
  if (p === null) return refuse("no items were judged (judged_n = 0)");
  if (se === null) return refuse("the calibration has no truly passing item (tp + fn = 0): sensitivity unknown");
  if (sp === null) return refuse("the calibration has no truly failing item (tn + fp = 0): specificity unknown");
  const j = se + sp - 1;
  if (j <= opts.min_youden) {
    const shown = j.toFixed(4);
    return refuse(
      `Se + Sp − 1 = ${shown} ≤ ${opts.min_youden}: the judge carries (almost) no information about the truth`,
    );
  }
  const theta = (p + sp - 1) / j;
  const z = normalQuantile((1 + opts.level) / 2);
  let low: number, high: number, standardError: number | null = null;
  let bootstrap: RoganGladenUsable["bootstrap"] = null;
  if (opts.method === "delta") {
    const variance = (p * (1 - p) / nJ + theta ** 2 * se * (1 - se) / nPos + (1 - theta) ** 2 * sp * (1 - sp) / nNeg) /
      j ** 2;
    standardError = Math.sqrt(variance);
    low = theta - z * standardError;
    high = theta + z * standardError;
  } else {
    const rand = mulberry32(opts.seed);
    const draws: number[] = [];
    let undefinedCount = 0;
    for (let b = 0; b < opts.resamples; b++) {
      const pb = binomial(rand, nJ, p) / nJ,
        seb = binomial(rand, nPos, se) / nPos,
        spb = binomial(rand, nNeg, sp) / nNeg;
      if (seb + spb - 1 <= 0) undefinedCount++;
      else draws.push((pb + spb - 1) / (seb + spb - 1));
    }
    const interval = percentileInterval(draws, opts.level);
    low = interval.low ?? 0;
    high = interval.high ?? 1;
    bootstrap = { resamples: opts.resamples, seed: opts.seed, resamples_undefined: undefinedCount };
  }
  return {
    ...basis,
    usable: true,
    estimate: clip(theta),
    raw_estimate: theta,
    clipped: theta < 0 || theta > 1,
    low: clip(low),
    high: clip(high),
    standard_error: standardError,
    bootstrap,
  };
}
