/**
 * The client verdict of a whole run, re-judged from its log by the shared rule (lib/client_limit_rule.ts,
 * docs/verdicts.md): (a) and (b) over each stage of the window, and (c) under the SLO policy in use — the requests
 * the client's own send lag made late. run.json's `result.client_limited` is the runner's verdict at the time (older
 * runs: a fixed 5 ms p99 bar); it is reported beside this one, never instead of it.
 *
 * @module
 */
import pl from "nodejs-polars";
import { flipsText, lagFigure, type LatencyFlips } from "../../lib/client_limit_rule.ts";
import { sig } from "../../lib/number_format.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { isProduction } from "../run/production_run.ts";
import { type StageClientLimit, stageClientLimits } from "./client_limit.ts";

export type { LatencyFlips };

/**
 * Clause (c): of the requests in the window that failed a TTFT or e2e limit (`late_e2e`, `late_ttft`), those
 * accepted once their own send lag is taken off their TTFT and e2e (first_token_ms and completed_ms moved earlier by
 * `send_lag_ms`; every other check as it was). Latency runs from `scheduled_ms`, so the lag is inside both: such a
 * request missed its limit by less than the client's lateness.
 *
 * @example A request 3,004 ms to its answer against a 3,000 ms limit, 5 ms of it the client's: flipped
 * ```ts ignore
 * // e2e 3004 > 3000 (late_e2e); 3004 − 5 = 2999 ≤ 3000: accepted without the lag.
 * latencyFlips(run, policy, window); // { late: 1, flipped: 1 }
 * ```
 */
export function latencyFlips(run: LoadedRun, policy: SloPolicy, window: ResolvedWindow): LatencyFlips {
  const lag = pl.col("send_lag_ms").fillNull(0);
  const early: LoadedRun = {
    ...run,
    requests: run.requests.withColumns(
      pl.col("first_token_ms").minus(lag).alias("first_token_ms"),
      pl.col("completed_ms").minus(lag).alias("completed_ms"),
    ),
  };
  // classify keeps the requests' row order, so the two classifications line up row by row.
  const reasons = classify(run, policy, window).getColumn("reason").toArray() as (string | null)[];
  const accepted = classify(early, policy, window).getColumn("accepted").toArray() as boolean[];
  let late = 0, flipped = 0;
  for (const [i, r] of reasons.entries()) {
    if (r !== "late_e2e" && r !== "late_ttft") continue;
    late++;
    if (accepted[i]) flipped++;
  }
  return { late, flipped };
}

/** A run's client verdict, re-judged from its log. */
export interface RunClientLimit {
  limited: boolean;
  /** Why, in one short line's worth; null when not limited. */
  reason: string | null;
  /** Every stage of the window that offered requests, with its (a) and (b) verdict. */
  stages: StageClientLimit[];
  /** (c) under the policy; null when no policy was given. */
  flips: LatencyFlips | null;
  /** The window's send lag as a figure (`lagFigure`). */
  lag_figure: string;
}

const rps = (x: number) => `${sig(x)} req/s`;

/**
 * The shared rule over a run's window: client-limited when a stage is ((a), (b)) or, with a policy, any request was
 * late only by its own send lag ((c)). Null for a production recording (the app is the client).
 */
export function runClientLimit(
  run: LoadedRun,
  window: ResolvedWindow,
  policy: SloPolicy | null,
): RunClientLimit | null {
  if (isProduction(run.manifest)) return null;
  const stages = stageClientLimits(run, window);
  const flips = policy ? latencyFlips(run, policy, window) : null;
  const limited = stages.filter((s) => s.limited);
  const parts = limited.slice(0, 2).map((s) => `${s.stage} (${rps(s.planned_rps)}): ${s.why}`);
  if (limited.length > 2) parts.push(`${limited.length - 2} more stages (--json client.stages)`);
  const flipped = flips ? flipsText(flips) : null;
  if (flipped) parts.push(flipped);
  const sched = pl.col("scheduled_ms");
  const inside = window.intervals.map(([a, b]) => sched.gtEq(a).and(sched.lt(b))).reduce((x, y) => x.or(y));
  const lags = run.requests.filter(inside.and(pl.col("send_lag_ms").isNotNull()))
    .getColumn("send_lag_ms").toArray() as number[];
  return {
    limited: parts.length > 0,
    reason: parts.length ? parts.join("; ") : null,
    stages,
    flips,
    lag_figure: lagFigure(Float64Array.from(lags).sort()),
  };
}
