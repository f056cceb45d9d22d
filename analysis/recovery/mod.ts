/**
 * Recovery and resilience: outages detected from the log, recovery after
 * each burst and outage (gauges and latency back to baseline, what was lost),
 * autoscaling acceptance, retries, cold starts, and operator intake drills.
 *
 * Entry points: {@linkcode recovery} and its text form
 * {@linkcode formatRecovery}, {@linkcode detectOutages},
 * {@linkcode autoscaling}, {@linkcode retries},
 * {@linkcode coldStart}, {@linkcode intakeDrills} and
 * {@linkcode formatIntakeDrills}. `_recovery_series.ts` is private to
 * `recovery.ts`.
 *
 * @module
 */
export * from "./intake_drill.ts";
export * from "./format_intake_drill.ts";
export * from "./recovery.ts";
export * from "./outages.ts";
export * from "./autoscaling.ts";
export * from "./retries.ts";
export * from "./cold_start.ts";
export * from "./format_recovery.ts";
