/**
 * Glue for the notebooks (and scripts) so that no analysis logic lives in a
 * cell: text tables of latency and audits, the claim moved by one rule at a
 * time, a route comparison with knee, limit and cost per accepted task, and
 * the inputs of the figures that need results from several analyses.
 *
 * @module
 */
export * from "../audit/claim_moves.ts";
export * from "./notebook_format.ts";
export * from "../compare/route_costs.ts";
