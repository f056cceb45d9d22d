/**
 * Departure of a signal from its low-load baseline: the tolerance rule and
 * the statistical guard, with the evidence in words.
 *
 * A signal departs at a level when its value is beyond the baseline by more
 * than its tolerance (higher-is-worse: value > baseline·(1 + rel) + abs;
 * lower-is-worse: value < baseline·(1 − rel) − abs) and the guard agrees:
 * a one-sided Fisher exact test at α for proportions, disjoint 95 %
 * confidence intervals for percentiles (distribution-free) and for tokens
 * per accepted task (seeded bootstrap), none for the server timeline and the
 * ledger's cost per accepted task (tolerance only, the reason in the evidence).
 * Repeats on both sides of the threshold make it undecidable.
 *
 * @module
 */
import type { SignalSample } from "./signals.ts";
import { type Level, type Spread, spreadOf, straddles } from "./repeats.ts";

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
  name: "fisher_exact_one_sided" | "ci_non_overlap" | "bootstrap_ci_non_overlap" | "none";
  /** Fisher's p-value; null for the other tests. */
  p_value: number | null;
  /** True when the guard confirms the departure; null when it cannot be applied. */
  significant: boolean | null;
  detail: string;
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
}

const logFactCache: number[] = [0];
function logFact(n: number): number {
  for (let k = logFactCache.length; k <= n; k++) logFactCache.push(logFactCache[k - 1]! + Math.log(k));
  return logFactCache[n]!;
}

/**
 * One-sided Fisher exact test that `x1`/`n1` is higher (or lower) than
 * `x0`/`n0`: the hypergeometric tail P(X ≥ x1) (or P(X ≤ x1)) of the level's
 * count given both margins.
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

function guard(base: SignalSample, level: SignalSample, worse: "higher" | "lower", alpha: number): GuardResult {
  if (base.test === "proportion" && level.test === "proportion") {
    if (!base.den || !level.den) {
      return { name: "fisher_exact_one_sided", p_value: null, significant: null, detail: "no data" };
    }
    const p = fisherOneSided(base.num, base.den, level.num, level.den, worse);
    return {
      name: "fisher_exact_one_sided",
      p_value: p,
      significant: p < alpha,
      detail: `${level.num}/${level.den} vs baseline ${base.num}/${base.den}: one-sided Fisher exact p = ${
        p.toPrecision(3)
      } (${p < alpha ? "<" : "≥"} α = ${alpha})`,
    };
  }
  if ((base.test === "percentile" || base.test === "bootstrap") && level.test === base.test) {
    const name = base.test === "percentile" ? "ci_non_overlap" : "bootstrap_ci_non_overlap";
    const what = base.test === "percentile" ? "distribution-free" : "bootstrap";
    // The worse side of the level's interval must clear the baseline's other side.
    const [mine, theirs] = worse === "higher" ? [level.lower, base.upper] : [level.upper, base.lower];
    if (mine === null || theirs === null) {
      const detail = `n = ${level.n} vs baseline n = ${base.n}: too few samples for a bounded 95 % ${what} CI`;
      return { name, p_value: null, significant: null, detail };
    }
    const sig = worse === "higher" ? mine > theirs : mine < theirs;
    const ci = (x: { lower: number | null; upper: number | null; n: number }) =>
      `[${r4(x.lower)}, ${r4(x.upper)}] (n = ${x.n})`;
    const detail = `95 % ${what} CI ${ci(level)} vs baseline ${ci(base)}: ${sig ? "disjoint" : "overlap"}`;
    return { name, p_value: null, significant: sig, detail };
  }
  return {
    name: "none",
    p_value: null,
    significant: null,
    detail: level.test === "none" && level.note ? level.note : "no statistical test for this signal: tolerance only",
  };
}

/** 4 significant digits for the evidence text ("∞" for a missing bound). */
export const r4 = (v: number | null): string => (v === null ? "∞" : String(Number(v.toPrecision(4))));

function thresholdOf(baseline: number, worse: "higher" | "lower", t: Tolerance): number {
  return worse === "higher" ? baseline * (1 + t.rel) + t.abs : baseline * (1 - t.rel) - t.abs;
}

/** One signal at one level against the baseline sample: value, threshold, guard, spread and verdict. */
export function departure(
  key: string,
  base: SignalSample,
  level: Level,
  worse: "higher" | "lower",
  tol: Tolerance,
  alpha: number,
): Departure {
  const sample = level.pooled.signals[key];
  const value = sample?.value ?? null;
  const common = { planned_rps: level.planned_rps, offered_rps: level.pooled.offered_rps, value, baseline: base.value };
  const spread = level.repeats.length > 1 ? spreadOf(level.repeats.map((r) => r.signals[key]?.value ?? null)) : null;
  if (!sample || value === null || base.value === null) {
    const g: GuardResult = { name: "none", p_value: null, significant: null, detail: "no data" };
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
  const g = guard(base, sample, worse, alpha);
  const out = { ...common, threshold, beyond_tolerance: beyond, guard: g, spread };
  const side = worse === "higher" ? "above" : "below";
  if (spread && straddles(spread, threshold)) {
    return { ...out, verdict: "undecidable", why: `repeats lie on both sides of the threshold ${r4(threshold)}` };
  }
  if (!beyond) return { ...out, verdict: "ok", why: `within tolerance (not ${side} ${r4(threshold)})` };
  if (g.name === "none") return { ...out, verdict: "degraded", why: `${side} ${r4(threshold)} (tolerance only)` };
  if (g.significant) return { ...out, verdict: "degraded", why: `${side} ${r4(threshold)} and ${g.detail}` };
  return { ...out, verdict: "undecidable", why: `${side} ${r4(threshold)} but ${g.detail}` };
}
