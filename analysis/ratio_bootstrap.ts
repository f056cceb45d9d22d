import { mulberry32 } from "../schema/prng.ts";
import type { SignalSample } from "./signals.ts";

const BOOTSTRAP_RESAMPLES = 400;

/**
 * Σ amount / Σ accepted over requests (e.g. tokens per accepted task), with
 * a 95 % percentile bootstrap interval (requests resampled with replacement,
 * 400 resamples, seed 1). A resample with no accepted request has an
 * infinite ratio; when that reaches the upper 2.5 % the interval has no
 * upper bound (null). No accepted request at all: value null, n 0.
 *
 * @example Two accepted of three: 90 / 2
 * ```ts
 * import assert from "node:assert/strict";
 * import { ratioBootstrap } from "./ratio_bootstrap.ts";
 * const s = ratioBootstrap(Float64Array.of(30, 30, 30), [true, true, false]);
 * assert.equal(s.value, 45);
 * ```
 */
export function ratioBootstrap(amounts: Float64Array, accepted: boolean[]): SignalSample {
  const n = accepted.length;
  let tok = 0, acc = 0;
  for (let i = 0; i < n; i++) {
    tok += amounts[i]!;
    acc += accepted[i] ? 1 : 0;
  }
  if (!acc) return { test: "bootstrap", value: null, n: 0, lower: null, upper: null };
  const rand = mulberry32(1);
  const ratios = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    let t = 0, a = 0;
    for (let k = 0; k < n; k++) {
      const i = Math.floor(rand() * n);
      t += amounts[i]!;
      a += accepted[i] ? 1 : 0;
    }
    ratios[b] = a ? t / a : Infinity;
  }
  ratios.sort();
  const lower = ratios[Math.floor(0.025 * BOOTSTRAP_RESAMPLES)]!;
  const upper = ratios[Math.ceil(0.975 * BOOTSTRAP_RESAMPLES) - 1]!;
  return {
    test: "bootstrap",
    value: tok / acc,
    n: acc,
    lower: Number.isFinite(lower) ? lower : null,
    upper: Number.isFinite(upper) ? upper : null,
  };
}
