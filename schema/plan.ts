import { z } from "zod";

export const StageKind = z.enum(["warmup", "steady", "burst", "drain"]);
export type StageKind = z.infer<typeof StageKind>;

/** Which cases the arrivals draw: class weights (seeded), uniform within a class. */
export const CaseMix = z.object({
  /** Class → relative weight; classes not listed are not drawn. Empty = every class, equal weight. */
  class_weights: z.record(z.string(), z.number().nonnegative()).default({}),
}).strict();

const rate = z.number().positive().max(1_000_000);
const duration = z.number().positive().max(86_400);

export const ConstantProcess = z.object({ process: z.literal("constant"), rate_rps: rate, duration_s: duration })
  .strict();
export const PoissonProcess = z.object({ process: z.literal("poisson"), rate_rps: rate, duration_s: duration })
  .strict();
/**
 * Gamma inter-arrivals with mean 1/rate. `burstiness` is the gamma shape k:
 * k = 1 is Poisson, k < 1 burstier (CV² = 1/k), k > 1 smoother.
 */
export const GammaProcess = z.object({
  process: z.literal("gamma"),
  rate_rps: rate,
  duration_s: duration,
  burstiness: z.number().positive().max(1000),
}).strict();

/** Replays the arrival times of a trace file (Azure CSV, Mooncake JSONL, or any CSV/JSONL with a time column). */
export const TraceProcess = z.object({
  process: z.literal("trace"),
  /** Path of the trace, relative to the plan file. */
  file: z.string().min(1),
  format: z.enum(["azure_csv", "mooncake_jsonl", "csv", "jsonl"]),
  /** Column holding the arrival time (csv/jsonl formats). */
  time_field: z.string().optional(),
  /** Unit of numeric times (csv/jsonl formats). @default "ms" */
  time_unit: z.enum(["s", "ms", "us"]).default("ms"),
  /** Times are divided by this factor (2 = twice as fast). @default 1 */
  speedup: z.number().positive().default(1),
  /** Skip arrivals before this offset (seconds of trace time, before speed-up). @default 0 */
  start_offset_s: z.number().nonnegative().default(0),
  /** Keep arrivals within this many seconds of run time. */
  duration_s: duration.optional(),
  max_requests: z.number().int().positive().optional(),
}).strict();

export const StagedStage = z.object({
  name: z.string().min(1),
  kind: StageKind.exclude(["drain"]),
  process: z.enum(["constant", "poisson", "gamma"]),
  rate_rps: rate,
  duration_s: duration,
  burstiness: z.number().positive().optional(),
}).strict().refine((s) => s.process !== "gamma" || s.burstiness !== undefined, {
  message: "a gamma stage needs burstiness",
  path: ["burstiness"],
});

/** Low, medium, peak, a short burst above peak: stages with drain pauses between them. */
export const StagedProcess = z.object({
  process: z.literal("staged"),
  stages: z.array(StagedStage).min(1),
  /** Pause with no arrivals between stages (a `drain` stage), seconds. @default 0 */
  drain_s: z.number().nonnegative().default(0),
  /** Also end with a drain pause. @default true */
  final_drain: z.boolean().default(true),
}).strict();

/** Closed loop: N users, each sends its next request when the previous ends. For comparison only. */
export const ClosedProcess = z.object({
  process: z.literal("closed"),
  users: z.number().int().positive().max(100_000),
  duration_s: duration,
  think_ms: z.number().nonnegative().default(0),
}).strict();

export const ArrivalProcess = z.discriminatedUnion("process", [
  ConstantProcess,
  PoissonProcess,
  GammaProcess,
  TraceProcess,
  StagedProcess,
  ClosedProcess,
]);
export type ArrivalProcess = z.infer<typeof ArrivalProcess>;

/** An arrival plan file. */
export const PlanSpec = z.object({
  name: z.string().min(1),
  seed: z.number().int().nonnegative().default(1),
  arrivals: ArrivalProcess,
  mix: CaseMix.default({ class_weights: {} }),
  /** Stop planning after this many arrivals. */
  max_requests: z.number().int().positive().optional(),
}).strict();
export type PlanSpec = z.input<typeof PlanSpec>;
export type PlanSpecParsed = z.infer<typeof PlanSpec>;

/** One stage of the run timeline (run.json `stages`). */
export const Stage = z.object({
  name: z.string().min(1),
  kind: StageKind,
  start_ms: z.number().nonnegative(),
  end_ms: z.number().nonnegative(),
  offered_rps: z.number().nonnegative(),
}).strict();
export type Stage = z.infer<typeof Stage>;

/** One planned arrival: the saved schedule is a list of these. */
export const ScheduledRequest = z.object({
  request_id: z.string(),
  scheduled_ms: z.number().nonnegative(),
  case_id: z.string(),
  class: z.string(),
  stage: z.string(),
  shard: z.number().int().nonnegative(),
}).strict();
export type ScheduledRequest = z.infer<typeof ScheduledRequest>;
