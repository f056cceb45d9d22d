import type { GammaProcess } from "../../schema/plan.ts";
import type { z } from "zod";
import { type ArrivalGenerator, steadyStage } from "./arrival.ts";

/**
 * Gamma-renewal arrivals, vLLM's `--burstiness` convention: gaps are
 * Gamma(shape k = burstiness, scale θ = 1/(rate·k)), so the mean gap is
 * k·θ = 1/rate whatever k is, and the gaps' CV² = 1/k (k = 1 is Poisson,
 * k < 1 burstier, k > 1 smoother). The first arrival is one gap after ms 0;
 * every arrival is strictly before `duration_s`.
 *
 * @example The mean rate does not depend on the burstiness
 * ```ts
 * import { gammaArrivals } from "./gamma.ts";
 * import { Rng } from "../rng.ts";
 * import assert from "node:assert/strict";
 * const spec = { process: "gamma" as const, rate_rps: 100, duration_s: 10, burstiness: 4 };
 * const a = await gammaArrivals.arrivals(spec, { rng: new Rng(1), planDir: "." });
 * assert.ok(Math.abs(a.timesMs.length - 1000) < 70); // ±4σ, σ = √(1000/k)
 * ```
 */
export const gammaArrivals: ArrivalGenerator<z.infer<typeof GammaProcess>> = {
  process: "gamma",
  arrivals(spec, { rng, limit = Infinity }) {
    const endMs = spec.duration_s * 1000;
    const k = spec.burstiness;
    const scaleMs = 1000 / (spec.rate_rps * k);
    const timesMs: number[] = [];
    for (let t = rng.gamma(k, scaleMs); t < endMs && timesMs.length < limit; t += rng.gamma(k, scaleMs)) {
      timesMs.push(t);
    }
    return Promise.resolve({ timesMs, stages: [steadyStage("gamma", endMs, spec.rate_rps)] });
  },
};
