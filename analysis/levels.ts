/**
 * Signals per load level: what the log (and the target's own timeline, when
 * the run has one) says about each steady or burst stage. A level is one
 * planned offered rate; its points are the stages (of one or several runs)
 * that offered it.
 *
 * @module
 */
import pl from "nodejs-polars";
import { InputError } from "../schema/errors.ts";
import type { Stage } from "../schema/plan.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { classify, GATE_ORDER } from "./classify.ts";
import { costSample, LevelCoster, type LevelPricing } from "./level_cost.ts";
import type { LoadedRun } from "./loaded_run.ts";
import { percentileWithCI } from "./percentile.ts";
import { policyForRun, runWindow } from "./policy.ts";
import { ratioBootstrap } from "./ratio_bootstrap.ts";
import type { SignalSample } from "./signals.ts";

export { signalFamily, SIGNALS, type SignalSample, type SignalSpec, type Worse } from "./signals.ts";

/** Signals at one point: one stage of one run, or several pooled. */
export interface LevelPoint {
  /** Runs and stages pooled into this point. */
  parts: { run_id: string; stage: string; kind: Stage["kind"] }[];
  /** The planned rate (run.json stages offered_rps). */
  planned_rps: number;
  /** Sum of the stages' durations, s. */
  seconds: number;
  offered: number;
  /** Measured: offered / seconds. */
  offered_rps: number;
  accepted: number;
  /** accepted / seconds. */
  accepted_goodput: number;
  signals: Record<string, SignalSample>;
}

/** A run read for the level analysis: one row per request of its steady and burst stages. */
export interface PreparedRun {
  run_id: string;
  /** The run's folder (for messages). */
  dir: string;
  /** Its steady and burst stages. */
  stages: Stage[];
  requests: pl.DataFrame;
  /** Per-second timeline summed over routes (t_ms, queue_len, oldest_queued_ms), or null. */
  server: pl.DataFrame | null;
  /** Prices its stages with the cost ledger, when price sheets were given. */
  coster: LevelCoster | null;
}

const F64 = pl.Float64;
const ERRORS = ["http_error", "transport_error", "invalid_response", "aborted", "timeout"];
const PERCENTILES = [["e2e", "e2e_ms"], ["ttft", "ttft_ms"]] as const;

/**
 * Classifies every request of the run's steady and burst stages under the
 * policy's class SLOs (the policy window is not used: levels are stages) and
 * joins what the signals need from `attempts`. With `pricing`, each level is
 * also priced by the cost ledger (`cost_per_accepted`).
 */
export function prepareRun(run: LoadedRun, policy: SloPolicy, pricing: LevelPricing | null = null): PreparedRun {
  policy = policyForRun(policy, run, "prepareRun() policy");
  const stages = run.manifest.stages.filter((s) => s.kind === "steady" || s.kind === "burst");
  if (!stages.length) {
    const cut = run.end.cut_ms === null ? "" : ` before the end of its log (${run.end.headline})`;
    throw new InputError(
      `${run.dir}: run.json stages has no steady or burst stage${cut}: there is no load level to analyse`,
    );
  }
  const window = runWindow(run, { exclude_stage_kinds: ["warmup", "drain"] });
  const rows = classify(run, policy, window);
  const att = run.attempts.withColumns(
    pl.col("round").cast(F64).mul(1e6).add(pl.col("attempt").cast(F64)).alias("_order"),
  );
  const perRequest = att.groupBy("request_id").agg(
    pl.col("request_id").count().cast(F64).alias("calls"),
    pl.col("round").nUnique().cast(F64).alias("model_calls"),
    pl.col("input_tokens").add(pl.col("output_tokens")).cast(F64).sum().alias("tokens"),
  );
  const first = att.filter(pl.col("_order").eq(pl.col("_order").min().over("request_id"))).select(
    pl.col("request_id"),
    pl.col("headers_ms").cast(F64).sub(pl.col("sent_ms").cast(F64)).alias("server_wait_ms"),
  );
  const ok = pl.col("outcome").eq(pl.lit("ok"));
  const requests = rows
    .join(run.requests.select("request_id", "send_lag_ms", "error_kind", ...GATE_ORDER), {
      on: "request_id",
      how: "left",
    })
    .join(perRequest, { on: "request_id", how: "left" })
    .join(first, { on: "request_id", how: "left" })
    .select(
      "stage",
      "class",
      "outcome",
      "accepted",
      pl.when(ok).then(pl.col("e2e_ms")).otherwise(pl.lit(null)).cast(F64).alias("e2e_ms"),
      pl.when(ok).then(pl.col("ttft_ms")).otherwise(pl.lit(null)).cast(F64).alias("ttft_ms"),
      ...GATE_ORDER,
      pl.col("calls").fillNull(0),
      pl.col("model_calls").fillNull(0),
      pl.col("tokens").fillNull(0),
      "server_wait_ms",
      // For the level exclusions (verdicts.ts): the client's lateness and what ended a request.
      pl.col("send_lag_ms").cast(F64),
      "error_kind",
    );
  let server: pl.DataFrame | null = null;
  if (run.server && run.server.height) {
    server = run.server.groupBy("t_ms").agg(
      pl.col("queue_len").cast(F64).sum().alias("queue_len"),
      pl.col("oldest_queued_ms").cast(F64).max().alias("oldest_queued_ms"),
    );
  }
  const coster = pricing ? new LevelCoster(run, policy, pricing) : null;
  return { run_id: run.manifest.run_id, dir: run.dir, stages, requests, server, coster };
}

function proportion(num: number, den: number, value?: number | null): SignalSample {
  return { test: "proportion", value: value !== undefined ? value : den ? num / den : null, num, den };
}

function pct(values: Float64Array, p: number): SignalSample {
  const ci = percentileWithCI(values, p);
  return { test: "percentile", value: ci.value, n: ci.n, lower: ci.lower, upper: ci.upper, supported: ci.supported };
}

const sumOf = (df: pl.DataFrame, col: string): number => (df.height ? Number(df.getColumn(col).sum()) : 0);

function column(df: pl.DataFrame, col: string): Float64Array {
  const s = df.getColumn(col).dropNulls();
  return Float64Array.from(s.toArray() as number[]).filter((v) => !Number.isNaN(v));
}

/**
 * The signals of one point: the requests of the given (run, stage) parts
 * pooled (counts summed, percentiles over the union of values), with the
 * measured offered rate and accepted goodput over the parts' total seconds.
 * `cost_per_accepted` is there when the runs were prepared with pricing.
 */
export function pointSignals(parts: { run: PreparedRun; stage: Stage }[]): LevelPoint {
  if (!parts.length) throw new RangeError("pointSignals: no parts");
  const frames = parts.map((p) => p.run.requests.filter(pl.col("stage").eq(pl.lit(p.stage.name))));
  const df = frames.length === 1 ? frames[0]! : pl.concat(frames, { how: "vertical" });
  const seconds = parts.reduce((s, p) => s + (p.stage.end_ms - p.stage.start_ms) / 1000, 0);
  const offered = df.height;
  const count = (expr: pl.Expr): number => df.filter(expr).height;
  const outcome = pl.col("outcome");
  const accepted = count(pl.col("accepted"));
  const signals: Record<string, SignalSample> = {
    acceptance_rate: proportion(accepted, offered),
    rejection_rate: proportion(count(outcome.eq(pl.lit("rejected"))), offered),
    error_rate: proportion(count(outcome.isIn(ERRORS)), offered),
    client_limit_rate: proportion(count(outcome.isIn(["not_sent", "client_shed"])), offered),
  };
  const done = df.filter(outcome.eq(pl.lit("ok")));
  for (const g of GATE_ORDER) {
    const evaluated = done.filter(pl.col(g).isNotNull());
    if (evaluated.height) signals[`${g}_rate`] = proportion(evaluated.filter(pl.col(g)).height, evaluated.height);
  }
  const calls = sumOf(df, "calls"), modelCalls = sumOf(df, "model_calls");
  signals.retry_amplification = proportion(calls - modelCalls, calls, modelCalls ? calls / modelCalls : null);
  signals.tokens_per_accepted = ratioBootstrap(column(df, "tokens"), df.getColumn("accepted").toArray() as boolean[]);
  if (parts.every((p) => p.run.coster)) signals.cost_per_accepted = levelCost(parts, offered, accepted);
  const classes = (done.getColumn("class").unique().toArray() as string[]).sort();
  for (const [name, col] of PERCENTILES) {
    for (const cls of ["all", ...classes]) {
      const values = column(cls === "all" ? done : done.filter(pl.col("class").eq(pl.lit(cls))), col);
      // A class whose completed requests were not streamed has no TTFT (not observable): no signal, not "no data".
      if (name === "ttft" && cls !== "all" && !values.length) continue;
      signals[`${name}_p95_ms@${cls}`] = pct(values, 0.95);
      signals[`${name}_p99_ms@${cls}`] = pct(values, 0.99);
    }
  }
  signals.server_wait_p95_ms = pct(column(df, "server_wait_ms"), 0.95);
  const timeline = parts.flatMap((p) =>
    p.run.server
      ? [p.run.server.filter(pl.col("t_ms").gtEq(p.stage.start_ms).and(pl.col("t_ms").lt(p.stage.end_ms)))]
      : []
  );
  if (timeline.length === parts.length) {
    const tl = timeline.length === 1 ? timeline[0]! : pl.concat(timeline, { how: "vertical" });
    const n = tl.height;
    signals.server_queue_len_mean = { test: "none", value: n ? sumOf(tl, "queue_len") / n : null, n };
    const oldest = n ? Number(tl.getColumn("oldest_queued_ms").max()) : null;
    signals.server_oldest_queued_max_ms = { test: "none", value: oldest, n };
  }
  return {
    parts: parts.map((p) => ({ run_id: p.run.run_id, stage: p.stage.name, kind: p.stage.kind })),
    planned_rps: parts[0]!.stage.offered_rps,
    seconds,
    offered,
    offered_rps: seconds ? offered / seconds : 0,
    accepted,
    accepted_goodput: seconds ? accepted / seconds : 0,
    signals,
  };
}

/** The ledger's cost per accepted task over the parts: one ledger per run, over that run's stages of the point. */
function levelCost(parts: { run: PreparedRun; stage: Stage }[], offered: number, accepted: number): SignalSample {
  const byRun = new Map<PreparedRun, string[]>();
  for (const p of parts) byRun.set(p.run, [...(byRun.get(p.run) ?? []), p.stage.name]);
  const sets = [...byRun].map(([run, stages]) => ({ coster: run.coster!, dir: run.dir, stages }));
  return costSample(sets, { offered, accepted });
}
