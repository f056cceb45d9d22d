/**
 * The per-event measurements behind `recovery`: gauge
 * series (server queue and running, client in-flight) and when each came
 * back under its baseline, per-request latency outcomes and when latency
 * came back inside the SLO, and tallies of what happened to requests in a
 * span. Private to analysis/recovery/recovery.ts.
 *
 * @module
 */
import pl from "nodejs-polars";
import type { Outcome } from "../../schema/events.ts";
import type { SloPolicy } from "../../schema/slo.ts";
import { classify } from "../goodput/classify.ts";
import type { LoadedRun } from "../run/loaded_run.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";

const LATENCY_REASONS = new Set(["late_e2e", "late_ttft", "slow_tpot"]);

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

/** Nearest-rank percentile of unsorted values (null when empty). */
function rank(values: number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length, Math.max(1, Math.ceil(p * s.length - 1e-9))) - 1]!;
}

/** One gauge sampled on the report's grid. */
export interface Series {
  metric: LevelRecovery["metric"];
  t: number[];
  v: number[];
}

/** When one gauge came back under the nearest-rank p90 of its baseline samples, and its peak. */
export function levelRecovery(s: Series, start: number, end: number, baselineMs: number, hold: number): LevelRecovery {
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
export function inFlight(run: LoadedRun, grid: number[]): number[] {
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

/** Per-request outcomes by scheduled_ms, for latency recovery and tallies. */
export interface PerRequest {
  t: number[];
  latencyOk: boolean[];
  ok: boolean[];
  accepted: boolean[];
  retried: boolean[];
  outcome: Outcome[];
}

/** Each request classified over the whole run, sorted by scheduled_ms. */
export function perRequest(run: LoadedRun, policy: SloPolicy): PerRequest {
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

/** When latency was back inside the SLO after an event end. */
export function latencyRecovery(
  r: PerRequest,
  start: number,
  end: number,
  o: { baselineMs: number; latencyRun: number; latencyTolerance: number },
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

/** Requests scheduled in [from, to), by what happened to them. */
export function tally(r: PerRequest, from: number, to: number): RequestTally {
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
