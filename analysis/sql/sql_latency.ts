/**
 * Latency percentiles and SLO sweeps of a run, counted by SQL on DuckDB: the
 * queries of `latency_sql.ts` and `sweep_sql.ts`, their rows as plain
 * objects.
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import { type ResolvedWindow, runWindow } from "../goodput/policy.ts";
import { hasTimeWindow } from "../run/imported_run.ts";
import type { SloMetric } from "./classify_sql.ts";
import { latencySql, type LatencySqlOptions, percentileColumn, SQL_LATENCY_METRICS } from "./latency_sql.ts";
import { sqlPolicy } from "./sql_goodput.ts";
import type { SqlRun } from "./sql_run.ts";
import { SWEEP_RULE, sweepSql } from "./sweep_sql.ts";

/** One percentile of one metric for one group. */
export interface SqlLatencyRow {
  /** `overall`, `class`, `stage` or `class_stage`. */
  grain: string;
  class: string | null;
  stage: string | null;
  metric: SloMetric;
  p: number;
  /** Nearest-rank value (rank ⌈p·n⌉); null when n = 0. */
  value: number | null;
  /** Requests with the metric. */
  n: number;
  /** Completed requests without the metric (not in n). */
  excluded: number;
}

/** The percentile definition and inclusion rules, stated with the table. */
export const SQL_LATENCY_RULE = "nearest-rank percentiles (the value of rank ⌈p·n⌉ of the n ascending values: SQL " +
  "percentile_disc) over the window's completed requests; e2e = completed_ms − scheduled_ms; TTFT = " +
  "first_token_ms − scheduled_ms and TPOT only for streamed requests (others excluded, counted in `excluded`)";

/**
 * Latency percentiles of the requests scheduled in `window` (default: the
 * whole run's stages), overall and by class (and by stage with `byStage`),
 * each with n and the completed requests left out: the values and n of
 * `latencyInWindow` (analysis/latency/latency.ts) for the same metrics.
 */
export async function sqlLatency(
  run: SqlRun,
  window: Pick<ResolvedWindow, "intervals">,
  options: LatencySqlOptions = {},
): Promise<{ rows: SqlLatencyRow[]; sql: string }> {
  const ps = options.percentiles ?? [0.5, 0.95, 0.99];
  const metrics = options.metrics ?? SQL_LATENCY_METRICS;
  const sql = latencySql(window, options);
  const out: SqlLatencyRow[] = [];
  for (const r of await run.engine.query(sql)) {
    for (const metric of metrics) {
      for (const p of ps) {
        const v = r[percentileColumn(metric, p)];
        out.push({
          grain: String(r.grain),
          class: r.class === null ? null : String(r.class),
          stage: r.stage === null ? null : String(r.stage),
          metric,
          p,
          value: v === null || v === undefined ? null : Number(v),
          n: Number(r[`n_${metric}`] ?? 0),
          excluded: Number(r[`excluded_${metric}`] ?? 0),
        });
      }
    }
  }
  const grains = ["overall", "class", "stage", "class_stage"];
  const label = (x: string | null) => x ?? "";
  out.sort((a, b) =>
    grains.indexOf(a.grain) - grains.indexOf(b.grain) || label(a.class).localeCompare(label(b.class)) ||
    label(a.stage).localeCompare(label(b.stage)) || metrics.indexOf(a.metric) - metrics.indexOf(b.metric) ||
    a.p - b.p
  );
  return { rows: out, sql };
}

/** One point of a sweep curve. */
export interface SqlSweepRow {
  /** The class; null for all classes. */
  class: string | null;
  limit_ms: number;
  accepted: number;
  /** The policy's denominator count (offered, sent or completed) of the class in the window. */
  denominator: number;
  offered: number;
  measurement_seconds: number | null;
  accepted_goodput: number | null;
  /** accepted / denominator; null when the denominator is 0. */
  acceptance_rate: number | null;
}

/**
 * An SLO sweep of `metric` over `limits` (ms) under `policy`: per class and
 * overall, the requests accepted at each limit with every other condition of
 * the policy held ({@linkcode SWEEP_RULE}), in one query. Each distinct
 * limit gets one row per class, in ascending order.
 */
export async function sqlSweep(
  run: SqlRun,
  input: SloPolicy,
  options: { metric: SloMetric; limits: readonly number[] },
): Promise<{ rows: SqlSweepRow[]; sql: string; rule: string; window: ResolvedWindow }> {
  const policy = sqlPolicy(run, input, "sqlSweep() policy");
  const window = runWindow(run, policy.window);
  const limits = [...new Set(options.limits)].sort((a, b) => a - b);
  const sql = sweepSql(policy, window, { metric: options.metric, limits, timed: hasTimeWindow(run.manifest) });
  const nn = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const rows = (await run.engine.query(sql)).map((r): SqlSweepRow => ({
    class: r.class === null ? null : String(r.class),
    limit_ms: Number(r.limit_ms),
    accepted: Number(r.accepted ?? 0),
    denominator: Number(r.denominator ?? 0),
    offered: Number(r.offered ?? 0),
    measurement_seconds: nn(r.measurement_seconds),
    accepted_goodput: nn(r.accepted_goodput),
    acceptance_rate: nn(r.acceptance_rate),
  }));
  const key = (r: SqlSweepRow) => (r.class === null ? "\uffff" : r.class);
  rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.limit_ms - b.limit_ms));
  return { rows, sql, rule: SWEEP_RULE, window };
}
