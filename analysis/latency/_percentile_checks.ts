/** The percentile argument checks and label live in `lib/percentile_checks.ts` (shared with the runner). */
export * from "../../lib/percentile_checks.ts";
