/**
 * Analysis of a run's raw event log: load it (CSV or Parquet, shards
 * concatenated, sha256 verified), resolve an SLO policy and window, and
 * compute accepted goodput with its disclosure, its latency percentiles with n
 * and confidence intervals, the same number under alternative rules, and an
 * audit of a published claim against the raw log.
 *
 * @example Accepted goodput of a run under the design-v1 SLO policy
 * ```ts ignore
 * import { goodput, loadRun, loadSloPolicy } from "./mod.ts";
 * const run = await loadRun("out/demo/run-id");
 * const result = goodput(run, await loadSloPolicy("data/slo/design-v1.json"));
 * console.log(result.overall.accepted_goodput, result.disclosure.denominator);
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
