import { formatProgress, type ProgressSnapshot } from "../progress.ts";

/**
 * The workers' latest snapshots as one: counts added up, the time and the
 * send lag the largest of them (a worker not heard from yet counts zero).
 *
 * @example Two workers, one second in
 * ```ts
 * import { mergeProgress } from "./merged_progress.ts";
 * import assert from "node:assert/strict";
 * const w = (t_s: number, offered: number, lag_max_ms: number) => ({
 *   t_s, offered, total: 100, in_flight: 1, done: offered - 1, ok: offered - 1, rejected: 0, errors: 0,
 *   not_sent: 0, shed: 0, lag_max_ms,
 * });
 * const m = mergeProgress([w(1.0, 10, 0.4), w(1.1, 12, 2.5), undefined]);
 * // offered 10 + 12 = 22; total 100 + 100 (the third worker has said nothing yet); lag max(0.4, 2.5) = 2.5
 * assert.deepEqual([m.t_s, m.offered, m.total, m.done, m.lag_max_ms], [1.1, 22, 200, 20, 2.5]);
 * ```
 */
export function mergeProgress(snapshots: readonly (ProgressSnapshot | undefined)[]): ProgressSnapshot {
  const m: ProgressSnapshot = {
    t_s: 0,
    offered: 0,
    total: 0,
    in_flight: 0,
    done: 0,
    ok: 0,
    rejected: 0,
    errors: 0,
    not_sent: 0,
    shed: 0,
    lag_max_ms: 0,
  };
  for (const s of snapshots) {
    if (!s) continue;
    m.t_s = Math.max(m.t_s, s.t_s);
    m.lag_max_ms = Math.max(m.lag_max_ms, s.lag_max_ms);
    for (
      const k of ["offered", "total", "in_flight", "done", "ok", "rejected", "errors", "not_sent", "shed"] as const
    ) {
      m[k] += s[k];
    }
  }
  return m;
}

/** Where each worker is, for the merged progress line. */
export interface WorkersState {
  count: number;
  /** Workers that said they are ready (prepared, waiting for the start). */
  ready: number;
  /** Workers whose process has exited. */
  exited: number;
  /** Whether the start time was sent. */
  started: boolean;
  snapshots: readonly (ProgressSnapshot | undefined)[];
}

/**
 * The one progress line of every worker.
 *
 * @example Before and after the start
 * ```ts
 * import { workersLine } from "./merged_progress.ts";
 * import assert from "node:assert/strict";
 * assert.equal(workersLine({ count: 2, ready: 1, exited: 0, started: false, snapshots: [] }), "workers: 1/2 ready");
 * const s = { t_s: 2, offered: 4, total: 8, in_flight: 0, done: 4, ok: 4, rejected: 0, errors: 0, not_sent: 0,
 *   shed: 0, lag_max_ms: 0.25 };
 * assert.equal(
 *   workersLine({ count: 2, ready: 2, exited: 1, started: true, snapshots: [s, s] }),
 *   "workers 1/2 running | t=2.0s offered 8/16 in-flight 0 done 8 ok 8 rejected 0 errors 0 not-sent 0 shed 0 " +
 *     "send-lag(max,1s) 0.25ms",
 * );
 * ```
 */
export function workersLine(s: WorkersState): string {
  if (!s.started) return `workers: ${s.ready}/${s.count} ready`;
  if (!s.snapshots.some((x) => x)) return `workers: ${s.count}/${s.count} ready, starting`;
  const who = s.exited === s.count
    ? `workers: all ${s.count} ended`
    : `workers ${s.count - s.exited}/${s.count} running`;
  return `${who} | ${formatProgress(mergeProgress(s.snapshots))}`;
}
