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
  let s = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
