import type { Stage } from "../../schema/plan.ts";
import type { Rng } from "../rng.ts";

/** What a generator may use besides its spec. */
export interface ArrivalContext {
  /** The plan's arrival RNG (seeded by the plan's `seed`). */
  rng: Rng;
  /** Folder of the plan file: trace `file` paths are relative to it. */
  planDir: string;
  /** Name of the plan file, for error messages. @default "arrival plan" */
  planFile?: string;
  /** Generate at most this many arrivals (the rest are not generated, so no time is held for them). @default Infinity */
  limit?: number;
}

/** A generator's output: arrival times and the stages they fall in. */
export interface Arrivals {
  /** Sorted, non-negative, ms on the run clock (ms 0 = run start). */
  timesMs: number[];
  /** Contiguous stages in time order covering every arrival. */
  stages: Stage[];
}

/**
 * One open-loop arrival process. Each process lives in its own file and
 * passes the same shared test suite (test/runner/plans_test.ts).
 */
export interface ArrivalGenerator<S> {
  /** The `process` value of the spec it handles. */
  readonly process: string;
  arrivals(spec: S, ctx: ArrivalContext): Promise<Arrivals>;
}

/** The single `steady` stage of a non-staged process. */
export function steadyStage(name: string, endMs: number, offeredRps: number): Stage {
  return { name, kind: "steady", start_ms: 0, end_ms: endMs, offered_rps: offeredRps };
}
