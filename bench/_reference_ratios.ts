/**
 * The runner against the reference sender, per rate: the ratios runner / reference of CPU per request and of p99 and
 * max send lag in each round, their median and spread over rounds, and whether each sender kept pace.
 *
 * @module
 */

/** One sender's figures at one rate in one round. */
export interface StepFigures {
  /** Offered (planned) rate, req/s. */
  rate: number;
  round: number;
  requests: number;
  ok: number;
  not_sent: number;
  /** The process's user + system CPU over its life, ms. */
  cpu_ms: number;
  /** Nearest-rank p99 and max send lag of the steady stage, ms. */
  p99_ms: number;
  max_ms: number;
  /** Answered requests per second, from the first scheduled time to the last completion. */
  completed_rps: number;
  /** The process's CPU over a window of the steady stage, ms, and the requests scheduled in it; null: not measured. */
  window_cpu_ms?: number | null;
  window_requests?: number;
}

/** A ratio's value in each round, its median and its range over rounds. */
export interface RatioSpread {
  rounds: number[];
  median: number;
  min: number;
  max: number;
}

/** Per rate: the three ratios runner / reference and whether each sender kept pace in every round. */
export interface RateRatios {
  rate: number;
  cpu_per_request: RatioSpread;
  p99_lag: RatioSpread;
  max_lag: RatioSpread;
  /** CPU per request over the steady window (start-up and the end left out); null where a step lacks it. */
  window_cpu_per_request: RatioSpread | null;
  runner_kept_pace: boolean;
  reference_kept_pace: boolean;
}

/** Share of the offered rate the completions must reach to count as keeping pace. */
export const PACE_SHARE = 0.98;

/**
 * The median of `xs`: the middle value, or the mean of the two middle ones (NaN when empty).
 *
 * @example Odd and even counts
 * ```ts
 * import { median } from "./_reference_ratios.ts";
 * import assert from "node:assert/strict";
 * assert.equal(median([3, 1, 2]), 2);
 * assert.equal(median([4, 1, 3, 2]), 2.5); // (2 + 3) / 2
 * ```
 */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  if (s.length === 0) return NaN;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Values per round, median, min and max.
 *
 * @example Three rounds
 * ```ts
 * import { spreadOf } from "./_reference_ratios.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(spreadOf([1.5, 1.2, 2]), { rounds: [1.5, 1.2, 2], median: 1.5, min: 1.2, max: 2 });
 * ```
 */
export function spreadOf(rounds: readonly number[]): RatioSpread {
  return { rounds: [...rounds], median: median(rounds), min: Math.min(...rounds), max: Math.max(...rounds) };
}

/**
 * Every request answered, none not sent, and completions at least {@linkcode PACE_SHARE} of the offered rate.
 *
 * @example 98 % of the rate is enough, one failure is not
 * ```ts
 * import { keptPace } from "./_reference_ratios.ts";
 * import assert from "node:assert/strict";
 * const s = { rate: 100, round: 1, requests: 600, ok: 600, not_sent: 0, cpu_ms: 1, p99_ms: 1, max_ms: 1, completed_rps: 98 };
 * assert.equal(keptPace(s), true);
 * assert.equal(keptPace({ ...s, ok: 599 }), false);
 * assert.equal(keptPace({ ...s, completed_rps: 97.9 }), false);
 * ```
 */
export function keptPace(s: StepFigures): boolean {
  return s.ok === s.requests && s.not_sent === 0 && s.completed_rps >= PACE_SHARE * s.rate;
}

/**
 * The ratios runner / reference per rate, pairing the two senders' steps by rate and round; a rate or round one
 * sender lacks is left out. Rates come out ascending, rounds in round order.
 *
 * @example One rate, two rounds
 * ```ts
 * import { rateRatios } from "./_reference_ratios.ts";
 * import assert from "node:assert/strict";
 * const s = (round: number, cpu_ms: number, p99_ms: number) =>
 *   ({ rate: 50, round, requests: 300, ok: 300, not_sent: 0, cpu_ms, p99_ms, max_ms: 2 * p99_ms, completed_rps: 50 });
 * const [r] = rateRatios([s(1, 600, 3), s(2, 450, 2)], [s(1, 300, 2), s(2, 300, 1)]);
 * assert.deepEqual(r!.cpu_per_request.rounds, [2, 1.5]); // 600 / 300, 450 / 300
 * assert.equal(r!.p99_lag.median, 1.75); // (1.5 + 2) / 2
 * assert.equal(r!.runner_kept_pace, true);
 * ```
 */
export function rateRatios(runner: readonly StepFigures[], reference: readonly StepFigures[]): RateRatios[] {
  const rates = [...new Set(runner.map((s) => s.rate))].sort((a, b) => a - b);
  const out: RateRatios[] = [];
  for (const rate of rates) {
    const pairs = runner.filter((s) => s.rate === rate).sort((a, b) => a.round - b.round)
      .map((a) => [a, reference.find((b) => b.rate === rate && b.round === a.round)] as const)
      .filter((p): p is readonly [StepFigures, StepFigures] => p[1] !== undefined);
    if (pairs.length === 0) continue;
    const ratio = (f: (s: StepFigures) => number) => spreadOf(pairs.map(([a, b]) => f(a) / f(b)));
    const windowed = pairs.every(([a, b]) => [a, b].every((s) => s.window_cpu_ms != null && s.window_requests! > 0));
    out.push({
      rate,
      cpu_per_request: ratio((s) => s.cpu_ms / s.requests),
      p99_lag: ratio((s) => s.p99_ms),
      max_lag: ratio((s) => s.max_ms),
      window_cpu_per_request: windowed ? ratio((s) => s.window_cpu_ms! / s.window_requests!) : null,
      runner_kept_pace: pairs.every(([a]) => keptPace(a)),
      reference_kept_pace: pairs.every(([, b]) => keptPace(b)),
    });
  }
  return out;
}
