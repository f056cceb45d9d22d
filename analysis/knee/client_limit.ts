/**
 * Where the client, not the target, was the limit: a stage or load level the
 * runner did not offer in full, or sent late; and load levels the end of an
 * incomplete run cut. Such levels are left out of the knee.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { Stage } from "../../schema/plan.ts";
import { ratedStages } from "../run/imported_run.ts";
import { isProduction } from "../run/production_run.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { PreparedRun } from "./levels.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";
import type { Level } from "./repeats.ts";
import { RESTORED_KIND } from "../run/run_end.ts";
import { CLIENT_LIMIT_RULE as SHARED_RULE, type StageVerdict, stageVerdict } from "../../lib/client_limit_rule.ts";

/** The rule, stated in the disclosure and the docs: the shared one (lib/client_limit_rule.ts), re-judged from the log. */
export const CLIENT_LIMIT_RULE = `${SHARED_RULE}. The analysis re-judges every run from its log; run.json ` +
  "result.client_limited is the runner's verdict at the time (runs before this rule: a fixed 5 ms p99 bar)";

/** Levels the knee leaves out because the end of the run, not the target, decided their last requests. */
export const CUT_LEVEL_RULE =
  "a load level is cut by the end of an incomplete run when the run's window ends inside one of its stages: at the " +
  "log's end, or at the first request the stop cut off (censored: aborted in flight, error_kind run_stopped, or " +
  `restored from the schedule, error_kind ${RESTORED_KIND}), so a level that holds a censored request is cut and ` +
  "its censored requests are in no count; a level whose stages start at or after the window's end was not measured " +
  "and drops out. A request the stop cut off after it had already run past its e2e limit under the policy is a " +
  "failure (late_e2e), not censored, and does not cut its level";

/**
 * The client-limit verdict of one stage or level (lib/client_limit_rule.ts `stageVerdict`): `lag` is the send lag
 * tested against the gap at the percentile its n supports.
 */
export type ClientLimit = StageVerdict;

const r3 = (x: number) => +x.toFixed(3);
const secs = (ms: number) => `${r3(ms / 1000)} s`;

/**
 * The {@linkcode CLIENT_LIMIT_RULE} over one stage's or level's requests.
 *
 * @example 3 of 100 requests not sent: client-limited; a 10 ms p95 lag at 8 req/s (125 ms apart) is not
 * ```ts
 * import { clientLimit } from "./client_limit.ts";
 * import assert from "node:assert/strict";
 * const outcomes = Array.from({ length: 100 }, (_, i) => (i < 3 ? "not_sent" : "ok"));
 * assert.equal(clientLimit({ outcomes, lags: Array(100).fill(1), plannedRps: 8 }).limited, true);
 * const late = clientLimit({ outcomes: Array(100).fill("ok"), lags: Array(100).fill(10), plannedRps: 8 });
 * assert.deepEqual([late.limited, late.lag?.p, late.lag?.lag_ms, late.gap_ms], [false, 0.95, 10, 125]);
 * ```
 */
export function clientLimit(
  s: {
    outcomes: readonly string[];
    lags: readonly (number | null)[];
    plannedRps: number;
    /** Each request's error_kind: a not_sent a stop left (run_stopped) is not the client's. @default none */
    errorKinds?: readonly (string | null)[];
  },
): ClientLimit {
  const not_offered =
    s.outcomes.filter((o, i) => o === "client_shed" || (o === "not_sent" && s.errorKinds?.[i] !== "run_stopped"))
      .length;
  const lags = Float64Array.from(s.lags.filter((v): v is number => v !== null && !Number.isNaN(v))).sort();
  return stageVerdict({ offered: s.outcomes.length, not_offered, lags, planned_rps: s.plannedRps });
}

/** A stage of the window with its client-limit verdict. */
export type StageClientLimit = ClientLimit & { stage: string; planned_rps: number };

/**
 * The {@linkcode CLIENT_LIMIT_RULE} for each stage of the window that offered requests, in run order; none for a
 * production recording (the app is the client: `PRODUCTION_CLIENT_RULE`).
 */
export function stageClientLimits(run: LoadedRun, window: ResolvedWindow): StageClientLimit[] {
  if (isProduction(run.manifest)) return [];
  // A stage with no planned rate (imported, closed loop) has no planned gap to judge the send lag against.
  const stages = ratedStages(run.manifest.stages.filter((s) => window.stages.includes(s.name)));
  const sched = pl.col("scheduled_ms");
  return stages.flatMap((st: Stage) => {
    const inside = window.intervals.map(([a, b]) =>
      sched.gtEq(Math.max(a, st.start_ms)).and(sched.lt(Math.min(b, st.end_ms)))
    )
      .reduce((x, y) => x.or(y));
    const df = run.requests.filter(pl.col("stage").eq(pl.lit(st.name)).and(inside))
      .select("outcome", "send_lag_ms", "error_kind");
    if (!df.height) return [];
    const limit = clientLimit({
      outcomes: df.getColumn("outcome").toArray() as string[],
      lags: df.getColumn("send_lag_ms").toArray() as (number | null)[],
      plannedRps: st.offered_rps,
      errorKinds: df.getColumn("error_kind").toArray() as (string | null)[],
    });
    return [{ stage: st.name, planned_rps: st.offered_rps, ...limit }];
  });
}

/** A load level the knee leaves out, and why. */
export interface ExcludedLevel {
  planned_rps: number;
  offered_rps: number;
  /** Its stages (`run_id:stage` when several runs). */
  stages: string[];
  /** `client_limited` ({@linkcode CLIENT_LIMIT_RULE}) and/or `cut` ({@linkcode CUT_LEVEL_RULE}). */
  reasons: ("client_limited" | "cut")[];
  why: string;
  client: ClientLimit;
}

/**
 * Splits the knee's levels into those tested and those left out: a level is
 * excluded when it is client-limited or cut by the end of its run. A level of
 * production recordings only is never judged client-limited (the app is the
 * client); a cut window of a recording still open is excluded like any cut.
 */
export function excludeLevels(
  levels: Level[],
  prepared: PreparedRun[],
  runs: LoadedRun[],
): { tested: Level[]; excluded: ExcludedLevel[] } {
  const byId = new Map(prepared.map((p, i) => [p.run_id, { p, run: runs[i]! }]));
  const tested: Level[] = [];
  const excluded: ExcludedLevel[] = [];
  for (const level of levels) {
    const outcomes: string[] = [], lags: (number | null)[] = [], kinds: (string | null)[] = [], cutBy: string[] = [];
    for (const part of level.pooled.parts) {
      const { p, run } = byId.get(part.run_id)!;
      const df = p.requests.filter(pl.col("stage").eq(pl.lit(part.stage)));
      outcomes.push(...(df.getColumn("outcome").toArray() as string[]));
      lags.push(...(df.getColumn("send_lag_ms").toArray() as (number | null)[]));
      kinds.push(...(df.getColumn("error_kind").toArray() as (string | null)[]));
      const clipped = p.stages.find((s) => s.name === part.stage)!;
      const planned = run.end.planned_stages.find((s) => s.name === part.stage);
      if (planned && planned.end_ms > clipped.end_ms) {
        cutBy.push(`the window ends inside ${part.stage} (at ${secs(run.end.cut_ms!)} of ${secs(planned.end_ms)})`);
      }
      // A request the stop cut off after it had run past its e2e limit is a decided failure (run.end.decided_ids),
      // counted in its level like any failure: it does not cut the level.
      const cutOff = pl.col("error_kind").eq(pl.lit(RESTORED_KIND))
        .or(pl.col("outcome").eq(pl.lit("aborted")).and(pl.col("error_kind").eq(pl.lit("run_stopped"))));
      const decided = run.end.decided_ids.length
        ? run.requests.filter(
          pl.col("stage").eq(pl.lit(part.stage)).and(pl.col("request_id").isIn(run.end.decided_ids)),
        )
          .height
        : 0;
      const ended = df.filter(cutOff).height - decided;
      if (ended) cutBy.push(`${ended} of its requests in ${part.stage} were in flight when the run ended`);
    }
    const recorded = level.pooled.parts.every((part) => isProduction(byId.get(part.run_id)!.run.manifest));
    const client = recorded
      ? { ...clientLimit({ outcomes, lags, plannedRps: 0 }), limited: false, why: null }
      : clientLimit({ outcomes, lags, plannedRps: level.planned_rps, errorKinds: kinds });
    const reasons: ExcludedLevel["reasons"] = [];
    if (client.limited) reasons.push("client_limited");
    if (cutBy.length) reasons.push("cut");
    if (!reasons.length) {
      tested.push(level);
      continue;
    }
    const several = new Set(level.pooled.parts.map((x) => x.run_id)).size > 1;
    excluded.push({
      planned_rps: level.planned_rps,
      offered_rps: level.pooled.offered_rps,
      stages: level.pooled.parts.map((x) => (several ? `${x.run_id}:${x.stage}` : x.stage)),
      reasons,
      why: [...(client.why ? [`client-limited: ${client.why}`] : []), ...cutBy.map((c) => `cut: ${c}`)].join("; "),
      client,
    });
  }
  return { tested, excluded };
}
