import { mulberry32 } from "../lib/prng.ts";

/** A seeded uniform generator on [0, 1). */
export type Prng = () => number;

/**
 * A small, fast seeded PRNG (mulberry32): the same seed gives the same
 * sequence, so simulator draws are reproducible given the arrival order.
 *
 * @example Same seed, same draws
 * ```ts
 * import { createPrng } from "./prng.ts";
 * import assert from "node:assert/strict";
 * const a = createPrng(7), b = createPrng(7);
 * assert.equal(a(), b());
 * assert.ok(a() < 1);
 * ```
 */
export function createPrng(seed: number): Prng {
  return mulberry32((Math.trunc(seed) ^ 0x9e3779b9) >>> 0);
}
