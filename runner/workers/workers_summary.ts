/**
 * What the parent of `--workers` prints once every worker has exited: one
 * line per worker (its shard, exit, counts, send lag and start skew) and the
 * exit verdict of the whole run.
 *
 * @module
 */
import { textTable } from "../../lib/text_table.ts";
import type { EndMessage } from "./protocol.ts";

/** How one worker ended. */
export interface WorkerOutcome {
  /** The worker's number, 0-based. */
  worker: number;
  shard: { index: number; count: number };
  /** Its exit code (128 + n when a signal n ended it). */
  code: number;
  /** Its `end` line, or null when it exited without one. */
  end: EndMessage | null;
  /** The parent stopped it before the start (another worker failed, or a signal came) and it exited so. */
  aborted: boolean;
  /** Its last line on stderr, or null. */
  lastError: string | null;
}

/** Start skew of a worker: ms 0 of its run (run.json `epoch_iso`) minus the shared start time; null without one. */
export function startSkewMs(end: EndMessage): number | null {
  return end.start_iso === null ? null : Date.parse(end.epoch_iso) - Date.parse(end.start_iso);
}

const shardName = (s: { index: number; count: number }) => `shard-${s.index}-of-${s.count}`;
const ms = (v: number | null | undefined, digits = 2) => (v === null || v === undefined ? "-" : v.toFixed(digits));

/**
 * The summary table: a row per worker, then the run's (`all`): counts added
 * up, send lag max and start skew the largest over workers. A run's send-lag
 * p99 is not the largest worker p99: `all` leaves it to the analysis, which
 * reads every request (`npx deno task analyze`).
 */
export function formatWorkersSummary(runDir: string, outcomes: readonly WorkerOutcome[]): string {
  const head = [
    "worker",
    "shard",
    "exit",
    "status",
    "offered",
    "ok",
    "not_sent",
    "shed",
    "lag_p99_ms",
    "lag_max_ms",
    "start_skew_ms",
    "cpu_ms",
  ];
  const rows = outcomes.map((o) => {
    const e = o.end;
    return [
      String(o.worker),
      shardName(o.shard),
      String(o.code),
      e?.status ?? (o.aborted ? "not started" : "no end"),
      e ? String(e.offered) : "-",
      e ? String(e.by_outcome.ok ?? 0) : "-",
      e ? String(e.not_sent) : "-",
      e ? String(e.client_shed) : "-",
      ms(e?.send_lag_p99_ms),
      ms(e?.send_lag_max_ms),
      e ? ms(startSkewMs(e), 0) : "-",
      ms(e?.runner_cpu_ms, 0),
    ];
  });
  const ends = outcomes.flatMap((o) => (o.end ? [o.end] : []));
  const sum = (f: (e: EndMessage) => number) => ends.reduce((a, e) => a + f(e), 0).toFixed(0);
  const maxOf = (vs: (number | null)[]) => {
    const known = vs.filter((v): v is number => v !== null);
    return known.length ? Math.max(...known) : null;
  };
  rows.push([
    "all",
    "",
    "",
    "",
    sum((e) => e.offered),
    sum((e) => e.by_outcome.ok ?? 0),
    sum((e) => e.not_sent),
    sum((e) => e.client_shed),
    "per worker",
    ms(maxOf(ends.map((e) => e.send_lag_max_ms))),
    ms(maxOf(ends.map((e) => startSkewMs(e))), 0),
    sum((e) => e.runner_cpu_ms ?? 0),
  ]);
  const limited = ends.filter((e) => e.client_limited).length;
  return [
    `run ${runDir}: ${outcomes.length} workers, one schedule, one start time; start_skew_ms = the worker's ms 0 ` +
    `(epoch_iso) minus the shared start`,
    ...textTable(head, rows, { left: 4 }),
    limited
      ? `client: THE CLIENT WAS THE LIMIT in ${limited} of ${ends.length} workers (their run.json result says why)`
      : `client: every worker kept up`,
    "the run's send-lag percentiles over every request, and its goodput: npx deno task analyze " + runDir,
  ].join("\n");
}

/** The parent's exit code and, when it is not 0, which workers failed and how. */
export function workersVerdict(outcomes: readonly WorkerOutcome[]): { exitCode: number; message: string | null } {
  const failed = outcomes.filter((o) => o.code !== 0 && !o.aborted);
  if (!failed.length) return { exitCode: 0, message: null };
  const codes = new Set(failed.map((o) => o.code));
  const each = failed.map((o) =>
    `worker ${o.worker} (${shardName(o.shard)}) exited ${o.code}${o.lastError ? `: ${o.lastError}` : ""}`
  );
  const stopped = outcomes.filter((o) => o.aborted).length;
  return {
    // One cause shared by every failed worker keeps its own code (3: nothing succeeded, 4: pre-flight); mixed: 1.
    exitCode: codes.size === 1 ? failed[0]!.code : 1,
    message: `${failed.length} of ${outcomes.length} workers failed: ${each.join("; ")}` +
      (stopped ? `; ${stopped} stopped before the start, their folders removed` : ""),
  };
}
