/**
 * Analysis of a run's raw event log: load it (CSV or Parquet, shards
 * concatenated, sha256 verified), resolve an SLO policy and window, and
 * compute accepted goodput with its disclosure, its latency percentiles with n
 * and confidence intervals, the same number under alternative rules, an
 * audit of a published claim against the raw log, and the statistics of a
 * quality judge (agreement, corrected pass rates, stratified samples).
 *
 * Every folder's public names are re-exported here but `sql/`'s (the
 * definitions as SQL run by DuckDB: its own entry point, `sql/mod.ts`, so
 * that importing the analysis does not load DuckDB); the curated public API,
 * the one a notebook imports, is the top-level `mod.ts`.
 *
 * @example Accepted goodput of the committed sample run under the design-v1 SLO policy
 * ```ts
 * import { goodput, loadRun, loadSloPolicy } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const run = await loadRun("data/runs/explore");
 * const result = goodput(run, await loadSloPolicy("data/slo/design-v1.json"));
 * assert.ok(result.overall.offered > 0);
 * assert.ok(result.overall.accepted <= result.overall.offered);
 * assert.equal(result.disclosure.denominator, "offered");
 * ```
 * @module
 */
export * from "./run/mod.ts";
export * from "./goodput/mod.ts";
export * from "./latency/mod.ts";
export * from "./knee/mod.ts";
export * from "./recovery/mod.ts";
export * from "./cost/mod.ts";
export * from "./compare/mod.ts";
export * from "./audit/mod.ts";
export * from "./report/mod.ts";
export * from "./plots/mod.ts";
export * from "./notebook/mod.ts";
export * from "./quality/mod.ts";
