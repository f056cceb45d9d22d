import type { PoissonProcess } from "../../schema/plan.ts";
import type { z } from "zod";
import { type ArrivalGenerator, steadyStage } from "./arrival.ts";

/**
 * Poisson arrivals: independent exponential gaps with mean 1/rate, starting
 * from ms 0 (the first arrival is one gap after the start), every arrival
 * strictly before `duration_s`.
 *
 * @example Roughly rate × duration arrivals
 * ```ts
 * import { poissonArrivals } from "./poisson.ts";
 * import { Rng } from "../rng.ts";
 * import assert from "node:assert/strict";
 * const a = await poissonArrivals.arrivals({ process: "poisson", rate_rps: 100, duration_s: 10 }, { rng: new Rng(1), planDir: "." });
 * assert.ok(Math.abs(a.timesMs.length - 1000) < 130); // ±4σ, σ = √1000
 * ```
 */
export const poissonArrivals: ArrivalGenerator<z.infer<typeof PoissonProcess>> = {
  process: "poisson",
  arrivals(spec, { rng, limit = Infinity }) {
    const endMs = spec.duration_s * 1000;
    const timesMs: number[] = [];
    const next = () => rng.exponential(spec.rate_rps) * 1000;
    for (let t = next(); t < endMs && timesMs.length < limit; t += next()) {
      timesMs.push(t);
    }
    return Promise.resolve({ timesMs, stages: [steadyStage("poisson", endMs, spec.rate_rps)] });
  },
};
