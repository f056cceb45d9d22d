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
export * from "./run_end.ts";
export * from "./classify.ts";
export * from "./disclosure.ts";
export * from "./goodput.ts";
export * from "./format_goodput.ts";
export * from "./service_modes.ts";
export * from "./intake_drill.ts";
export * from "./format_intake_drill.ts";
export * from "./percentile.ts";
export * from "./early_stopping.ts";
export * from "./sweep.ts";
export * from "./latency.ts";
export * from "./alternatives.ts";
export * from "./claim.ts";
export * from "./audit.ts";
export * from "./kneedle.ts";
export * from "./levels.ts";
export * from "./departure.ts";
export * from "./block_bootstrap.ts";
export * from "./persistence.ts";
export * from "./knee.ts";
export * from "./repeats.ts";
export * from "./limit.ts";
export * from "./round_display.ts";
export * from "./client_limit.ts";
export * from "./verdicts.ts";
export * from "./format_knee.ts";
export * from "./recovery.ts";
export * from "./outages.ts";
export * from "./autoscaling.ts";
export * from "./retries.ts";
export * from "./cold_start.ts";
export * from "./format_recovery.ts";
export * from "./ledger.ts";
export * from "./format_ledger.ts";
export * from "./price_sheet.ts";
export * from "./price_lines.ts";
export * from "./import_litellm.ts";
export * from "./compare.ts";
export * from "./format_compare.ts";
export * from "./report.ts";
export * from "./png.ts";
export * from "./danfo.ts";
export * from "./plots/extras.ts";
export * from "./plots/figure.ts";
export * from "./plots/jupyter.ts";
export * from "./plots/html.ts";
export * from "./plots/goodput_vs_load.ts";
export * from "./plots/timeline.ts";
export * from "./plots/timeline_input.ts";
export * from "./plots/failures.ts";
export * from "./plots/latency_percentiles.ts";
export * from "./plots/latency_cdf.ts";
export * from "./plots/slo_sweep.ts";
export * from "./plots/alternatives_chart.ts";
export * from "./plots/cost_waterfall.ts";
export * from "./plots/route_comparison.ts";
export * from "./scan_run.ts";
export * from "./scanned_run.ts";
export * from "./notebook_helpers.ts";
export * from "./level_cost.ts";
export * from "./report_extras.ts";
