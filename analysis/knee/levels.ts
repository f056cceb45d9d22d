/**
 * Signals per load level: what the log (and the target's own timeline, when
 * the run has one) says about each steady or burst stage. A level is one
 * planned offered rate; its points are the stages (of one or several runs)
 * that offered it.
 *
 * @module
 */
import pl from "nodejs-polars";
import { InputError } from "../../schema/errors.ts";
import {
  BLOCK_MS,
  type BlockRows,
  type Blocks,
  percentileInterval,
  quantileBlocks,
  ratioBlocks,
  resampleBlocks,
} from "./block_bootstrap.ts";
import type { Stage } from "../../schema/plan.ts";
import { hasTimeWindow, isImported, NO_TIME_WINDOW_RULE, ratedStages } from "../run/imported_run.ts";
import { isProduction } from "../run/production_run.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify, GATE_ORDER } from "../goodput/classify.ts";
import { costSample, LevelCoster, type LevelPricing } from "./level_cost.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { HELD_BACK_KIND } from "../recovery/retries.ts";
import { percentileWithCI } from "../latency/percentile.ts";
import { KNEE_PERCENTILES, percentileSupported } from "../../lib/percentile_support.ts";
import { percentLabel } from "../../lib/percentile_checks.ts";
import { policyForRun, runWindow } from "../goodput/policy.ts";
import type { SignalSample } from "./signals.ts";

export { signalFamily, SIGNALS, type SignalSample, type SignalSpec, type Worse } from "./signals.ts";

/** Signals at one point: one stage of one run, or several pooled. */
export interface LevelPoint {
  /** Runs and stages pooled into this point (with the stage's span, run ms). */
  parts: { run_id: string; stage: string; kind: Stage["kind"]; start_ms: number; end_ms: number }[];
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
  /**
   * Input tokens the target served from its prompt cache: Σ cached_input_tokens / Σ input_tokens over the point's
   * requests (each request's counts sum the attempts that gave an answer, from the target's usage). Not a knee
   * signal: a share that rises with the rate makes higher levels cheaper than the traffic they stand for
   * (docs/knee.md). `share` null when no input token was counted.
   */
  cached_input: { cached: number; input: number; share: number | null };
  signals: Record<string, SignalSample>;
  /** Each sampled signal in one-second blocks of scheduled time, for the departure test (block_bootstrap.ts). */
  blocks: Record<string, Blocks>;
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
  /** Server columns a polled engine does not expose (run.json `server_metrics`): 0 in the table, no signal. */
  serverNotExposed: ReadonlySet<string>;
  /** Prices its stages with the cost ledger, when price sheets were given. */
  coster: LevelCoster | null;
  /** What was left out of the levels and why, one line each (a batch route's requests: docs/batch.md). */
  disclosures: string[];
}

const F64 = pl.Float64;
const ERRORS = ["http_error", "transport_error", "invalid_response", "aborted", "timeout"];
const PERCENTILES = [["e2e", "e2e_ms"], ["ttft", "ttft_ms"]] as const;
/** The requests' token counts behind each level's cached input share. */
const TOKEN_COLUMNS = ["input_tokens", "cached_input_tokens"] as const;

/**
 * Classifies every request of the run's steady and burst stages under the
 * policy's class SLOs (the policy window is not used: levels are stages) and
 * joins what the signals need from `attempts`. With `pricing`, each level is
 * also priced by the cost ledger (`cost_per_accepted`).
 */
export function prepareRun(run: LoadedRun, policy: SloPolicy, pricing: LevelPricing | null = null): PreparedRun {
  policy = policyForRun(policy, run, "prepareRun() policy");
  // A production recording has no warm-up or drain: each of its stage windows is a level at its observed rate.
  const recorded = isProduction(run.manifest);
  const loads = recorded
    ? run.manifest.stages
    : run.manifest.stages.filter((s) => s.kind === "steady" || s.kind === "burst");
  // An imported stage the tool ran closed-loop has no planned rate: not a load level.
  const stages = ratedStages(loads);
  if (!stages.length) {
    const cut = run.end.cut_ms === null ? "" : ` before the end of its log (${run.end.headline})`;
    const unrated = loads.length
      ? `: its ${loads.length} stage(s) have no planned rate (imported from ${
        isImported(run.manifest) ? run.manifest.source.tool : "?"
      }, which set none: closed loop)`
      : "";
    throw new InputError(
      `${run.dir}: run.json stages has no steady or burst stage with a planned rate${cut}${unrated}: there is no ` +
        "load level to analyse",
    );
  }
  if (!hasTimeWindow(run.manifest)) throw new InputError(`${run.dir}: ${NO_TIME_WINDOW_RULE}: there is no load level`);
  const window = runWindow(run, { exclude_stage_kinds: recorded ? [] : ["warmup", "drain"] });
  const { kept: rows, disclosures } = withoutBatchRoutes(run, classify(run, policy, window));
  // Calls are sent attempts: a row held back by its route's limit made no HTTP call (as in retries.ts).
  const att = run.attempts.filter(pl.col("error_kind").eq(pl.lit(HELD_BACK_KIND)).fillNull(false).not()).withColumns(
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
    .join(run.requests.select("request_id", "send_lag_ms", "error_kind", ...GATE_ORDER, ...TOKEN_COLUMNS), {
      on: "request_id",
      how: "left",
    })
    .join(perRequest, { on: "request_id", how: "left" })
    .join(first, { on: "request_id", how: "left" })
    .select(
      "stage",
      pl.col("scheduled_ms").cast(F64),
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
      ...TOKEN_COLUMNS.map((c) => pl.col(c).cast(F64).fillNull(0)),
    );
  let server: pl.DataFrame | null = null;
  if (run.server && run.server.height) {
    server = run.server.groupBy("t_ms").agg(
      pl.col("queue_len").cast(F64).sum().alias("queue_len"),
      pl.col("oldest_queued_ms").cast(F64).max().alias("oldest_queued_ms"),
    );
  }
  const coster = pricing ? new LevelCoster(run, policy, pricing) : null;
  // A sharded run's server table is shard 0's: every shard's run.json is asked what it says about it.
  const serverNotExposed = new Set(
    run.manifests.flatMap((m) => ("server_metrics" in m ? m.server_metrics?.targets ?? [] : []))
      .filter((t) => t.source !== null).flatMap((t) => t.not_exposed),
  );
  return { run_id: run.manifest.run_id, dir: run.dir, stages, requests, server, serverNotExposed, coster, disclosures };
}

/**
 * The classified rows less the requests of the run's batch routes (run.json `routing.routes.<name>.batch`), with one
 * disclosure line per batch route naming it and its count. A batch route's requests wait for their batch to close and
 * for the provider's turnaround, whatever the offered rate: they say nothing about the load a live service bears, so
 * the knee and the capacity are those of the live routes. Goodput and cost per accepted task count them
 * (docs/batch.md).
 */
export function withoutBatchRoutes(run: LoadedRun, rows: pl.DataFrame): { kept: pl.DataFrame; disclosures: string[] } {
  const routes = ("routing" in run.manifest ? run.manifest.routing?.routes : undefined) ?? {};
  const batch = Object.keys(routes).filter((r) => (routes[r] as { batch?: unknown }).batch !== undefined);
  if (!batch.length || !rows.height) return { kept: rows, disclosures: [] };
  const ids = run.requests.filter(pl.col("route").isIn(batch)).select("request_id", pl.col("route").alias("_batch"));
  const out = rows.join(ids, { on: "request_id", how: "left" });
  const disclosures: string[] = [];
  for (const route of batch) {
    const n = out.filter(pl.col("_batch").eq(pl.lit(route))).height;
    if (n) {
      disclosures.push(
        `${run.dir}: ${n} request(s) of batch route "${route}" left out of the knee and capacity (a batch route's ` +
          "latency is its batch window and turnaround, not load); goodput and cost per accepted task count them",
      );
    }
  }
  return { kept: out.filter(pl.col("_batch").isNull()).drop("_batch"), disclosures };
}

const sumOf = (df: pl.DataFrame, col: string): number => (df.height ? Number(df.getColumn(col).sum()) : 0);

const numbers = (df: pl.DataFrame, col: string): (number | null)[] => df.getColumn(col).toArray() as (number | null)[];
const flags = (df: pl.DataFrame, expr: pl.Expr): boolean[] =>
  df.select(expr.fillNull(false).alias("_f")).getColumn("_f").toArray() as boolean[];

/** The rows' blocks and the signal samples built on them. */
class Sampler {
  readonly rows: BlockRows;
  readonly blocks: Record<string, Blocks> = {};
  readonly #df: pl.DataFrame;

  constructor(df: pl.DataFrame) {
    this.#df = df;
    this.rows = { part: numbers(df, "_part") as number[], second: numbers(df, "_second") as number[] };
  }

  /** Rows where `num` holds, of rows where `den` holds (every row when not given). */
  proportion(key: string, num: pl.Expr, den?: pl.Expr): SignalSample {
    const keep = den ? flags(this.#df, den) : undefined;
    const hit = flags(this.#df, num).map((v) => (v ? 1 : 0));
    const b = ratioBlocks(this.rows, { num: hit, den: hit.map(() => 1), ...(keep ? { keep } : {}) });
    this.blocks[key] = b;
    let x = 0, n = 0;
    for (let i = 0; i < b.num.length; i++) {
      x += b.num[i]!;
      n += b.den[i]!;
    }
    return { test: "proportion", value: n ? x / n : null, num: x, den: n };
  }

  /** Σ num / Σ den per block over every row. */
  ratio(key: string, num: number[], den: number[]): Blocks {
    return this.blocks[key] = ratioBlocks(this.rows, { num, den });
  }

  /** The p-percentile of the rows' values (null left out), with its distribution-free CI and support flag. */
  percentile(key: string, values: (number | null)[], p: number): SignalSample {
    const b = quantileBlocks(this.rows, values, p);
    this.blocks[key] = b;
    const ci = percentileWithCI(values.filter((v): v is number => v !== null && !Number.isNaN(v)), p);
    const supported = percentileSupported(p, ci.n);
    return { test: "percentile", p, value: ci.value, n: ci.n, lower: ci.lower, upper: ci.upper, supported };
  }
}

/**
 * The signals of one point: the requests of the given (run, stage) parts
 * pooled (counts summed, percentiles over the union of values), with the
 * measured offered rate and accepted goodput over the parts' total seconds.
 * `cost_per_accepted` is there when the runs were prepared with pricing.
 * Each sampled signal is also kept in one-second blocks of scheduled time
 * (`blocks`), seconds counted from each stage's start.
 */
export function pointSignals(parts: { run: PreparedRun; stage: Stage }[]): LevelPoint {
  if (!parts.length) throw new RangeError("pointSignals: no parts");
  const frames = parts.map((p, i) =>
    p.run.requests.filter(pl.col("stage").eq(pl.lit(p.stage.name))).withColumns(
      pl.lit(i).cast(F64).alias("_part"),
      pl.col("scheduled_ms").sub(p.stage.start_ms).div(BLOCK_MS).floor().clip(0, 1e9).alias("_second"),
    )
  );
  const df = frames.length === 1 ? frames[0]! : pl.concat(frames, { how: "vertical" });
  const seconds = parts.reduce((s, p) => s + (p.stage.end_ms - p.stage.start_ms) / 1000, 0);
  const offered = df.height;
  const outcome = pl.col("outcome");
  const ok = outcome.eq(pl.lit("ok"));
  const sm = new Sampler(df);
  const signals: Record<string, SignalSample> = {
    acceptance_rate: sm.proportion("acceptance_rate", pl.col("accepted")),
    rejection_rate: sm.proportion("rejection_rate", outcome.eq(pl.lit("rejected"))),
    error_rate: sm.proportion("error_rate", outcome.isIn(ERRORS)),
    client_limit_rate: sm.proportion("client_limit_rate", outcome.isIn(["not_sent", "client_shed"])),
  };
  const accepted = (signals.acceptance_rate as { num: number }).num;
  for (const g of GATE_ORDER) {
    const sample = sm.proportion(`${g}_rate`, pl.col(g), ok.and(pl.col(g).isNotNull()));
    if (sample.test === "proportion" && sample.den) signals[`${g}_rate`] = sample;
    else delete sm.blocks[`${g}_rate`];
  }
  const calls = sumOf(df, "calls"), modelCalls = sumOf(df, "model_calls");
  const callsOf = numbers(df, "calls") as number[], modelOf = numbers(df, "model_calls") as number[];
  sm.ratio("retry_amplification", callsOf.map((c, i) => c - modelOf[i]!), callsOf);
  signals.retry_amplification = {
    test: "proportion",
    value: modelCalls ? calls / modelCalls : null,
    num: calls - modelCalls,
    den: calls,
  };
  const tokens = numbers(df, "tokens") as number[];
  const acc = flags(df, pl.col("accepted")).map((v) => (v ? 1 : 0));
  const tpa = sm.ratio("tokens_per_accepted", tokens, acc);
  // Its own 95 % interval: the block bootstrap with seed 1 (a resample without an accepted task is +∞).
  const [lower, upper] = accepted ? percentileInterval(resampleBlocks(tpa, 1)) : [null, null];
  signals.tokens_per_accepted = {
    test: "bootstrap",
    value: accepted ? tokens.reduce((a, b) => a + b, 0) / accepted : null,
    n: accepted,
    lower,
    upper,
  };
  if (parts.every((p) => p.run.coster)) signals.cost_per_accepted = levelCost(parts, offered, accepted);
  const done = flags(df, ok);
  const cls = df.getColumn("class").toArray() as string[];
  const classes = [...new Set(cls.filter((_, i) => done[i]))].sort();
  for (const [name, col] of PERCENTILES) {
    const values = numbers(df, col);
    for (const c of ["all", ...classes]) {
      const mine = values.map((v, i) => (done[i] && (c === "all" || cls[i] === c) ? v : null));
      // A class whose completed requests were not streamed has no TTFT (not observable): no signal, not "no data".
      if (name === "ttft" && c !== "all" && mine.every((v) => v === null)) continue;
      for (const p of KNEE_PERCENTILES) {
        const key = `${name}_${percentLabel(p)}_ms@${c}`;
        signals[key] = sm.percentile(key, mine, p);
      }
    }
  }
  signals.server_wait_p95_ms = sm.percentile("server_wait_p95_ms", numbers(df, "server_wait_ms"), 0.95);
  const timeline = parts.flatMap((p) =>
    p.run.server
      ? [p.run.server.filter(pl.col("t_ms").gtEq(p.stage.start_ms).and(pl.col("t_ms").lt(p.stage.end_ms)))]
      : []
  );
  if (timeline.length === parts.length) {
    const tl = timeline.length === 1 ? timeline[0]! : pl.concat(timeline, { how: "vertical" });
    const n = tl.height;
    signals.server_queue_len_mean = { test: "none", value: n ? sumOf(tl, "queue_len") / n : null, n };
    // An engine that does not expose its queue's age (llama.cpp, vLLM) writes 0 there: no signal, not a flat one.
    if (parts.every((p) => !p.run.serverNotExposed.has("oldest_queued_ms"))) {
      const oldest = n ? Number(tl.getColumn("oldest_queued_ms").max()) : null;
      signals.server_oldest_queued_max_ms = { test: "none", value: oldest, n };
    }
  }
  return {
    parts: parts.map((p) => ({
      run_id: p.run.run_id,
      stage: p.stage.name,
      kind: p.stage.kind,
      start_ms: p.stage.start_ms,
      end_ms: p.stage.end_ms,
    })),
    planned_rps: parts[0]!.stage.offered_rps,
    seconds,
    offered,
    offered_rps: seconds ? offered / seconds : 0,
    accepted,
    accepted_goodput: seconds ? accepted / seconds : 0,
    cached_input: cachedInput(df),
    signals,
    blocks: sm.blocks,
  };
}

/** Σ cached_input_tokens / Σ input_tokens of the point's requests. */
function cachedInput(df: pl.DataFrame): LevelPoint["cached_input"] {
  const cached = sumOf(df, "cached_input_tokens"), input = sumOf(df, "input_tokens");
  return { cached, input, share: input > 0 ? cached / input : null };
}

/** The ledger's cost per accepted task over the parts: one ledger per run, over that run's stages of the point. */
function levelCost(parts: { run: PreparedRun; stage: Stage }[], offered: number, accepted: number): SignalSample {
  const byRun = new Map<PreparedRun, string[]>();
  for (const p of parts) byRun.set(p.run, [...(byRun.get(p.run) ?? []), p.stage.name]);
  const sets = [...byRun].map(([run, stages]) => ({ coster: run.coster!, dir: run.dir, stages }));
  return costSample(sets, { offered, accepted });
}
