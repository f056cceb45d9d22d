/**
 * An SLO sweep as one SQL query: accepted goodput per class (and overall) at
 * every limit of a grid on one latency metric, every other condition of the
 * policy held — the curves of `sloSweepInput` (analysis/plots/slo_sweep.ts)
 * and `sloSweep` (analysis/latency/sweep.ts), counted the way the design
 * asks (sort once, count by position), not by re-filtering per limit: the
 * eligible latencies and the limits are put in one ordered list per class,
 * and a running count over it gives, at each limit, the requests at or below
 * it.
 *
 * @module
 */
import type { SloPolicy } from "../../schema/slo.ts";
import { type ResolvedWindow, withoutMetricLimit } from "../goodput/policy.ts";
import { classifyCtes, type SloMetric } from "./classify_sql.ts";
import { sqlDouble, sqlDoubleOrNull, withClause } from "./_sql_text.ts";

/** The sweep's rule, stated with it. */
export const SWEEP_RULE = "accepted at a limit L = the requests that pass every other condition of their class's SLO " +
  "(the metric's limit removed from every class, the default and every degraded mode) and whose metric is ≤ L " +
  "(inclusive); a request without the metric (TTFT/TPOT not observable, TPOT undefined) passes every limit (the " +
  "limit does not apply to it); requests not accepted stay in the denominator";

/** Options of {@linkcode sweepSql}. */
export interface SweepSqlOptions {
  /** The metric whose limit is swept. */
  metric: SloMetric;
  /** The limits in ms, any order (each gets a row). */
  limits: readonly number[];
  /** The window's measurement seconds apply (false: an imported run without a time window; goodput null). */
  timed: boolean;
}

/**
 * The sweep query over `requests` and `attempts`: one row per class and
 * limit, plus the `overall` rows (class null), with `limit_ms`, `accepted`,
 * the policy's denominator count `denominator`, `offered`,
 * `measurement_seconds`, `accepted_goodput` and `acceptance_rate` (accepted /
 * denominator, as the sweep figure plots it; null when the denominator is 0).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sweepSql } from "./sweep_sql.ts";
 * const sql = sweepSql({ denominator: "offered", window: { exclude_stage_kinds: [] }, classes: {},
 *   default: { e2e_ms: 5000, gates: ["output_valid"] } }, { intervals: [[0, 60_000]], measurement_seconds: 60 },
 *   { metric: "e2e_ms", limits: [1000, 5000], timed: true });
 * assert.match(sql, /ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW/);
 * ```
 */
export function sweepSql(
  policy: SloPolicy,
  window: Pick<ResolvedWindow, "intervals" | "measurement_seconds">,
  options: SweepSqlOptions,
): string {
  const { metric, limits } = options;
  if (!limits.length) throw new RangeError("sweepSql: no limits");
  const relaxed = withoutMetricLimit(policy, metric);
  const d = policy.denominator;
  const seconds = sqlDoubleOrNull(options.timed ? window.measurement_seconds : null);
  const grid = `SELECT limit_ms FROM (VALUES ${limits.map((l) => `(${sqlDouble(l)})`).join(", ")}) AS g(limit_ms)`;
  const den = [
    "SELECT class, COUNT(*) AS offered,",
    "  SUM(CASE WHEN sent THEN 1 ELSE 0 END) AS sent,",
    "  SUM(CASE WHEN completed THEN 1 ELSE 0 END) AS completed",
    "FROM classified GROUP BY class",
  ].join("\n");
  // Accepted requests by latency (a missing metric is 0: it passes every limit), then each limit placed after the
  // latencies equal to it, so the running count at a limit includes them (≤).
  const points = [
    `SELECT class, COALESCE(${metric}, 0E0) AS v, 0 AS is_limit, COUNT(*) AS n`,
    `FROM classified WHERE reason IS NULL GROUP BY class, COALESCE(${metric}, 0E0)`,
    "UNION ALL",
    "SELECT d.class, g.limit_ms AS v, 1 AS is_limit, 0 AS n FROM sweep_denominators AS d CROSS JOIN sweep_grid AS g",
  ].join("\n");
  const running = [
    "SELECT class, v AS limit_ms, is_limit,",
    "  SUM(n) OVER (PARTITION BY class ORDER BY v, is_limit ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS accepted",
    "FROM sweep_points",
  ].join("\n");
  const perClass = [
    `SELECT r.class, r.limit_ms, r.accepted, d.${d} AS denominator, d.offered`,
    "FROM sweep_running AS r JOIN sweep_denominators AS d ON d.class = r.class",
    "WHERE r.is_limit = 1",
  ].join("\n");
  const overall = [
    "SELECT CAST(NULL AS VARCHAR) AS class, limit_ms, SUM(accepted) AS accepted, SUM(denominator) AS denominator,",
    "  SUM(offered) AS offered",
    "FROM sweep_class GROUP BY limit_ms",
  ].join("\n");
  const out = (from: string) =>
    `SELECT class, limit_ms, accepted, denominator, offered, ${seconds} AS measurement_seconds, ` +
    `CASE WHEN ${seconds} > 0 THEN CAST(accepted AS DOUBLE) / ${seconds} END AS accepted_goodput, ` +
    `CASE WHEN denominator > 0 THEN CAST(accepted AS DOUBLE) / denominator END AS acceptance_rate FROM ${from}`;
  return [
    withClause([
      ...classifyCtes(relaxed, window),
      ["sweep_grid", grid],
      ["sweep_denominators", den],
      ["sweep_points", points],
      ["sweep_running", running],
      ["sweep_class", perClass],
      ["sweep_overall", overall],
    ]),
    out("sweep_class"),
    "UNION ALL",
    out("sweep_overall"),
  ].join("\n");
}
