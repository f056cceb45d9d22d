/**
 * mulberry32: a small, fast seeded uniform generator on [0, 1). The same
 * seed gives the same sequence, so the simulator's draws, the analysis's
 * bootstrap intervals and generated test logs are reproducible. Shared here
 * (lib/, beside the contract) because runner, simulator and analysis may not
 * import each other.
 *
 * @example Same seed, same draws
 * ```ts
 * import assert from "node:assert/strict";
 * import { mulberry32 } from "./prng.ts";
 * const a = mulberry32(7), b = mulberry32(7);
 * assert.equal(a(), b());
 * assert.ok(a() < 1);
 * ```
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
