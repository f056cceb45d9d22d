/**
 * Seeded pseudo-random numbers for arrival plans: sfc32 seeded through
 * splitmix32, so a plan's seed alone fixes every draw. Never `Math.random`.
 *
 * @example Same seed, same draws
 * ```ts
 * import { Rng } from "./rng.ts";
 * import assert from "node:assert/strict";
 * const a = new Rng(7), b = new Rng(7);
 * assert.equal(a.next(), b.next());
 * assert.ok(a.exponential(2) > 0);
 * ```
 * @module
 */

const TWO_32 = 4294967296;

/** splitmix32 step: a well-mixed 32-bit output from a 32-bit state. */
function splitmix32(state: number): number {
  let z = (state + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Splits a non-negative integer seed (up to 2^53) into two 32-bit words. */
function seedWords(seed: number): [number, number] {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
  return [seed >>> 0, Math.floor(seed / TWO_32) >>> 0];
}

/**
 * A deterministic sfc32 generator. `stream` separates independent sequences
 * drawn from one seed (arrivals vs case mix), so one never shifts the other.
 */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  #spareNormal: number | undefined;

  /**
   * @param seed Non-negative integer seed.
   * @param stream Independent sub-sequence of the seed. @default 0
   */
  constructor(seed: number, stream = 0) {
    const [lo, hi] = seedWords(seed);
    let s = splitmix32(lo ^ Math.imul(stream + 1, 0x27d4eb2d));
    this.#a = s;
    s = splitmix32(s ^ hi);
    this.#b = s;
    s = splitmix32(s + stream);
    this.#c = s;
    this.#d = 1;
    // sfc32's recommended warm-up, so nearby seeds diverge.
    for (let i = 0; i < 15; i++) this.#u32();
  }

  #u32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.#u32() >>> 5; // 27 bits
    const lo = this.#u32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Exponential with the given rate (mean 1/rate). */
  exponential(rate: number): number {
    // 1 - u is in (0, 1], so the log is finite.
    return -Math.log(1 - this.next()) / rate;
  }

  /** Standard normal (Marsaglia's polar method; the spare draw is kept). */
  normal(): number {
    if (this.#spareNormal !== undefined) {
      const v = this.#spareNormal;
      this.#spareNormal = undefined;
      return v;
    }
    let u: number, v: number, s: number;
    do {
      u = 2 * this.next() - 1;
      v = 2 * this.next() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt(-2 * Math.log(s) / s);
    this.#spareNormal = v * f;
    return u * f;
  }

  /**
   * Gamma(shape, scale), mean shape·scale (Marsaglia–Tsang 2000; for
   * shape < 1 draws Gamma(shape + 1) and multiplies by U^(1/shape)).
   */
  gamma(shape: number, scale = 1): number {
    if (!(shape > 0) || !(scale > 0)) throw new RangeError(`gamma needs shape > 0 and scale > 0`);
    if (shape < 1) {
      const boost = Math.pow(1 - this.next(), 1 / shape);
      return this.gamma(shape + 1, scale) * boost;
    }
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number, v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }
}

/**
 * A uniform in [0, 1) that depends only on (seed, stream, index): draws by
 * index in any order (closed-loop users, shards) give the same values.
 */
export function uniformAt(seed: number, stream: number, index: number): number {
  const [lo, hi] = seedWords(seed);
  const [ilo, ihi] = seedWords(index);
  let h = splitmix32(lo ^ Math.imul(stream + 1, 0x27d4eb2d));
  h = splitmix32(h ^ hi);
  h = splitmix32(h ^ ilo);
  const a = splitmix32(h ^ ihi);
  const b = splitmix32(a ^ 0x5bd1e995);
  return ((a >>> 5) * 67108864 + (b >>> 6)) / 9007199254740992;
}
