/**
 * Goodput in SQL on an existing engine: the contract's definitions —
 * classification under an SLO policy, the goodput tables, nearest-rank
 * latency percentiles and SLO sweeps — as SQL text over two tables,
 * `requests` and `attempts`, run by embedded DuckDB over a run's Parquet
 * files (one folder, `shard-i-of-N/` folders, or hive-partitioned folders),
 * and written to be run as well by Spark SQL or Trino (docs/sql.md). The
 * results equal the polars path's (test/analysis/sql/). Loads DuckDB, not
 * polars, which is why this folder is its own entry point and not re-exported
 * by analysis/mod.ts.
 *
 * Entry points: {@linkcode openSqlRun}, {@linkcode sqlGoodput},
 * {@linkcode sqlLatency}, {@linkcode sqlSweep}; the SQL builders
 * {@linkcode goodputSql}, {@linkcode latencySql}, {@linkcode sweepSql},
 * {@linkcode classifyCtes}.
 *
 * @example Accepted goodput of a sample run, counted by DuckDB
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSloPolicy } from "../goodput/policy.ts";
 * import { openSqlRun, sqlGoodput } from "./mod.ts";
 * const run = await openSqlRun("data/runs/explore", { onWarning: () => {} });
 * try {
 *   const { result, sql } = await sqlGoodput(run, await loadSloPolicy("data/slo/design-v1.json"));
 *   assert.equal(result.overall.offered, 519);
 *   assert.equal(result.overall.accepted, 394);
 *   assert.match(sql, /FROM classified/);
 * } finally {
 *   run.close();
 * }
 * ```
 *
 * @module
 */
export * from "./sql_run.ts";
export * from "./sql_goodput.ts";
export * from "./sql_latency.ts";
export * from "./goodput_sql.ts";
export * from "./latency_sql.ts";
export * from "./sweep_sql.ts";
export * from "./classify_sql.ts";
export * from "./views.ts";
export * from "./duckdb.ts";
export * from "./sql_functions.ts";
