/**
 * Departure of a signal from its low-load baseline: the tolerance rule and
 * the statistical guard, with the evidence in words.
 *
 * A signal departs at a level when its value is beyond the baseline by more
 * than its tolerance (higher-is-worse: value > baseline·(1 + rel) + abs;
 * lower-is-worse: value < baseline·(1 − rel) − abs) and the guard agrees:
 * for rates, percentiles and tokens per accepted task, two one-sided tests
 * at α must both confirm it — a block bootstrap over one-second blocks of
 * scheduled time (`block_bootstrap.ts`: requests close in time are
 * correlated, so they are not taken for independent) and the same
 * comparison under independence (Fisher's exact test for rates, the
 * bootstrap over single requests otherwise), so that a few blocks never make
 * the guard bolder than independence would; none for the server timeline
 * and the ledger's cost per accepted task (tolerance only, the reason in the
 * evidence). A percentile
 * that either side's n does not support is not tested (lib/percentile_support.ts
 * `percentileTestable`: the rule the runner's plan-length warning applies).
 * Repeats on both sides of the threshold make it undecidable.
 *
 * @module
 */
import { sig } from "../../lib/number_format.ts";
import { percentileNeedText, percentileTestable } from "../../lib/percentile_support.ts";
import type { SignalSample } from "./signals.ts";
import { type Level, type Spread, spreadOf, straddles } from "./repeats.ts";
import {
  BASELINE_SEED,
  BLOCK_MS,
  BLOCK_RESAMPLES,
  blockBootstrapTest,
  type Blocks,
  LEVEL_SEED,
  MIN_BLOCKS,
  singletons,
} from "./block_bootstrap.ts";

/** A departure tolerance: relative to the baseline plus absolute, in the signal's unit. */
export interface Tolerance {
  rel: number;
  abs: number;
}

/** The default tolerance of each signal family (override any with `tolerances`). */
export const DEFAULT_TOLERANCES: Record<string, Tolerance> = {
  acceptance_rate: { rel: 0, abs: 0.02 },
  rejection_rate: { rel: 0, abs: 0.01 },
  error_rate: { rel: 0, abs: 0.01 },
  client_limit_rate: { rel: 0, abs: 0.01 },
  output_valid_rate: { rel: 0, abs: 0.02 },
  schema_ok_rate: { rel: 0, abs: 0.02 },
  quality_ok_rate: { rel: 0, abs: 0.02 },
  safety_ok_rate: { rel: 0, abs: 0.02 },
  auth_ok_rate: { rel: 0, abs: 0.02 },
  retry_amplification: { rel: 0, abs: 0.05 },
  tokens_per_accepted: { rel: 0.1, abs: 0 },
  // Tolerance only (no guard): wide enough to absorb the accepted count's sampling noise at a few dozen tasks.
  cost_per_accepted: { rel: 0.2, abs: 0 },
  e2e_p95_ms: { rel: 0.25, abs: 100 },
  e2e_p99_ms: { rel: 0.25, abs: 100 },
  ttft_p95_ms: { rel: 0.25, abs: 100 },
  ttft_p99_ms: { rel: 0.25, abs: 100 },
  server_wait_p95_ms: { rel: 0.5, abs: 100 },
  server_queue_len_mean: { rel: 0.5, abs: 1 },
  server_oldest_queued_max_ms: { rel: 0.5, abs: 250 },
};

/** The guard's result at one level. */
export interface GuardResult {
  name: "block_bootstrap_and_independent" | "none";
  /** The larger of the two one-sided p-values (the guard confirms when it is < α); null when not tested. */
  p_value: number | null;
  /** The block bootstrap's p over one-second blocks. */
  block_p_value: number | null;
  /** The same test taken under independence: Fisher's exact test for rates, the bootstrap over single requests else. */
  independent_p_value: number | null;
  /** True when the guard confirms the departure; null when it cannot be applied. */
  significant: boolean | null;
  detail: string;
}

/** Whether a degraded departure counts, and why. */
export interface Persistence {
  /** `confirmed` and `last_level` count for the knee; `transient` does not. */
  status: "confirmed" | "last_level" | "transient";
  /** What confirmed it (null unless confirmed). */
  by: "next_level" | "repeats" | null;
  why: string;
}

/** One signal at one level, against the baseline. */
export interface Departure {
  planned_rps: number;
  offered_rps: number;
  value: number | null;
  baseline: number | null;
  threshold: number | null;
  beyond_tolerance: boolean;
  guard: GuardResult;
  /** The repeats' values at this level, when there are several. */
  spread: Spread | null;
  verdict: "ok" | "degraded" | "undecidable" | "no data";
  why: string;
  /** Latency signals: the class SLO limit, and whether the repeats straddle it. */
  slo_limit_ms?: number;
  slo_undecidable?: boolean;
  /** Degraded departures in a knee report: whether it persists, so counts for the knee (persistence.ts). */
  persistence?: Persistence;
}

const logFactCache: number[] = [0];
function logFact(n: number): number {
  for (let k = logFactCache.length; k <= n; k++) logFactCache.push(logFactCache[k - 1]! + Math.log(k));
  return logFactCache[n]!;
}

/**
 * One-sided Fisher exact test that `x1`/`n1` is higher (or lower) than
 * `x0`/`n0`: the hypergeometric tail P(X ≥ x1) (or P(X ≤ x1)) of the level's
 * count given both margins. It takes the requests for independent: the
 * departure guard asks it and the block bootstrap, and confirms only when both do.
 *
 * @example 0 of 50 against 10 of 50: p ≈ 0.0006
 * ```ts
 * import assert from "node:assert/strict";
 * import { fisherOneSided } from "./departure.ts";
 * assert.ok(fisherOneSided(0, 50, 10, 50, "higher") < 0.001);
 * assert.equal(fisherOneSided(0, 50, 0, 50, "higher"), 1);
 * ```
 */
export function fisherOneSided(x0: number, n0: number, x1: number, n1: number, side: "higher" | "lower"): number {
  const K = x0 + x1, N = n0 + n1;
  const lo = Math.max(0, K - n0), hi = Math.min(K, n1);
  const logDen = logFact(N) - logFact(n1) - logFact(N - n1);
  const pmf = (k: number) =>
    Math.exp(
      logFact(K) - logFact(k) - logFact(K - k) + logFact(N - K) - logFact(n1 - k) - logFact(N - K - n1 + k) - logDen,
    );
  let p = 0;
  if (side === "higher") { for (let k = x1; k <= hi; k++) p += pmf(k); }
  else for (let k = lo; k <= x1; k++) p += pmf(k);
  return Math.min(1, p);
}

/** The method in words, for the evidence and the disclosure. */
export const BLOCK_TEST_RULE = `confirmed when two one-sided tests both give p < α: a block bootstrap over ` +
  `${BLOCK_MS / 1000} s blocks of scheduled time (non-overlapping, from each stage's start; ${BLOCK_RESAMPLES} ` +
  `resamples per side, mulberry32 seeds ${BASELINE_SEED} baseline / ${LEVEL_SEED} level; p = share of resamples ` +
  `where level − baseline is not worse; ≥ ${MIN_BLOCKS} blocks per side), which does not take requests close in ` +
  `time for independent, and the same comparison under independence (Fisher's exact test for rates, the same ` +
  `bootstrap with each request its own block otherwise), so the block test, with its few blocks, is never bolder ` +
  `than independence`;

function guard(
  base: SignalSample,
  baseBlocks: Blocks | undefined,
  level: SignalSample,
  levelBlocks: Blocks | undefined,
  worse: "higher" | "lower",
  alpha: number,
): GuardResult {
  const name = "block_bootstrap_and_independent" as const;
  const none = { p_value: null, block_p_value: null, independent_p_value: null, significant: null };
  if (base.test === "none" || level.test === "none" || base.test !== level.test) {
    return {
      name: "none",
      ...none,
      detail: level.test === "none" && level.note ? level.note : "no statistical test for this signal: tolerance only",
    };
  }
  if (base.test === "percentile" && level.test === "percentile") {
    // The rule the runner's plan-length check applies too (lib/percentile_support.ts): one implementation.
    const t = percentileTestable(level.p, { baseline: base.n, level: level.n });
    if (!t.testable) {
      const side = t.short === "both" ? "neither side's n supports" : `the ${t.short}'s n does not support`;
      return {
        name,
        ...none,
        detail: `n = ${level.n} vs baseline n = ${base.n}: ${side} this percentile, not tested (${
          percentileNeedText([level.p])
        })`,
      };
    }
  }
  if (!baseBlocks || !levelBlocks) return { name, ...none, detail: "no data" };
  const t = blockBootstrapTest(baseBlocks, levelBlocks, worse);
  const count = `${levelBlocks.at.length} blocks vs baseline ${baseBlocks.at.length}`;
  if (!t) {
    return { name, ...none, detail: `${count}: the block bootstrap needs at least ${MIN_BLOCKS} on each side` };
  }
  const rates = base.test === "proportion" && level.test === "proportion";
  const independent = rates
    ? fisherOneSided(base.num, base.den, level.num, level.den, worse)
    : blockBootstrapTest(singletons(baseBlocks), singletons(levelBlocks), worse)?.p_value ?? 1;
  const p = Math.max(t.p_value, independent);
  const significant = p < alpha;
  // A missing bound is unbounded.
  const ci = (c: [number | null, number | null]) => `[${sig(c[0], 4, "∞")}, ${sig(c[1], 4, "∞")}]`;
  const p3 = (x: number) => (x === 0 ? "0" : x.toPrecision(3));
  const counts = rates ? `${level.num}/${level.den} vs baseline ${base.num}/${base.den}: ` : "";
  return {
    name,
    p_value: p,
    block_p_value: t.p_value,
    independent_p_value: independent,
    significant,
    detail: `${counts}block bootstrap (${count} of ${BLOCK_MS / 1000} s, ${BLOCK_RESAMPLES} resamples, seeds ` +
      `${BASELINE_SEED}/${LEVEL_SEED}): 95 % CI ${ci(t.level_ci)} vs baseline ${ci(t.baseline_ci)}, p = ${
        p3(t.p_value)
      }; under independence (${rates ? "Fisher exact" : "bootstrap over requests"}) p = ${p3(independent)}: ${
        significant ? "both <" : "not both <"
      } α = ${alpha}`,
  };
}

function thresholdOf(baseline: number, worse: "higher" | "lower", t: Tolerance): number {
  return worse === "higher" ? baseline * (1 + t.rel) + t.abs : baseline * (1 - t.rel) - t.abs;
}

/**
 * One signal at one level against the baseline sample (and its blocks, for
 * the test): value, threshold, guard, spread and verdict.
 */
export function departure(
  key: string,
  base: SignalSample,
  level: Level,
  worse: "higher" | "lower",
  tol: Tolerance,
  alpha: number,
  baseBlocks?: Blocks,
): Departure {
  const sample = level.pooled.signals[key];
  const value = sample?.value ?? null;
  const common = { planned_rps: level.planned_rps, offered_rps: level.pooled.offered_rps, value, baseline: base.value };
  const spread = level.repeats.length > 1 ? spreadOf(level.repeats.map((r) => r.signals[key]?.value ?? null)) : null;
  if (!sample || value === null || base.value === null) {
    const g: GuardResult = {
      name: "none",
      p_value: null,
      block_p_value: null,
      independent_p_value: null,
      significant: null,
      detail: "no data",
    };
    return {
      ...common,
      threshold: null,
      beyond_tolerance: false,
      guard: g,
      spread,
      verdict: "no data",
      why: "no data",
    };
  }
  const threshold = thresholdOf(base.value, worse, tol);
  const beyond = worse === "higher" ? value > threshold : value < threshold;
  const g = guard(base, baseBlocks, sample, level.pooled.blocks[key], worse, alpha);
  const out = { ...common, threshold, beyond_tolerance: beyond, guard: g, spread };
  const side = worse === "higher" ? "above" : "below";
  if (spread && straddles(spread, threshold)) {
    return { ...out, verdict: "undecidable", why: `repeats lie on both sides of the threshold ${sig(threshold)}` };
  }
  if (!beyond) return { ...out, verdict: "ok", why: `within tolerance (not ${side} ${sig(threshold)})` };
  if (g.name === "none") return { ...out, verdict: "degraded", why: `${side} ${sig(threshold)} (tolerance only)` };
  if (g.significant) return { ...out, verdict: "degraded", why: `${side} ${sig(threshold)} and ${g.detail}` };
  return { ...out, verdict: "undecidable", why: `${side} ${sig(threshold)} but ${g.detail}` };
}
