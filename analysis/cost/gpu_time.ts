/**
 * The replica time a self-hosted run paid for: the run's span, split into
 * the window, other measured stages and the time outside every measured
 * stage, and the server timeline's replica-seconds in each, by state.
 *
 * @module
 */
import type pl from "nodejs-polars";
import { type AnyManifest, type AnyStage, isImported } from "../../schema/imported_manifest.ts";
import { isProduction } from "../../schema/production_manifest.ts";
import type { ResolvedWindow } from "../goodput/policy.ts";

/** A half-open `[start_ms, end_ms)` interval. */
export type Interval = [number, number];

/** From the run's start (ms 0) to its end, and where the end was read. */
export interface RunSpan {
  end_ms: number;
  end_from: string;
}

/** The run's time, split for charging one window. */
export interface TimeSplit {
  run: RunSpan;
  /** Seconds of the window (the union of its intervals). */
  window_seconds: number;
  /** Seconds of every measured stage, the window's included. */
  measured_seconds: number;
  /** Seconds of the run outside every measured stage: warm-up, drain, pauses, after the last stage. */
  outside_seconds: number;
  /** The window's share of the outside time: window_seconds / measured_seconds. */
  share: number;
  /** The stages that overlap the outside time, as `name (kind)`, and `after the last stage` when the run ran on. */
  outside_parts: string[];
  window: Interval[];
  measured: Interval[];
}

/** Replica-seconds by what the replicas were doing (gauges sampled at each row, held for its seconds). */
export interface StateSeconds {
  /** Serving replicas with a running sequence: min(running, replicas). */
  busy: number;
  /** Serving replicas with no running sequence: max(replicas − running, 0). */
  idle: number;
  /** Replicas provisioning or loading, paid but not serving: replicas_warming. */
  warming: number;
}

/** Replica-seconds of one target in the window and outside every measured stage. */
export interface ReplicaTime {
  window: StateSeconds;
  outside: StateSeconds;
  /** Seconds of the run's span the target's rows cover (measured stages not in the window included). */
  covered_seconds: number;
  /** Rows counted in the window or outside. */
  rows: number;
}

/** Sorted, merged union of intervals. */
export function union(xs: readonly Interval[]): Interval[] {
  const s = xs.filter(([a, b]) => b > a).map(([a, b]) => [a, b] as Interval).sort((x, y) => x[0] - y[0]);
  const out: Interval[] = [];
  for (const [a, b] of s) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const seconds = (xs: readonly Interval[]) => xs.reduce((s, [a, b]) => s + (b - a), 0) / 1000;
const inside = (xs: readonly Interval[], t: number) => xs.some(([a, b]) => t >= a && t < b);

/** `[from, to)` minus the (merged) intervals `cut`. */
function complement(from: number, to: number, cut: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let at = from;
  for (const [a, b] of cut) {
    if (b <= at) continue;
    if (a >= to) break;
    if (a > at) out.push([at, a]);
    at = Math.max(at, b);
  }
  if (at < to) out.push([at, to]);
  return out;
}

/**
 * Where the run ended: run.json `result.ended_ms` for a finished run; for a
 * run still `running` (killed, no end recorded) the log's last event; for a
 * log whose run.json has no end (ended_ms 0) the later of the last stage's
 * end and the log's last event.
 */
export function runSpan(manifest: AnyManifest, logEndMs: number): RunSpan {
  if (isImported(manifest)) {
    const last = Math.max(0, ...manifest.stages.map((s) => s.end_ms));
    return last >= logEndMs
      ? { end_ms: last, end_from: "the last stage's end (an imported run records no end of its own)" }
      : { end_ms: logEndMs, end_from: "the log's last event (an imported run records no end of its own)" };
  }
  if (isProduction(manifest)) {
    return {
      end_ms: manifest.observation.ended_ms,
      end_from: "run.json observation.ended_ms (a production recording)",
    };
  }
  const r = manifest.result;
  if (r.status !== "running" && r.ended_ms > 0) return { end_ms: r.ended_ms, end_from: "run.json result.ended_ms" };
  if (r.status === "running") {
    return { end_ms: logEndMs, end_from: "the log's last event (the run did not record its end: status running)" };
  }
  const lastStage = Math.max(0, ...manifest.stages.map((s) => s.end_ms));
  return lastStage >= logEndMs
    ? { end_ms: lastStage, end_from: "the last stage's end (run.json result.ended_ms is 0)" }
    : { end_ms: logEndMs, end_from: "the log's last event (run.json result.ended_ms is 0)" };
}

/**
 * Splits the run `[0, end)` into the window, the other measured stages and
 * the rest. `measured` is the window of every measured stage (for a knee
 * level: every steady and burst stage); the window counts as measured.
 */
export function splitRunTime(
  span: RunSpan,
  window: ResolvedWindow,
  measured: ResolvedWindow,
  stages: readonly AnyStage[],
): TimeSplit {
  const w = union(window.intervals);
  const m = union([...measured.intervals, ...window.intervals]);
  const outside = complement(0, span.end_ms, m);
  const window_seconds = seconds(w), measured_seconds = seconds(m);
  const parts = stages.filter((s) => outside.some(([a, b]) => s.start_ms < b && s.end_ms > a))
    .map((s) => `${s.name} (${s.kind})`);
  const lastStage = Math.max(0, ...stages.map((s) => s.end_ms));
  if (span.end_ms > Math.max(lastStage, m.at(-1)?.[1] ?? 0)) parts.push("after the last stage");
  return {
    run: span,
    window_seconds,
    measured_seconds,
    outside_seconds: seconds(outside),
    share: measured_seconds > 0 ? window_seconds / measured_seconds : 0,
    outside_parts: parts,
    window: w,
    measured: m,
  };
}

/**
 * Replica-seconds of the server rows whose `route` label passes `match`
 * (all rows when the table has no route column), by state and place. A row
 * covers the time since the previous row of its label (the first row: the
 * median gap), so a stalled, longer row counts for its real length; it is
 * in the window when its `t_ms` is, outside when `t_ms` is in the run's
 * span (0 ≤ t_ms ≤ end) but in no measured stage, and not counted
 * otherwise (another stage's, or after the run).
 *
 * @example One row in the window (2 replicas, 1 running), one outside (1 warming)
 * ```ts
 * import pl from "nodejs-polars";
 * import { replicaTime } from "./gpu_time.ts";
 * import assert from "node:assert/strict";
 * const server = pl.DataFrame({ t_ms: [1000, 2000], running: [0, 1], replicas: [0, 2], replicas_warming: [1, 0] });
 * const split = { run: { end_ms: 2000, end_from: "" }, window: [[1500, 2500]], measured: [[1500, 2500]] };
 * const t = replicaTime(server, split as never, () => true);
 * assert.deepEqual(t.window, { busy: 1, idle: 1, warming: 0 });
 * assert.deepEqual(t.outside, { busy: 0, idle: 0, warming: 1 });
 * ```
 */
export function replicaTime(
  server: pl.DataFrame,
  split: Pick<TimeSplit, "run" | "window" | "measured">,
  match: (label: string) => boolean,
): ReplicaTime {
  const col = (c: string) => server.getColumn(c).toArray() as number[];
  const t = col("t_ms"), rep = col("replicas"), warm = col("replicas_warming"), run = col("running");
  const labels = server.columns.includes("route") ? server.getColumn("route").toArray() as string[] : null;
  const byLabel = new Map<string, number[]>();
  for (let i = 0; i < t.length; i++) {
    const label = labels ? labels[i]! : "";
    if (labels && !match(label)) continue;
    const list = byLabel.get(label);
    if (list) list.push(i);
    else byLabel.set(label, [i]);
  }
  const zero = (): StateSeconds => ({ busy: 0, idle: 0, warming: 0 });
  const out: ReplicaTime = { window: zero(), outside: zero(), covered_seconds: 0, rows: 0 };
  for (const idx of byLabel.values()) {
    idx.sort((a, b) => t[a]! - t[b]!);
    const gaps = idx.slice(1).map((r, j) => t[r]! - t[idx[j]!]!).sort((a, b) => a - b);
    const firstGap = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 1000;
    idx.forEach((r, j) => {
      const ms = t[r]!;
      if (ms < 0 || ms > split.run.end_ms) return;
      const s = (j === 0 ? firstGap : ms - t[idx[j - 1]!]!) / 1000;
      out.covered_seconds += s;
      const place = inside(split.window, ms) ? out.window : inside(split.measured, ms) ? null : out.outside;
      if (!place) return;
      const busy = Math.min(run[r]!, rep[r]!);
      place.busy += busy * s;
      place.idle += (rep[r]! - busy) * s;
      place.warming += warm[r]! * s;
      out.rows++;
    });
  }
  return out;
}
