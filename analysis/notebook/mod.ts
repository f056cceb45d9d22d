/**
 * Glue for the notebooks, so that no analysis logic lives in a cell: text
 * tables of latency, audits and claim moves, and optional danfojs interop.
 *
 * Entry points: {@linkcode formatLatency}, {@linkcode formatAudit},
 * {@linkcode formatClaimMoves}, {@linkcode toDanfo}.
 *
 * @module
 */
export * from "./notebook_helpers.ts";
export * from "./danfo.ts";
