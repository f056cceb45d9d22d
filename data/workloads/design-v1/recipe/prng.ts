/** A seeded pseudo-random source, so the workload is re-derived byte for byte. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [lo, hi], both included. */
  int(lo: number, hi: number): number;
  /** One element of a non-empty array. */
  pick<T>(xs: readonly T[]): T;
  /** `k` distinct elements in random order. */
  sample<T>(xs: readonly T[], k: number): T[];
  /** `n` lowercase hex digits. */
  hex(n: number): string;
}

/** Element `i` of `xs`; throws instead of returning undefined (a recipe bug, not input). */
export function at<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`index ${i} outside 0..${xs.length - 1}`);
  return x;
}

/** mulberry32: tiny, fast and stable across platforms (integer arithmetic only). */
export function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick: (xs) => at(xs, int(0, xs.length - 1)),
    sample: (xs, k) => {
      const copy = [...xs];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [at(copy, j), at(copy, i)];
      }
      return copy.slice(0, k);
    },
    hex: (n) => Array.from({ length: n }, () => int(0, 15).toString(16)).join(""),
  };
}
