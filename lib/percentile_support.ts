/**
 * When the knee can test a percentile signal, and how long a step must be for it: the one rule that the knee's
 * departure guard (analysis/knee/departure.ts) and the runner's plan-length check (runner/plan_length.ts, run by
 * `deno task plan` and by a run before ms 0) both apply, so a plan judged long enough is one the knee can decide on.
 *
 * The knee judges each load level on percentile signals — the p-percentiles of {@linkcode KNEE_PERCENTILES} of e2e
 * and TTFT, over all classes and per class, and the p95 of the server wait — against the baseline (the lowest
 * level). Their departure is tested only when the n of **both** sides is at least the supported rule's minimum:
 * MLPerf LoadGen's early-stopping rule (lib/early_stopping.ts, docs/percentiles.md) with no sample above the bound,
 * the smallest n with pⁿ ≤ 1 − confidence (99 % one-sided by default: 90 for p95, 459 for p99), and each side holds
 * at least {@linkcode MIN_BLOCKS} one-second blocks for the block bootstrap. With fewer the percentile is not
 * tested, and a value beyond its tolerance is "undecidable", never "degraded".
 *
 * @module
 */
import { DEFAULT_SUPPORT_CONFIDENCE, earlyStoppingMinSamples, type EarlyStoppingOptions } from "./early_stopping.ts";
import { percent } from "./number_format.ts";
import { percentLabel } from "./percentile_checks.ts";

/** The block bootstrap's block: one second of scheduled time. */
export const BLOCK_MS = 1000;
/** Fewer blocks on a side than this and the block bootstrap is not applied (with 5 there are C(9, 5) = 126 resamples). */
export const MIN_BLOCKS = 5;
/** The percentiles of e2e and TTFT the knee judges each level on (keys `e2e_p95_ms@class`, …). */
export const KNEE_PERCENTILES: readonly number[] = [0.95, 0.99];

/**
 * The n a p-percentile signal needs on each side before the knee tests its departure: the supported rule's
 * minimum, `earlyStoppingMinSamples(p, 0)` (Infinity for p = 1).
 *
 * @example p95 needs 90 samples, p99 459 (99 % one-sided)
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileNeed } from "./percentile_support.ts";
 * // 0.95^90 = 0.00989 ≤ 0.01 < 0.95^89 = 0.01041; 0.99^459 = 0.00992 ≤ 0.01 < 0.99^458 = 0.01002
 * assert.deepEqual([percentileNeed(0.95), percentileNeed(0.99)], [90, 459]);
 * ```
 */
export function percentileNeed(p: number, options: EarlyStoppingOptions = {}): number {
  return earlyStoppingMinSamples(p, 0, options);
}

/**
 * Whether n samples support a p-percentile (n ≥ {@linkcode percentileNeed}): the knee's `supported` of a
 * percentile signal.
 *
 * @example 89 samples do not support a p95, 90 do
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileSupported } from "./percentile_support.ts";
 * assert.deepEqual([percentileSupported(0.95, 89), percentileSupported(0.95, 90)], [false, true]);
 * ```
 */
export function percentileSupported(p: number, n: number, options: EarlyStoppingOptions = {}): boolean {
  return n >= percentileNeed(p, options);
}

/** Whether a percentile departure can be tested, and which side's n falls short. */
export interface PercentileTestability {
  testable: boolean;
  /** The n each side needs. */
  need: number;
  /** The side (or both) whose n is below `need`; null when testable. */
  short: "baseline" | "level" | "both" | null;
}

/**
 * The knee's rule for one percentile signal at one level: testable when the baseline's n and the level's n are both
 * at least {@linkcode percentileNeed}.
 *
 * @example A level of 89 against a baseline of 200: the level's n falls short of 90
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileTestable } from "./percentile_support.ts";
 * assert.deepEqual(percentileTestable(0.95, { baseline: 200, level: 89 }), { testable: false, need: 90, short: "level" });
 * ```
 */
export function percentileTestable(
  p: number,
  n: { baseline: number; level: number },
  options: EarlyStoppingOptions = {},
): PercentileTestability {
  const need = percentileNeed(p, options);
  const base = n.baseline >= need, level = n.level >= need;
  const short = base && level ? null : !base && !level ? "both" : base ? "level" : "baseline";
  return { testable: short === null, need, short };
}

/**
 * The rule in words, with the n each percentile needs: printed with every verdict it makes (the knee's guard, the
 * plan-length warning).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { percentileNeedText } from "./percentile_support.ts";
 * assert.equal(
 *   percentileNeedText([0.95, 0.99]),
 *   "p95 needs n ≥ 90 and p99 n ≥ 459 on each side (MLPerf LoadGen's early-stopping rule at 99 % one-sided " +
 *     "confidence) and ≥ 5 one-second blocks",
 * );
 * ```
 */
export function percentileNeedText(ps: readonly number[], options: EarlyStoppingOptions = {}): string {
  const c = options.confidence ?? DEFAULT_SUPPORT_CONFIDENCE;
  const needs = [...new Set(ps)].sort((a, b) => a - b).map((p, i) => {
    const n = percentileNeed(p, options);
    return `${percentLabel(p)}${i === 0 ? " needs" : ""} n ≥ ${n === Infinity ? "∞" : n}`;
  });
  const list = needs.length > 1 ? `${needs.slice(0, -1).join(", ")} and ${needs.at(-1)}` : needs.join("");
  return `${list} on each side (MLPerf LoadGen's early-stopping rule at ${percent(c)} one-sided confidence) and ≥ ` +
    `${MIN_BLOCKS} ${BLOCK_MS === 1000 ? "one-second" : `${BLOCK_MS} ms`} blocks`;
}

/** ⌊x⌋ with float noise at whole numbers settled (0.3 · 300 is 90, not 89). */
export function floorCount(x: number): number {
  return Math.floor(x + 1e-9 * Math.max(1, Math.abs(x)));
}

/** ⌈x⌉ with float noise at whole numbers settled (90 / 0.3 is 300, not 301). */
export function ceilCount(x: number): number {
  return Math.ceil(x - 1e-9 * Math.max(1, Math.abs(x)));
}

/**
 * The seconds of offered load at `samplesPerSecond` (a level's rate times the share of its requests that count for
 * the signal) that give a percentile its `need` samples and the block bootstrap its blocks:
 * max(⌈need / samplesPerSecond⌉, MIN_BLOCKS · BLOCK_MS / 1000). Infinity when nothing counts.
 *
 * @example p95 at 3 req/s needs 30 s; at half of 3 req/s, 60 s; at 100 req/s the 5 blocks bind
 * ```ts
 * import assert from "node:assert/strict";
 * import { secondsForSamples } from "./percentile_support.ts";
 * // ⌈90 / 3⌉ = 30; ⌈90 / 1.5⌉ = 60; ⌈90 / 100⌉ = 1 < 5
 * assert.deepEqual([secondsForSamples(90, 3), secondsForSamples(90, 1.5), secondsForSamples(90, 100)], [30, 60, 5]);
 * ```
 */
export function secondsForSamples(need: number, samplesPerSecond: number): number {
  if (!(samplesPerSecond > 0) || need === Infinity) return Infinity;
  return Math.max(ceilCount(need / samplesPerSecond), (MIN_BLOCKS * BLOCK_MS) / 1000);
}
