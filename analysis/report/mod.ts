/**
 * The HTML report of a run: every figure with its disclosure in one
 * offline page, plus what the run itself can add (knee and limits, outages,
 * the cost waterfall with a price sheet).
 *
 * Entry points: {@linkcode buildReport}, {@linkcode runReportExtras}.
 *
 * @module
 */
export * from "./report.ts";
export * from "./report_extras.ts";
