/**
 * Figures: each plot function takes analysis results and returns a
 * plotly.js figure spec with its disclosure as the subtitle (one file per
 * figure); the spec's types (`figure_spec.ts`); rendering to an HTML page, to
 * Deno Jupyter output and to PNG through headless Chromium.
 *
 * Entry points: the `*Figure` functions, {@linkcode makeFigure},
 * {@linkcode show}, {@linkcode pageHtml}, {@linkcode exportPng}.
 *
 * @module
 */
export * from "./png.ts";
export * from "./extras.ts";
export * from "./figure.ts";
export * from "./jupyter.ts";
export * from "./html.ts";
export * from "./goodput_vs_load.ts";
export * from "./timeline.ts";
export * from "./timeline_input.ts";
export * from "./failures.ts";
export * from "./latency_percentiles.ts";
export * from "./latency_cdf.ts";
export * from "./slo_sweep.ts";
export * from "./alternatives_chart.ts";
export * from "./cost_waterfall.ts";
export * from "./route_comparison.ts";
export * from "./wait_breakdown.ts";
export * from "./production_vs_test.ts";
export * from "./production_vs_test_wait.ts";
export * from "./tornado.ts";
export * from "./cost_vs_demand.ts";
export * from "./judge_confusion.ts";
export * from "./acceptance_by_source.ts";
