/**
 * Recovery after each burst and each outage: when queue, running and
 * in-flight work were back to their pre-event level, when latency was back
 * inside the SLO, what was shed or failed during and after, what stayed
 * lost; and, for bursts, autoscaling acceptance.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { Outcome } from "../schema/events.ts";
import type { SloPolicy } from "../schema/slo.ts";
import { type AutoscalingReport, autoscalingReport } from "./autoscaling.ts";
import { classify } from "./classify.ts";
import type { LoadedRun } from "./loaded_run.ts";
import {
  detectOutages,
  type OutageDetection,
  type OutageOptions,
  serverTimeline,
  type ServerTotals,
  serverTotals,
} from "./outages.ts";
import type { ResolvedWindow } from "./policy.ts";

/** Options of {@linkcode recoveryReport}. */
export interface RecoveryOptions extends OutageOptions {
  /** Length of the baseline window just before each event, ms. @default {10000} */
  baselineMs?: number;
  /** Consecutive samples that must be at or below the baseline level to count as recovered. @default {2} */
  hold?: number;
  /** Requests in the latency recovery check (the first latency-ok one and those after it). @default {10} */
  latencyRun?: number;
  /** How far below the baseline latency-ok share the run may be and still count as recovered. @default {0.05} */
  latencyTolerance?: number;
}

/** When one gauge came back to its pre-event level. */
export interface LevelRecovery {
  metric: "server_queue_len" | "server_running" | "client_in_flight";
  baseline_samples: number;
  baseline_median: number | null;
  /** The level to come back under: the nearest-rank p90 of the baseline samples. */
  baseline_upper: number | null;
  /** Highest sample from the event start to the recovery (or the end of the series). */
  peak: number | null;
  peak_ms: number | null;
  /** t of the first of `hold` consecutive samples ≤ baseline_upper, counted from the last sample at or before the
   * event end (the state when it ended; recovered_ms is then the end itself), else the first after it. */
  recovered_ms: number | null;
  recovered_after_end_ms: number | null;
}

/** When latency was back inside the SLO. */
export interface LatencyRecovery {
  /** Share of requests scheduled in the baseline window that completed within their class latency limits. */
  baseline_share: number | null;
  baseline_n: number;
  /** scheduled_ms of the first latency-ok request after the event end that starts a run of `latencyRun` requests at
   * or above the baseline share minus the tolerance. */
  recovered_ms: number | null;
  recovered_after_end_ms: number | null;
}

/** Requests scheduled in one span, by what happened to them. */
export interface RequestTally {
  from_ms: number;
  to_ms: number;
  offered: number;
  ok: number;
  accepted: number;
  /** ok after more attempts than rounds: saved by a retry. */
  rescued_by_retry: number;
  /** Not ok: shed, failed, timed out or never sent; they stayed lost (no later success in the log). */
  lost: number;
  lost_by_outcome: Partial<Record<Outcome, number>>;
}

/** Recovery from one burst or outage. */
export interface EventRecovery {
  kind: "burst" | "outage";
  name: string;
  start_ms: number;
  /** Burst: the stage end; outage: the first answered attempt (or the last down one when it never came back). */
  end_ms: number;
  ended: boolean;
  levels: LevelRecovery[];
  latency: LatencyRecovery;
  /** The latest recovery time over the levels and latency; null when one never recovered within the run. */
  recovered_ms: number | null;
  recovered_after_end_ms: number | null;
  /** Metrics that never came back within the run. */
  not_recovered: string[];
  during: RequestTally;
  /** From the event end to the recovery (or the end of the run). */
  after: RequestTally;
  server_during: ServerTotals | null;
  server_after: ServerTotals | null;
  /** Other events that start before this one has recovered (or the run ends) and end after it started. */
  overlaps: string[];
  /** Something stayed lost: requests lost, or a metric that never recovered. */
  stayed_lost: boolean;
}

/** The result of {@linkcode recoveryReport}. */
export interface RecoveryReport {
  run_id: string;
  rules: string[];
  outages: OutageDetection;
  events: EventRecovery[];
  autoscaling: AutoscalingReport;
}

const LATENCY_REASONS = new Set(["late_e2e", "late_ttft", "slow_tpot"]);

/** Nearest-rank percentile of unsorted values (null when empty). */
function rank(values: number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length, Math.max(1, Math.ceil(p * s.length - 1e-9))) - 1]!;
}

interface Series {
  metric: LevelRecovery["metric"];
  t: number[];
  v: number[];
}

function levelRecovery(s: Series, start: number, end: number, baselineMs: number, hold: number): LevelRecovery {
  const base = s.v.filter((_, i) => s.t[i]! >= start - baselineMs && s.t[i]! < start);
  const upper = rank(base, 0.9);
  let rec: number | null = null;
  if (upper !== null) {
    // Start from the state when the event ended: the last sample at or before the end (or the first after it).
    let from = s.t.findIndex((t) => t > end) - 1;
    if (from < -1) from = s.t.length - 1;
    for (let i = Math.max(0, from); i + hold - 1 < s.t.length && rec === null; i++) {
      let okRun = true;
      for (let k = i; k < i + hold; k++) okRun &&= s.v[k]! <= upper;
      if (okRun) rec = Math.max(s.t[i]!, end);
    }
  }
  let peak: number | null = null, peakMs: number | null = null;
  for (let i = 0; i < s.t.length; i++) {
    if (s.t[i]! < start || (rec !== null && s.t[i]! > rec)) continue;
    if (peak === null || s.v[i]! > peak) [peak, peakMs] = [s.v[i]!, s.t[i]!];
  }
  return {
    metric: s.metric,
    baseline_samples: base.length,
    baseline_median: rank(base, 0.5),
    baseline_upper: upper,
    peak,
    peak_ms: peakMs,
    recovered_ms: rec,
    recovered_after_end_ms: rec === null ? null : rec - end,
  };
}

/** Requests in flight (first_sent_ms ≤ t < end) at each grid time; end = completed_ms, else its last attempt's end. */
function inFlight(run: LoadedRun, grid: number[]): number[] {
  const ends = run.attempts.groupBy("request_id").agg(
    pl.col("completed_ms").fillNull(pl.col("last_token_ms")).fillNull(pl.col("headers_ms")).fillNull(pl.col("sent_ms"))
      .max().alias("_att_end"),
  );
  const r = run.requests.filter(pl.col("first_sent_ms").isNotNull())
    .join(ends, { on: "request_id", how: "left" })
    .select(
      pl.col("first_sent_ms").alias("s"),
      pl.col("completed_ms").fillNull(pl.col("_att_end")).fillNull(pl.col("first_sent_ms")).alias("e"),
    );
  const starts = Float64Array.from(r.getColumn("s").toArray() as number[]).sort();
  const stops = Float64Array.from(r.getColumn("e").toArray() as number[]).sort();
  const countLe = (a: Float64Array, x: number) => {
    let lo = 0, hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return grid.map((t) => countLe(starts, t) - countLe(stops, t));
}

interface PerRequest {
  t: number[];
  latencyOk: boolean[];
  ok: boolean[];
  accepted: boolean[];
  retried: boolean[];
  outcome: Outcome[];
}

function perRequest(run: LoadedRun, policy: SloPolicy): PerRequest {
  const sched = run.requests.getColumn("scheduled_ms");
  const lo = run.requests.height ? Number(sched.min()) : 0, hi = run.requests.height ? Number(sched.max()) + 1 : 1;
  const whole: ResolvedWindow = {
    kind: "range",
    intervals: [[lo, hi]],
    stages: [],
    measurement_seconds: (hi - lo) / 1000,
    stage_seconds: {},
    description: "the whole run",
  };
  const c = classify(run, policy, whole)
    .join(run.requests.select("request_id", "attempts", "rounds"), { on: "request_id", how: "left" })
    .sort("scheduled_ms");
  const reason = c.getColumn("reason").toArray() as (string | null)[];
  const ok = c.getColumn("completed").toArray() as boolean[];
  const att = (c.getColumn("attempts").toArray() as (number | bigint)[]).map(Number);
  const rounds = (c.getColumn("rounds").toArray() as (number | bigint)[]).map(Number);
  return {
    t: c.getColumn("scheduled_ms").toArray() as number[],
    ok,
    latencyOk: ok.map((o, i) => o && !LATENCY_REASONS.has(reason[i] ?? "")),
    accepted: c.getColumn("accepted").toArray() as boolean[],
    retried: att.map((a, i) => a > Math.max(1, rounds[i]!)),
    outcome: c.getColumn("outcome").toArray() as Outcome[],
  };
}

function latencyRecovery(
  r: PerRequest,
  start: number,
  end: number,
  o: Required<Pick<RecoveryOptions, "baselineMs" | "latencyRun" | "latencyTolerance">>,
): LatencyRecovery {
  let n = 0, good = 0;
  for (let i = 0; i < r.t.length; i++) {
    if (r.t[i]! >= start - o.baselineMs && r.t[i]! < start) [n, good] = [n + 1, good + (r.latencyOk[i] ? 1 : 0)];
  }
  const share = n ? good / n : null;
  let rec: number | null = null;
  if (share !== null) {
    const need = share - o.latencyTolerance;
    for (let i = 0; i + o.latencyRun <= r.t.length && rec === null; i++) {
      if (r.t[i]! < end || !r.latencyOk[i]) continue;
      let k = 0;
      for (let j = i; j < i + o.latencyRun; j++) k += r.latencyOk[j] ? 1 : 0;
      // Compare counts, not floats: k / run ≥ need.
      if (k >= need * o.latencyRun - 1e-9) rec = r.t[i]!;
    }
  }
  return {
    baseline_share: share,
    baseline_n: n,
    recovered_ms: rec,
    recovered_after_end_ms: rec === null ? null : rec - end,
  };
}

function tally(r: PerRequest, from: number, to: number): RequestTally {
  const out: RequestTally = {
    from_ms: from,
    to_ms: to,
    offered: 0,
    ok: 0,
    accepted: 0,
    rescued_by_retry: 0,
    lost: 0,
    lost_by_outcome: {},
  };
  for (let i = 0; i < r.t.length; i++) {
    if (r.t[i]! < from || r.t[i]! >= to) continue;
    out.offered++;
    if (r.accepted[i]) out.accepted++;
    if (r.ok[i]) {
      out.ok++;
      if (r.retried[i]) out.rescued_by_retry++;
    } else {
      out.lost++;
      out.lost_by_outcome[r.outcome[i]!] = (out.lost_by_outcome[r.outcome[i]!] ?? 0) + 1;
    }
  }
  return out;
}

/** The rules of the report in words (with the options in force). */
function rules(o: Required<Omit<RecoveryOptions, keyof OutageOptions>>): string[] {
  return [
    "bursts are the run.json stages of kind burst: [start_ms, end_ms); outages are detected from the attempts (rule below)",
    `baseline = the samples in the ${o.baselineMs} ms before the event start; the level to return under is their ` +
    "nearest-rank p90 (the median is shown too)",
    `a gauge is back to baseline at the first sample that starts ${o.hold} consecutive samples ≤ that level, ` +
    "searching from the last sample at or before the event end (then it counts as back at the end itself); gauges: server queue_len and running (server timeline), client in-flight requests " +
    "(first_sent_ms ≤ t < completed_ms, else the end of its last attempt) on the same sample times",
    `latency is back inside the SLO at the scheduled_ms of the first request scheduled at or after the event end ` +
    `that met its class latency limits (completed, e2e/TTFT/TPOT within the policy) and starts a run of ` +
    `${o.latencyRun} requests whose latency-ok share ≥ the baseline share − ${o.latencyTolerance}`,
    "recovered = the latest of those times; a metric that never came back within the run is listed as not recovered",
    "during = requests scheduled in [start, end); after = scheduled in [end, recovered) (or to the end of the run)",
    "lost = requests in those spans whose final outcome is not ok (retries already counted); " +
    "rescued_by_retry = ok requests that needed more attempts than rounds",
    "server shed/errors: timeline rows overlapping the span (a row at t counts (t − interval, t])",
  ];
}

/**
 * Recovery from every burst (stage kind `burst`) and every detected outage
 * of a run, with autoscaling acceptance for the bursts. The rules, with the
 * options in force, are in `rules`; outage detection has its own rule.
 * Gauges need the server table (client in-flight and latency do not).
 *
 * @example Recovery of a run with a planted outage
 * ```ts ignore
 * const report = recoveryReport(await loadRun("out/run-1"), await loadSloPolicy("data/slo/design-v1.json"));
 * console.log(formatRecovery(report));
 * ```
 */
export function recoveryReport(run: LoadedRun, policy: SloPolicy, options: RecoveryOptions = {}): RecoveryReport {
  const o = {
    baselineMs: options.baselineMs ?? 10_000,
    hold: options.hold ?? 2,
    latencyRun: options.latencyRun ?? 10,
    latencyTolerance: options.latencyTolerance ?? 0.05,
  };
  const outages = detectOutages(run, options);
  const server = serverTimeline(run);
  const endMs = Math.max(run.manifest.result.ended_ms, ...run.manifest.stages.map((s) => s.end_ms));
  const grid = server
    ? server.getColumn("t_ms").toArray() as number[]
    : Array.from({ length: Math.floor(endMs / 1000) + 1 }, (_, i) => i * 1000);
  const num = (c: string) => (server!.getColumn(c).toArray() as (number | bigint)[]).map(Number);
  const series: Series[] = [
    ...(server
      ? [
        { metric: "server_queue_len" as const, t: grid, v: num("queue_len") },
        { metric: "server_running" as const, t: grid, v: num("running") },
      ]
      : []),
    { metric: "client_in_flight", t: grid, v: inFlight(run, grid) },
  ];
  const req = perRequest(run, policy);
  const runEnd = Math.max(endMs, req.t.at(-1) ?? 0) + 1;

  const events = [
    ...run.manifest.stages.filter((s) => s.kind === "burst").map((s) => ({
      kind: "burst" as const,
      name: s.name,
      start: s.start_ms,
      end: s.end_ms,
      ended: true,
    })),
    ...outages.outages.map((d, i) => ({
      kind: "outage" as const,
      name: `outage-${i + 1}`,
      start: d.start_ms,
      end: d.end_ms ?? d.last_down_ms,
      ended: d.end_ms !== null,
    })),
  ].sort((a, b) => a.start - b.start);

  const recoveries: EventRecovery[] = events.map((e) => {
    const levels = series.map((s) => levelRecovery(s, e.start, e.end, o.baselineMs, o.hold));
    const latency = latencyRecovery(req, e.start, e.end, o);
    const times = [
      ...levels.map((l) => [l.metric, l.recovered_ms] as const),
      ["latency", latency.recovered_ms] as const,
    ];
    const not_recovered = times.filter(([, t]) => t === null).map(([m]) => m);
    const recovered = not_recovered.length ? null : Math.max(...times.map(([, t]) => t!));
    const afterEnd = recovered ?? runEnd;
    const during = tally(req, e.start, e.end);
    const after = tally(req, e.end, afterEnd);
    return {
      kind: e.kind,
      name: e.name,
      start_ms: e.start,
      end_ms: e.end,
      ended: e.ended,
      levels,
      latency,
      recovered_ms: recovered,
      recovered_after_end_ms: recovered === null ? null : recovered - e.end,
      not_recovered,
      during,
      after,
      server_during: serverTotals(server, e.start, e.end),
      server_after: serverTotals(server, e.end, afterEnd),
      overlaps: events.filter((x) => x !== e && x.start < afterEnd && x.end > e.start).map((x) => x.name),
      stayed_lost: during.lost + after.lost > 0 || not_recovered.length > 0 || !e.ended,
    };
  });

  const bursts = recoveries.filter((r) => r.kind === "burst").map((r) => ({
    name: r.name,
    start_ms: r.start_ms,
    end_ms: r.end_ms,
    queue_upper: r.levels.find((l) => l.metric === "server_queue_len")?.baseline_upper ?? null,
  }));
  return {
    run_id: run.manifest.run_id,
    rules: rules(o),
    outages,
    events: recoveries,
    autoscaling: autoscalingReport(run, bursts, options.profile ?? null),
  };
}
