/**
 * Latency percentiles as SQL, with the polars path's definition
 * (analysis/latency/latency.ts, percentile.ts): nearest rank, the value of
 * rank ⌈p·n⌉ among the n ascending values, over the window's requests — e2e
 * and TTFT from `scheduled_ms` of completed requests, TTFT and TPOT only
 * where observable (streamed) — with n and the completed requests left out.
 *
 * The SQL standard's `percentile_disc(p) WITHIN GROUP (ORDER BY x)` is that
 * definition: the smallest value whose cumulative share reaches p. DuckDB
 * computes its rank in integer arithmetic when p is a decimal literal, so it
 * equals the polars path exactly (docs/sql.md: Spark agrees, Trino needs
 * another spelling).
 *
 * @module
 */
import type { ResolvedWindow } from "../goodput/policy.ts";
import { inWindowSql, measuredCtes, type SloMetric } from "./classify_sql.ts";
import { sqlFraction, withClause } from "./_sql_text.ts";

/** The metrics of the SQL latency table, in output order. */
export const SQL_LATENCY_METRICS: readonly SloMetric[] = ["ttft_ms", "tpot_ms", "e2e_ms"];

/** Options of {@linkcode latencySql}. */
export interface LatencySqlOptions {
  /** The percentiles, fractions in (0, 1] with at most 15 decimals. @default {[0.5, 0.95, 0.99]} */
  percentiles?: readonly number[];
  /** The metrics. @default {SQL_LATENCY_METRICS} */
  metrics?: readonly SloMetric[];
  /** Also by stage and by class × stage (more sort state: each grouping holds its values). @default {false} */
  byStage?: boolean;
}

/** The column of metric `m` at percentile `p`: `e2e_ms_p50`, `e2e_ms_p95`, `ttft_ms_p99_9`, `tpot_ms_p100`. */
export function percentileColumn(m: SloMetric, p: number): string {
  const text = sqlFraction(p);
  if (text === "1.0") return `${m}_p100`;
  const digits = text.slice(2).padEnd(2, "0");
  return `${m}_p${digits.slice(0, 2)}${digits.length > 2 ? `_${digits.slice(2)}` : ""}`;
}

/**
 * The percentile query over the tables `requests` and `attempts`: one row per
 * group — `grain` (`overall`, `class`, and with `byStage` also `stage`,
 * `class_stage`), `class`, `stage` — with, per metric m, `n_<m>` (requests
 * with a value), `excluded_<m>` (completed requests without one) and one
 * column per percentile ({@linkcode percentileColumn}; null when n = 0).
 *
 * @example p95 of e2e, overall and by class
 * ```ts
 * import assert from "node:assert/strict";
 * import { latencySql } from "./latency_sql.ts";
 * const sql = latencySql({ intervals: [[0, 60_000]] }, { percentiles: [0.95], metrics: ["e2e_ms"] });
 * assert.match(sql, /percentile_disc\(0\.95\) WITHIN GROUP \(ORDER BY e2e_ms\) AS e2e_ms_p95/);
 * ```
 */
export function latencySql(window: Pick<ResolvedWindow, "intervals">, options: LatencySqlOptions = {}): string {
  const ps = options.percentiles ?? [0.5, 0.95, 0.99];
  const metrics = options.metrics ?? SQL_LATENCY_METRICS;
  // Only completed requests have a latency; TTFT and TPOT are already null where not observable (classify_sql.ts).
  // e2e alone needs no attempt: the requests are read without the final-attempt join.
  const attempts = metrics.some((m) => m !== "e2e_ms");
  const values = attempts
    ? [
      "SELECT class, stage, completed,",
      metrics.map((m) => `  CASE WHEN completed THEN ${m} END AS ${m}`).join(",\n"),
      "FROM measured",
    ].join("\n")
    : [
      "SELECT class, stage, outcome = 'ok' AS completed,",
      "  CASE WHEN outcome = 'ok' THEN completed_ms - scheduled_ms END AS e2e_ms",
      `FROM requests WHERE ${inWindowSql(window)}`,
    ].join("\n");
  const sets = options.byStage ? "(), (class), (stage), (class, stage)" : "(), (class)";
  const grain = options.byStage
    ? "CASE GROUPING(class) + 2 * GROUPING(stage) WHEN 3 THEN 'overall' WHEN 2 THEN 'class' WHEN 1 THEN 'stage' " +
      "ELSE 'class_stage' END"
    : "CASE WHEN GROUPING(class) = 1 THEN 'overall' ELSE 'class' END";
  const cols = metrics.flatMap((m) => [
    `COUNT(${m}) AS n_${m}`,
    `SUM(CASE WHEN completed AND ${m} IS NULL THEN 1 ELSE 0 END) AS excluded_${m}`,
    ...ps.map((p) => `percentile_disc(${sqlFraction(p)}) WITHIN GROUP (ORDER BY ${m}) AS ${percentileColumn(m, p)}`),
  ]);
  return [
    withClause([...(attempts ? measuredCtes(window) : []), ["latency_values", values]]),
    "SELECT",
    `  ${grain} AS grain,`,
    "  class,",
    `  ${options.byStage ? "stage" : "CAST(NULL AS VARCHAR) AS stage"},`,
    cols.map((c) => `  ${c}`).join(",\n"),
    "FROM latency_values",
    `GROUP BY GROUPING SETS (${sets})`,
  ].join("\n");
}
