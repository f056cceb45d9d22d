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
export * from "./loaded_run.ts";
export * from "./load_run.ts";
export * from "./policy.ts";
export * from "./classify.ts";
export * from "./disclosure.ts";
export * from "./goodput.ts";
export * from "./format_goodput.ts";
export * from "./percentile.ts";
export * from "./sweep.ts";
export * from "./latency.ts";
export * from "./alternatives.ts";
export * from "./claim.ts";
export * from "./audit.ts";
