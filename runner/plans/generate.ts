import type { ArrivalProcess } from "../../schema/plan.ts";
import type { ArrivalContext, Arrivals } from "./arrival.ts";
import { constantArrivals } from "./constant.ts";
import { gammaArrivals } from "./gamma.ts";
import { poissonArrivals } from "./poisson.ts";
import { stagedArrivals } from "./staged.ts";
import { sweepArrivals } from "./sweep.ts";
import { traceArrivals } from "./trace.ts";

/** Every open-loop process (closed loops have no precomputed arrivals). */
export type OpenArrivalProcess = Exclude<ArrivalProcess, { process: "closed" }>;

/**
 * Runs the generator of `spec.process`: sorted arrival times on the run
 * clock and the stages they fall in.
 */
export function generateArrivals(spec: OpenArrivalProcess, ctx: ArrivalContext): Promise<Arrivals> {
  switch (spec.process) {
    case "constant":
      return constantArrivals.arrivals(spec, ctx);
    case "poisson":
      return poissonArrivals.arrivals(spec, ctx);
    case "gamma":
      return gammaArrivals.arrivals(spec, ctx);
    case "trace":
      return traceArrivals.arrivals(spec, ctx);
    case "staged":
      return stagedArrivals.arrivals(spec, ctx);
    case "sweep":
      return sweepArrivals.arrivals(spec, ctx);
  }
}
