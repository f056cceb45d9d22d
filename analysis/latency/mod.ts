/**
 * Latency: percentiles with confidence intervals and n, whether a run
 * supports a percentile claim (MLPerf LoadGen's early stopping), the latency
 * table per class and stage, SLO sweeps (goodput as a function of a latency
 * limit), and rounding for display in the conservative direction.
 *
 * Entry points: {@linkcode latencyTable}, {@linkcode latencyInWindow},
 * {@linkcode percentileWithCI}, {@linkcode percentileClaim},
 * {@linkcode sloSweep}, {@linkcode roundDown} / {@linkcode roundUp},
 * {@linkcode waitBreakdown} (where each task's wait went: page, network,
 * queue, retrieval, model, tools, render, the rest).
 *
 * @module
 */
export * from "./percentile.ts";
export * from "./early_stopping.ts";
export * from "./sweep.ts";
export * from "./latency.ts";
export * from "./round_display.ts";
export * from "./wait_breakdown.ts";
export * from "./format_wait_breakdown.ts";
