/**
 * Auditing a published number: the alternatives table (the headline
 * recomputed under every other reasonable rule choice), a claim file, the
 * audit of a claim against the raw log, and the claim moved by one rule at a
 * time.
 *
 * Entry points: {@linkcode alternatives}, {@linkcode loadClaim},
 * {@linkcode audit}, {@linkcode claimMoves}.
 *
 * @module
 */
export * from "./alternatives.ts";
export * from "./format_alternatives.ts";
export * from "./claim.ts";
export * from "./audit.ts";
export * from "./claim_moves.ts";
