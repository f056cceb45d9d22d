/**
 * Recovery after each burst and each outage: when queue, running and
 * in-flight work were back to their pre-event level, when latency was back
 * inside the SLO, what was shed or failed during and after, what stayed
 * lost; and, for bursts, autoscaling acceptance.
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import {
  inFlight,
  type LatencyRecovery,
  latencyRecovery,
  type LevelRecovery,
  levelRecovery,
  perRequest,
  type RequestTally,
  type Series,
  tally,
} from "./_recovery_series.ts";
import { autoscaling, type AutoscalingResult } from "./autoscaling.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import { endedMs } from "../run/imported_run.ts";
import {
  detectOutages,
  type OutageDetection,
  type OutageOptions,
  serverTimeline,
  type ServerTotals,
  serverTotals,
} from "./outages.ts";
import { policyForRun } from "../goodput/policy.ts";

export type { LatencyRecovery, LevelRecovery, RequestTally };

/** Options of {@linkcode recovery}. */
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

/** The result of {@linkcode recovery}. */
export interface RecoveryResult {
  run_id: string;
  rules: string[];
  outages: OutageDetection;
  events: EventRecovery[];
  autoscaling: AutoscalingResult;
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
 * const report = recovery(await loadRun("out/run-1"), await loadSloPolicy("data/slo/design-v1.json"));
 * console.log(formatRecovery(report));
 * ```
 */
export function recovery(run: LoadedRun, policy: SloPolicy, options: RecoveryOptions = {}): RecoveryResult {
  policy = policyForRun(policy, run, "recovery() policy");
  const o = {
    baselineMs: options.baselineMs ?? 10_000,
    hold: options.hold ?? 2,
    latencyRun: options.latencyRun ?? 10,
    latencyTolerance: options.latencyTolerance ?? 0.05,
  };
  const outages = detectOutages(run, options);
  const server = serverTimeline(run);
  const endMs = Math.max(endedMs(run.manifest), ...run.manifest.stages.map((s) => s.end_ms));
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
    autoscaling: autoscaling(run, bursts, options.profile ?? null),
  };
}
