/**
 * The seeded draws of a review packet: one mulberry32 stream per purpose (a stratum's draw, the double-rated share,
 * each rater's order, the opaque ids), each seeded from the packet's seed and the purpose's name, so that changing one
 * part of a design does not move the draws of another.
 *
 * @module
 */
import { mulberry32 } from "../../../lib/prng.ts";

/** A 32-bit seed from the packet's seed and a purpose (FNV-1a over `seed:label`). */
export function streamSeed(seed: number, label: string): number {
  let h = 0x811c9dc5;
  for (const ch of new TextEncoder().encode(`${seed}:${label}`)) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The uniform stream of one purpose. */
export function stream(seed: number, label: string): () => number {
  return mulberry32(streamSeed(seed, label));
}

/** A new array: `items` in a Fisher–Yates order drawn from `rand`. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Plain string order (code units), the same on every machine. */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
