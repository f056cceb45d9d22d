/**
 * The HTML report of a run: the verdict first (headline, rules, caveats),
 * then every figure with its disclosure, then the tables, in one offline
 * page, plus what the run itself can add (knee and limits, outages, the cost
 * waterfall with a price sheet).
 *
 * Entry points: {@linkcode buildReport}, {@linkcode runReportExtras},
 * {@linkcode policySourceLabel}, {@linkcode reportCaveats}; the route
 * comparison as one page to share: {@linkcode buildComparePage}.
 *
 * @module
 */
export * from "./report.ts";
export * from "./report_extras.ts";
export * from "./caveats.ts";
export * from "./policy_source.ts";
export * from "./compare_page.ts";
