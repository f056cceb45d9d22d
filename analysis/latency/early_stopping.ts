/**
 * MLPerf LoadGen's early-stopping rule (when a run supports a percentile claim) lives in `lib/early_stopping.ts`,
 * so the runner's plan-length check (runner/plan_length.ts) and the analysis apply one implementation; re-exported
 * here for the analysis's modules.
 *
 * @module
 */
export * from "../../lib/early_stopping.ts";
