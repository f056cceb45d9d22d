/**
 * The knee: where each signal (goodput, latency, errors, cost) departs
 * from its low-load baseline as offered load rises, and a Kneedle knee of
 * accepted goodput against offered load, from one run or several; load
 * levels, repeats, departures with their statistical guards (block
 * bootstrap), persistence of a departure, the production limit
 * (knee × (1 − headroom)), the levels where the client was the limit, and
 * the verdicts every command prints first.
 *
 * Entry points: {@linkcode knee} and its text form
 * {@linkcode formatKnee}, {@linkcode productionLimit} /
 * {@linkcode limitFromKnee}, {@linkcode runVerdicts}.
 *
 * @module
 */
export * from "./kneedle.ts";
export * from "./levels.ts";
export * from "./departure.ts";
export * from "./block_bootstrap.ts";
export * from "./persistence.ts";
export * from "./knee.ts";
export * from "./repeats.ts";
export * from "./limit.ts";
export * from "./client_limit.ts";
export * from "./verdicts.ts";
export * from "./format_knee.ts";
export * from "./level_cost.ts";
