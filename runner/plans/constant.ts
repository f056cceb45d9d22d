import type { ConstantProcess } from "../../schema/plan.ts";
import type { z } from "zod";
import { type ArrivalGenerator, steadyStage } from "./arrival.ts";

/**
 * Constant rate, k6's open model: arrival i fires at i / rate, the first at
 * ms 0, every arrival strictly before `duration_s`. Uses no randomness.
 *
 * @example Four arrivals in two seconds at 2 req/s
 * ```ts
 * import { constantArrivals } from "./constant.ts";
 * import { Rng } from "../rng.ts";
 * import assert from "node:assert/strict";
 * const a = await constantArrivals.arrivals({ process: "constant", rate_rps: 2, duration_s: 2 }, { rng: new Rng(1), planDir: "." });
 * assert.deepEqual(a.timesMs, [0, 500, 1000, 1500]);
 * ```
 */
export const constantArrivals: ArrivalGenerator<z.infer<typeof ConstantProcess>> = {
  process: "constant",
  arrivals(spec, { limit = Infinity }) {
    const endMs = spec.duration_s * 1000;
    const timesMs: number[] = [];
    // Multiply rather than accumulate so there is no drift over long runs.
    for (let i = 0; i < limit; i++) {
      const t = (i * 1000) / spec.rate_rps;
      if (t >= endMs) break;
      timesMs.push(t);
    }
    return Promise.resolve({ timesMs, stages: [steadyStage("constant", endMs, spec.rate_rps)] });
  },
};
