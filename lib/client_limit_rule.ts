/**
 * When the client, not the target, was the limit: the one rule the runner (its run.json verdict) and the analysis
 * (every run re-judged from its log) apply, stated in {@linkcode CLIENT_LIMIT_RULE} and docs/verdicts.md
 * ("Client-limited runs, stages and load levels"). A verdict fires only when the client could have changed a result:
 *
 * - (a) **not offered**: a request the runner did not send (`not_sent`, but not those a stop leaves: `error_kind`
 *   `run_stopped`) or shed (`client_shed`) is a failure in the offered denominator that the target never saw;
 * - (b) **lag against the gap**: a stage's send lag at the percentile its n supports (p95 at most) longer than the
 *   mean gap between its planned arrivals (1000 / planned rps ms): requests went out in later requests' slots, so the
 *   target did not see the planned arrival process;
 * - (c) **lag against the latency limits** (the analysis, under its SLO policy): a request that missed its TTFT or
 *   e2e limit by less than its own send lag and passes every other check, so it would have been accepted had the
 *   client sent it on time (latency is measured from `scheduled_ms`, so the lag is inside every TTFT and e2e).
 *
 * A tail figure is used only where the sample supports it: the lag percentile tested is the highest of
 * {@linkcode LAG_PERCENTILES} (at most the test's own, p95 for the gap) that n supports by MLPerf LoadGen's
 * early-stopping rule (lib/percentile_support.ts: n ≥ 90 for p95, 44 for p90, 17 for p75, 7 for p50); below 7 no
 * percentile is supported and the test asks whether every request's lag was over the bar. Otherwise the lag is a
 * figure ({@linkcode lagFigure}), not a verdict.
 *
 * @module
 */
import { sig } from "./number_format.ts";
import { percentLabel } from "./percentile_checks.ts";
import { percentileSupported } from "./percentile_support.ts";

/** The lag percentiles a test or a figure may use, highest first: each is used only where n supports it. */
export const LAG_PERCENTILES: readonly number[] = [0.99, 0.95, 0.9, 0.75, 0.5];

/**
 * The highest percentile of the gap test (b): p95, not p99 — one pause of the runner's event loop delays a request or
 * two; a client that cannot keep up delays many.
 */
export const GAP_PERCENTILE = 0.95;

/** The percentile a fixed bar (`--lag-limit-ms`) is held to when n supports it: p99. */
export const FIXED_BAR_PERCENTILE = 0.99;

/** The rule, as the disclosures and docs state it. */
export const CLIENT_LIMIT_RULE =
  "client-limited when the client could have changed a result: (a) any request not sent (outcome not_sent, but not " +
  "error_kind run_stopped) or shed (client_shed); (b) in a stage (a knee level: its stages, repeats pooled), the send " +
  "lag at the highest of p95, p90, p75, p50 that its n supports (MLPerf LoadGen early stopping, 99 %: n ≥ 90, 44, " +
  "17, 7; below 7, every request's lag) longer than the mean gap between planned arrivals, 1000 / planned rps ms; " +
  "(c) under the SLO policy (analysis only), any request that missed its TTFT or e2e limit by less than its own send " +
  "lag and passed every other check. Otherwise the lag is a figure, not a verdict";

/**
 * The highest of {@linkcode LAG_PERCENTILES} no higher than `top` that n samples support (n ≥ the early-stopping
 * minimum); null when n supports none (n < 7).
 *
 * @example 23 requests support p75 (n ≥ 17) but not p90 (n ≥ 44)
 * ```ts
 * import assert from "node:assert/strict";
 * import { supportedLagPercentile } from "./client_limit_rule.ts";
 * assert.equal(supportedLagPercentile(23, 0.95), 0.75);
 * assert.equal(supportedLagPercentile(459, 0.99), 0.99);
 * assert.equal(supportedLagPercentile(6, 0.95), null);
 * ```
 */
export function supportedLagPercentile(n: number, top: number): number | null {
  return LAG_PERCENTILES.find((p) => p <= top && percentileSupported(p, n)) ?? null;
}

/** The nearest-rank p-percentile of ascending values: the ⌈p·n⌉-th smallest. */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/** A lag test against one bar. */
export interface LagCheck {
  /** Requests with a send lag. */
  n: number;
  /** The percentile tested (the highest ≤ the test's own that n supports); null: n supports none, every lag tested. */
  p: number | null;
  /** The lag at `p` (nearest rank); when `p` is null the least lag; null when n = 0. */
  lag_ms: number | null;
  bar_ms: number;
  /** Requests whose lag is above the bar. */
  over: number;
  /** `lag_ms` > `bar_ms`. */
  limited: boolean;
}

/**
 * Ascending send lags against a bar, at the highest percentile ≤ `top` that their n supports.
 *
 * @example p95 of 100 lags against a 50 ms gap
 * ```ts
 * import assert from "node:assert/strict";
 * import { lagCheck } from "./client_limit_rule.ts";
 * // 94 lags of 1 ms, 6 of 60 ms: the 95th smallest (⌈0.95 × 100⌉) is 60 ms > 50 ms.
 * const lags = [...Array(94).fill(1), ...Array(6).fill(60)];
 * assert.deepEqual(lagCheck(lags, 50, 0.95), { n: 100, p: 0.95, lag_ms: 60, bar_ms: 50, over: 6, limited: true });
 * ```
 */
export function lagCheck(sorted: ArrayLike<number>, barMs: number, top: number): LagCheck {
  const n = sorted.length;
  let over = 0;
  for (let i = n - 1; i >= 0 && sorted[i]! > barMs; i--) over++;
  if (n === 0) return { n, p: null, lag_ms: null, bar_ms: barMs, over, limited: false };
  const p = supportedLagPercentile(n, top);
  const lag = p === null ? sorted[0]! : nearestRank(sorted, p);
  return { n, p, lag_ms: lag, bar_ms: barMs, over, limited: lag > barMs };
}

const ms = (v: number) => `${sig(v, 3)} ms`;

/**
 * A lag test in words: `p95 send lag 60 ms > 50 ms gap (n = 100)`, or with too few requests for any percentile,
 * `all 5 send lags > 50 ms gap (n = 5 supports no percentile)`.
 */
export function lagCheckText(c: LagCheck, bar: string): string {
  const cmp = c.limited ? ">" : "≤";
  if (c.p === null) {
    return c.limited
      ? `all ${c.n} send lags > ${ms(c.bar_ms)} ${bar} (n = ${c.n} supports no percentile)`
      : `${c.over} of ${c.n} send lags > ${ms(c.bar_ms)} ${bar} (n = ${c.n} supports no percentile)`;
  }
  return `${percentLabel(c.p)} send lag ${ms(c.lag_ms!)} ${cmp} ${ms(c.bar_ms)} ${bar} (n = ${c.n})`;
}

/**
 * The lag as a figure, not a verdict: the highest percentile of {@linkcode LAG_PERCENTILES} its n supports, and the
 * maximum.
 *
 * @example 23 lags: p75 is the highest percentile they support
 * ```ts
 * import assert from "node:assert/strict";
 * import { lagFigure } from "./client_limit_rule.ts";
 * const lags = Array.from({ length: 23 }, (_, i) => i + 1); // 1..23 ms
 * // ⌈0.75 × 23⌉ = 18: the 18th smallest is 18 ms.
 * assert.equal(lagFigure(lags), "send lag p75 18 ms (n = 23), max 23 ms");
 * ```
 */
export function lagFigure(sorted: ArrayLike<number>): string {
  const n = sorted.length;
  if (!n) return "no send lag (no request was dispatched)";
  const p = supportedLagPercentile(n, FIXED_BAR_PERCENTILE);
  const max = ms(sorted[n - 1]!);
  return p === null
    ? `send lag max ${max} (n = ${n} supports no percentile)`
    : `send lag ${percentLabel(p)} ${ms(nearestRank(sorted, p))} (n = ${n}), max ${max}`;
}

/** What one stage (or knee level) holds for the rule's (a) and (b). */
export interface StageEvidence {
  /** Requests scheduled in it. */
  offered: number;
  /** Of those, not sent (but a stop's) or shed. */
  not_offered: number;
  /** Send lags of its requests that have one (sent or not), ascending. */
  lags: ArrayLike<number>;
  /** The planned rate, req/s; 0 or less: no planned gap (closed loop, imported, a recording), no lag test. */
  planned_rps: number;
}

/** One stage's (or level's) verdict under (a) and (b). */
export interface StageVerdict {
  limited: boolean;
  offered: number;
  not_offered: number;
  /** 1000 / planned rps: the mean gap between planned arrivals; null without a planned rate. */
  gap_ms: number | null;
  /** The lag test against the gap; null without a planned rate. */
  lag: LagCheck | null;
  /** Why it is client-limited, short; null when it is not. */
  why: string | null;
}

/**
 * (a) and (b) over one stage or load level.
 *
 * @example 3 of 100 not sent: limited; a 10 ms p95 lag at 8 req/s (125 ms apart) is not
 * ```ts
 * import assert from "node:assert/strict";
 * import { stageVerdict } from "./client_limit_rule.ts";
 * const lags = Array(100).fill(10);
 * assert.equal(stageVerdict({ offered: 100, not_offered: 3, lags, planned_rps: 8 }).limited, true);
 * const v = stageVerdict({ offered: 100, not_offered: 0, lags, planned_rps: 8 });
 * assert.deepEqual([v.limited, v.gap_ms, v.lag?.lag_ms], [false, 125, 10]);
 * ```
 */
export function stageVerdict(s: StageEvidence): StageVerdict {
  const gap = s.planned_rps > 0 ? 1000 / s.planned_rps : null;
  const lag = gap === null ? null : lagCheck(s.lags, gap, GAP_PERCENTILE);
  const why: string[] = [];
  if (s.not_offered) why.push(`${s.not_offered} of ${s.offered} not sent or shed`);
  if (lag?.limited) why.push(lagCheckText(lag, "gap"));
  return {
    limited: why.length > 0,
    offered: s.offered,
    not_offered: s.not_offered,
    gap_ms: gap,
    lag,
    why: why.length ? why.join("; ") : null,
  };
}

/** (c): the requests the client's own lag made fail a latency limit, under an SLO policy. */
export interface LatencyFlips {
  /** Requests in the window that failed a TTFT or e2e limit (`late_e2e`, `late_ttft`). */
  late: number;
  /** Of those, the ones accepted with their own send lag taken off their TTFT and e2e: the client's doing. */
  flipped: number;
}

/**
 * (c) in words, or null when no verdict flipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { flipsText } from "./client_limit_rule.ts";
 * assert.equal(flipsText({ late: 40, flipped: 2 }), "2 of 40 late requests late only by their own send lag");
 * assert.equal(flipsText({ late: 40, flipped: 0 }), null);
 * ```
 */
export function flipsText(f: LatencyFlips): string | null {
  if (!f.flipped) return null;
  return `${f.flipped} of ${f.late} late request${f.late === 1 ? "" : "s"} late only by ${
    f.flipped === 1 ? "its" : "their"
  } own send lag`;
}
