/**
 * Autoscaling acceptance per burst, read from the server timeline: when the
 * rise was detected, when the new capacity served, where requests waited
 * meanwhile, and whether the capacity arrived before the burst ended.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { SimProfile } from "../../schema/sim_profile.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { endedMs } from "../run/imported_run.ts";
import { serverTimeline, serverTotals } from "./outages.ts";

/** One change of replicas or warming replicas between two timeline rows. */
export interface ScalingChange {
  t_ms: number;
  replicas_from: number;
  replicas_to: number;
  warming_from: number;
  warming_to: number;
}

/** Where requests waited between the burst start and the new capacity (or the end of the search). */
export interface Waiting {
  from_ms: number;
  to_ms: number;
  server_queue_max: number | null;
  server_oldest_queued_max_ms: number | null;
  server_shed: number | null;
  /** Requests scheduled in the span, those rejected (429 after retries) and the client's own largest send lag. */
  requests: number;
  rejected: number;
  client_send_lag_max_ms: number | null;
  /** Attempts sent in the span: 429s, and headers_ms − sent_ms (time to a response head) median and max. */
  attempts: number;
  attempts_429: number;
  headers_wait_p50_ms: number | null;
  headers_wait_max_ms: number | null;
  /** Sum of backoff_ms of attempts in the span that were retried (time spent waiting to retry). */
  retry_backoff_ms: number;
}

/** The verdict on one burst. */
export type ScalingVerdict = "in_time" | "scaled_too_late" | "no_scale_up";

/** Autoscaling around one burst. */
export interface BurstScaling {
  burst: string;
  start_ms: number;
  end_ms: number;
  /** Serving replicas and warming replicas at the last row at or before the burst start. */
  replicas_before: number;
  warming_before: number;
  /** First row at or after the start with queue_len above the pre-burst upper level (null: it never rose). */
  queue_rise_ms: number | null;
  queue_upper: number | null;
  /** First row in the search span where replicas_warming rose: a replica was requested (allocation began). */
  detect_ms: number | null;
  /** First row in the search span with more serving replicas than before the burst. */
  serving_ms: number | null;
  time_to_detect_ms: number | null;
  detect_after_queue_rise_ms: number | null;
  /** serving − detect: provisioning and loading together (the timeline does not separate them). */
  allocate_and_warm_ms: number | null;
  /** serving − burst end: positive when the capacity came after the burst. */
  serving_after_end_ms: number | null;
  verdict: ScalingVerdict;
  /** The search span's end: the next burst's start or the end of the timeline. */
  search_end_ms: number;
  waiting: Waiting;
  /** The profile's delays, when a profile was given: what the measured times should match. */
  planned: { detection_delay_ms: number; provisioning_delay_ms: number; loading_ms: number; cold_ms: number } | null;
}

/** The result of {@linkcode autoscaling}. */
export interface AutoscalingResult {
  /** Whether the timeline shows any scaling (a warming replica or a change of replicas). */
  observed: boolean;
  rules: string[];
  changes: ScalingChange[];
  bursts: BurstScaling[];
}

/** A burst to judge, with its pre-burst upper queue level (null when unknown). */
export interface BurstInput {
  name: string;
  start_ms: number;
  end_ms: number;
  queue_upper: number | null;
}

const RULES = [
  "replicas and replicas_warming come from the server timeline (one row per interval, gauges sampled at t_ms)",
  "detect = first row at or after the burst start where replicas_warming exceeds the row before it (a replica was requested)",
  "serving = first row at or after the burst start with more serving replicas than the last row at or before the start",
  "search span for both: from the burst start to the next burst's start or the end of the timeline",
  "in_time when serving ≤ burst end; scaled_too_late when a replica was requested (or already warming at the start, " +
  "or served) but served after the burst end or never within the run; no_scale_up when no replica was requested",
  "allocation and warm-up are both counted in replicas_warming: the timeline gives their sum (serving − detect)",
  "waiting: from the burst start to serving (or the search end); server queue and shed from the timeline, " +
  "send lag and 429s from the requests and attempts in that span",
];

/** Changes of replicas or warming replicas between consecutive timeline rows. */
export function scalingChanges(server: pl.DataFrame): ScalingChange[] {
  const t = server.getColumn("t_ms").toArray() as number[];
  const rep = (server.getColumn("replicas").toArray() as (number | bigint)[]).map(Number);
  const warm = (server.getColumn("replicas_warming").toArray() as (number | bigint)[]).map(Number);
  const out: ScalingChange[] = [];
  for (let i = 1; i < t.length; i++) {
    if (rep[i] !== rep[i - 1] || warm[i] !== warm[i - 1]) {
      out.push({
        t_ms: t[i]!,
        replicas_from: rep[i - 1]!,
        replicas_to: rep[i]!,
        warming_from: warm[i - 1]!,
        warming_to: warm[i]!,
      });
    }
  }
  return out;
}

/**
 * Autoscaling acceptance of each burst (see the rules in the result). Needs
 * the server table; without one, every burst is `no_scale_up` with null
 * times and `observed` is false.
 *
 * @example A burst whose new replica serves only after it ended
 * ```ts ignore
 * const r = autoscaling(run, [{ name: "burst", start_ms: 20000, end_ms: 30000, queue_upper: 0 }]);
 * r.bursts[0].verdict; // "scaled_too_late"
 * ```
 */
export function autoscaling(
  run: LoadedRun,
  bursts: BurstInput[],
  profile: SimProfile | null = null,
): AutoscalingResult {
  const server = serverTimeline(run);
  const changes = server ? scalingChanges(server) : [];
  const warmingSeen = server && server.height ? Number(server.getColumn("replicas_warming").max()) > 0 : false;
  const sorted = [...bursts].sort((a, b) => a.start_ms - b.start_ms);
  const lastT = server && server.height ? Number(server.getColumn("t_ms").max()) : endedMs(run.manifest);
  return {
    observed: changes.length > 0 || warmingSeen,
    rules: RULES,
    changes,
    bursts: sorted.map((b, i) => burstScaling(run, server, b, sorted[i + 1]?.start_ms ?? lastT + 1, profile)),
  };
}

function burstScaling(
  run: LoadedRun,
  server: pl.DataFrame | null,
  b: BurstInput,
  searchEnd: number,
  profile: SimProfile | null,
): BurstScaling {
  const t = server ? server.getColumn("t_ms").toArray() as number[] : [];
  const col = (c: string) => server ? (server.getColumn(c).toArray() as (number | bigint)[]).map(Number) : [];
  const rep = col("replicas"), warm = col("replicas_warming"), queue = col("queue_len");
  let before = -1;
  for (let i = 0; i < t.length && t[i]! <= b.start_ms; i++) before = i;
  const base = before >= 0 ? before : 0;
  const replicas_before = rep[base] ?? 0, warming_before = before >= 0 ? warm[before]! : 0;
  let queueRise: number | null = null, detect: number | null = null, serving: number | null = null;
  for (let i = 0; i < t.length; i++) {
    const ti = t[i]!;
    if (ti < b.start_ms || ti >= searchEnd) continue;
    if (queueRise === null && b.queue_upper !== null && queue[i]! > b.queue_upper) queueRise = ti;
    if (detect === null && i > 0 && warm[i]! > warm[i - 1]!) detect = ti;
    if (serving === null && rep[i]! > replicas_before) serving = ti;
  }
  // A replica that warmed and served between two rows shows no warming rise; its serving still counts.
  const requested = detect !== null || warming_before > 0 || serving !== null;
  const verdict: ScalingVerdict = serving !== null && serving <= b.end_ms
    ? "in_time"
    : requested
    ? "scaled_too_late"
    : "no_scale_up";
  const sub = (x: number | null, y: number | null) => (x === null || y === null ? null : x - y);
  const a = profile?.autoscaler;
  return {
    burst: b.name,
    start_ms: b.start_ms,
    end_ms: b.end_ms,
    replicas_before,
    warming_before,
    queue_rise_ms: queueRise,
    queue_upper: b.queue_upper,
    detect_ms: detect,
    serving_ms: serving,
    time_to_detect_ms: sub(detect, b.start_ms),
    detect_after_queue_rise_ms: sub(detect, queueRise),
    allocate_and_warm_ms: sub(serving, detect),
    serving_after_end_ms: sub(serving, b.end_ms),
    verdict,
    search_end_ms: searchEnd,
    waiting: waiting(run, server, b.start_ms, serving ?? searchEnd),
    planned: a?.enabled && profile
      ? {
        detection_delay_ms: a.detection_delay_ms,
        provisioning_delay_ms: a.provisioning_delay_ms,
        loading_ms: a.warmup_ms,
        cold_ms: profile.cold_start.warmup_ms,
      }
      : null,
  };
}

function waiting(run: LoadedRun, server: pl.DataFrame | null, from: number, to: number): Waiting {
  const inSpan = (c: string) => pl.col(c).gtEq(from).and(pl.col(c).lt(to));
  const rows = server ? server.filter(inSpan("t_ms")) : null;
  const maxOf = (df: pl.DataFrame | null, c: string) => (df && df.height ? Number(df.getColumn(c).max()) : null);
  const req = run.requests.filter(inSpan("scheduled_ms"));
  const att = run.attempts.filter(inSpan("sent_ms"));
  const waits = att.filter(pl.col("headers_ms").isNotNull())
    .select(pl.col("headers_ms").minus(pl.col("sent_ms")).alias("w")).getColumn("w");
  const retried = att.filter(pl.col("retry_reason").isNotNull());
  const lag = req.filter(pl.col("send_lag_ms").isNotNull());
  return {
    from_ms: from,
    to_ms: to,
    server_queue_max: maxOf(rows, "queue_len"),
    server_oldest_queued_max_ms: maxOf(rows, "oldest_queued_ms"),
    server_shed: serverTotals(server, from, to)?.shed ?? null,
    requests: req.height,
    rejected: req.filter(pl.col("outcome").eq(pl.lit("rejected"))).height,
    client_send_lag_max_ms: maxOf(lag, "send_lag_ms"),
    attempts: att.height,
    attempts_429: att.filter(pl.col("http_status").eq(429)).height,
    headers_wait_p50_ms: waits.len() ? Number(waits.median()) : null,
    headers_wait_max_ms: waits.len() ? Number(waits.max()) : null,
    retry_backoff_ms: retried.height ? Number(retried.getColumn("backoff_ms").sum()) : 0,
  };
}
