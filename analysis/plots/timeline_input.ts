/**
 * The per-second series of the run timeline, from the raw log.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { policyForRun, resolveWindow } from "../goodput/policy.ts";
import type { AnyStage } from "../../schema/imported_manifest.ts";
import { endedMs } from "../run/imported_run.ts";

/** A period to shade (an outage, a fault, a recovery), ms since the run epoch. */
export interface ShadedPeriod {
  start_ms: number;
  end_ms: number;
  label: string;
}

/** The target's own timeline, one entry per row of the server table. */
export interface ServerSeries {
  t_s: number[];
  queue_len: number[];
  running: number[];
  replicas: number[];
}

/** The input of {@linkcode timelineFigure}: per-second series over the whole run. */
export interface TimelineInput {
  /** Start of each one-second bin, seconds since the run epoch. */
  seconds: number[];
  /** Requests scheduled in the bin. */
  offered: number[];
  /** Requests completed (outcome ok) in the bin, by completed_ms. */
  completed: number[];
  /** Accepted requests in the bin, by completed_ms. */
  accepted: number[];
  /** HTTP calls open at the bin's start. */
  in_flight: number[];
  server: ServerSeries | null;
  stages: AnyStage[];
  /** Outages and other periods to shade red. @default {[]} */
  outages: ShadedPeriod[];
  /** One line: run, n, the accepted rule. */
  disclosure: string;
}

/** Options of {@linkcode timelineInput}. */
export interface TimelineInputOptions {
  /** Outages (or recoveries) to shade, e.g. from a recovery analysis. @default {[]} */
  outages?: ShadedPeriod[];
}

/** Counts of `ms` values per one-second bin `[k·1000, (k+1)·1000)`, `bins` bins. */
function perSecond(ms: ArrayLike<number | null>, bins: number): number[] {
  const out = new Array<number>(bins).fill(0);
  for (let i = 0; i < ms.length; i++) {
    const v = ms[i];
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    const k = Math.floor(v / 1000);
    if (k >= 0 && k < bins) out[k]!++;
  }
  return out;
}

const nums = (df: pl.DataFrame, col: string): (number | null)[] => df.getColumn(col).toArray() as (number | null)[];

/**
 * Per-second offered, completed and accepted counts and calls in flight
 * over the whole run (every stage, drain included), plus the server
 * timeline when the run has one. Accepted uses the policy's class SLOs and
 * gates (`classify` over a whole-run window), binned by completed_ms. An
 * attempt is in flight from sent_ms until its completed_ms, else its last
 * recorded time (last token, first token, headers), else only at sent_ms.
 */
export function timelineInput(run: LoadedRun, policy: SloPolicy, options: TimelineInputOptions = {}): TimelineInput {
  policy = policyForRun(policy, run, "timelineInput() policy");
  const stages = run.manifest.stages;
  const whole = resolveWindow(stages, { exclude_stage_kinds: [] });
  const rows = classify(run, policy, whole);
  const req = run.requests;
  const endMs = Math.max(
    endedMs(run.manifest),
    ...stages.map((s) => s.end_ms),
    Number(req.getColumn("completed_ms").max() ?? 0),
  );
  const bins = Math.max(1, Math.ceil(endMs / 1000));
  const seconds = Array.from({ length: bins }, (_, k) => k);
  const done = rows.filter(pl.col("completed"));
  const accepted = rows.filter(pl.col("accepted"));
  const completedAt = req.select("request_id", "completed_ms");
  const at = (df: pl.DataFrame) =>
    nums(df.select("request_id").join(completedAt, { on: "request_id" }), "completed_ms");

  // In flight: +1 at send, −1 at the attempt's end, sampled at each second mark.
  const a = run.attempts.select(
    pl.col("sent_ms").cast(pl.Float64),
    pl.col("completed_ms").fillNull(pl.col("last_token_ms")).fillNull(pl.col("first_token_ms"))
      .fillNull(pl.col("headers_ms")).cast(pl.Float64).alias("end_ms"),
  );
  const sent = nums(a, "sent_ms");
  const ends = nums(a, "end_ms");
  const delta = new Float64Array(bins + 1);
  for (let i = 0; i < sent.length; i++) {
    const s = sent[i]!, e = ends[i] ?? s;
    // Open at mark t = k·1000 when s ≤ t < e: marks ceil(s/1000) … ceil(e/1000) − 1.
    const from = Math.max(0, Math.ceil(s / 1000)), to = Math.min(bins, Math.ceil(e / 1000));
    if (to > from) {
      delta[from]! += 1;
      delta[to]! -= 1;
    }
  }
  const in_flight: number[] = [];
  let open = 0;
  for (let k = 0; k < bins; k++) in_flight.push(open += delta[k]!);

  const server = run.server
    ? {
      t_s: nums(run.server, "t_ms").map((t) => t! / 1000),
      queue_len: nums(run.server, "queue_len") as number[],
      running: nums(run.server, "running") as number[],
      replicas: nums(run.server, "replicas") as number[],
    }
    : null;
  return {
    seconds,
    offered: perSecond(nums(req, "scheduled_ms"), bins),
    completed: perSecond(at(done), bins),
    accepted: perSecond(at(accepted), bins),
    in_flight,
    server,
    stages,
    outages: options.outages ?? [],
    disclosure: [
      `run ${run.manifest.run_id}`,
      `window whole run (${bins} s, every stage)`,
      `n = ${req.height} offered, ${done.height} completed, ${accepted.height} accepted under the policy's class SLOs`,
    ].join("; "),
  };
}
