/**
 * Route comparison: runs of the same workload, schedule and SLO policy
 * side by side (accepted goodput, acceptance, tail latency per class),
 * refused when they differ in what they ran unless forced; and the same with
 * knee, production limit and cost per accepted task per route.
 *
 * Entry points: {@linkcode compare} and its text form
 * {@linkcode formatCompare}, {@linkcode compareRouteCosts}; a production
 * recording beside a load test of the same workload:
 * {@linkcode productionVsTest}, {@linkcode formatProductionVsTest},
 * {@linkcode productionVsTestFindings}; routes ranked with their
 * uncertainty (paired bootstrap intervals and one verdict line):
 * {@linkcode decision} and {@linkcode formatDecision}.
 * {@linkcode productionVsTestFindings}; what would change the answer (break-even
 * prices, the tornado, assumed lines): {@linkcode sensitivity},
 * {@linkcode formatSensitivity}; the cost at a planned volume (replicas,
 * quota, monthly cost, the crossings): {@linkcode volumeCosts},
 * {@linkcode parseVolumeFlags}, {@linkcode formatVolume}.
 *
 * @module
 */
export * from "./compare.ts";
export * from "./format_compare.ts";
export * from "./route_costs.ts";
export * from "./production_vs_test.ts";
export * from "./format_production_vs_test.ts";
export * from "./decision.ts";
export * from "./decision_flags.ts";
export * from "./decision_level.ts";
export * from "./format_decision.ts";
export * from "./paired_resample.ts";
export * from "./sensitivity.ts";
export * from "./format_sensitivity.ts";
export * from "./volume.ts";
export * from "./volume_demand.ts";
export * from "./format_volume.ts";
