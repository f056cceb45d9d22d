import { z } from "zod";
import { drillOrderIssues, IntakeDrill } from "./drill.ts";
import { RunName } from "./run_name.ts";

/**
 * `warmup`: the cold start; `steady` and `burst`: load levels (the knee's points); `recovery`: a stage after a burst or
 * an outage, measured (goodput counts it like any stage) but never a load level, since its backlog is not the
 * response to its own offered rate; `drain`: a pause with no arrivals.
 */
export const StageKind = z.enum(["warmup", "steady", "burst", "recovery", "drain"]);
export type StageKind = z.infer<typeof StageKind>;

const tag = z.string().min(1).max(64);

/**
 * Which cases the arrivals draw: first the cases the selection keeps (every rule given must hold; a rule not given
 * keeps every case), then a class by weight (seeded) and a case uniformly within the class.
 */
export const CaseMix = z.object({
  /** Class → relative weight; classes not listed are not drawn. Empty = every class left by the selection, equal weight. */
  class_weights: z.record(z.string(), z.number().nonnegative()).default({}),
  /** Keep only cases that carry every one of these tags (workload `cases[].tags`). */
  tags: z.array(tag).min(1).optional(),
  /** Drop every case that carries any of these tags. */
  exclude_tags: z.array(tag).min(1).optional(),
  /** Keep only cases of these input sizes (workload `cases[].input_size`). */
  input_size: z.array(z.enum(["typical", "long"])).min(1).optional(),
  /** Keep only cases whose `input_tokens` (o200k_base, message contents) is at least this. */
  min_input_tokens: z.number().int().positive().optional(),
  /** Keep only cases whose `input_tokens` is at most this. */
  max_input_tokens: z.number().int().positive().optional(),
}).strict().superRefine((m, ctx) => {
  if (m.min_input_tokens !== undefined && m.max_input_tokens !== undefined && m.min_input_tokens > m.max_input_tokens) {
    ctx.addIssue({
      code: "custom",
      path: ["max_input_tokens"],
      message: `max_input_tokens ${m.max_input_tokens} is below min_input_tokens ${m.min_input_tokens}: no case fits`,
    });
  }
  for (const t of m.tags ?? []) {
    if (m.exclude_tags?.includes(t)) {
      ctx.addIssue({ code: "custom", path: ["exclude_tags"], message: `tag "${t}" is both required and excluded` });
    }
  }
});
export type CaseMix = z.infer<typeof CaseMix>;

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

/** How a sweep's rate rises from one step to the next. */
export const SweepStep = z.discriminatedUnion("kind", [
  /** rate_i = start_rps + i · step_rps */
  z.object({ kind: z.literal("linear"), step_rps: rate }).strict(),
  /** rate_i = start_rps · factor^i */
  z.object({ kind: z.literal("geometric"), factor: z.number().gt(1).max(100) }).strict(),
]);

/**
 * When the runner stops a sweep early, judged at the end of each step's
 * drain from what it knows then (its own provisional verdicts; the analysis
 * recomputes acceptance under an SLO policy). Omitted rules never stop it.
 */
export const SweepStop = z.object({
  /** Stop when the step's share of accepted requests (of those offered in it) is below this. */
  acceptance_below: z.number().gt(0).max(1).optional(),
  /** Stop when the step's share of rejected requests (429 after retries) is above this. */
  rejection_above: z.number().min(0).lt(1).optional(),
}).strict();

/**
 * Offered load rising in steps from `start_rps` (linear or geometric) while
 * the rate is ≤ `max_rps`, each step `step_duration_s` long with its own
 * arrival process, optionally repeated, with a `drain_s` pause after each.
 * Stages are `step-01`, `step-02`, … (`step-02-r2` for a repeat) and
 * `drain-after-<step>`; the runner stops early when a `stop` rule holds.
 */
export const SweepProcess = z.object({
  process: z.literal("sweep"),
  start_rps: rate,
  step: SweepStep,
  /** No step offers more than this. */
  max_rps: rate,
  step_duration_s: duration,
  /** Pause with no arrivals after each step, seconds. @default 0 */
  drain_s: z.number().nonnegative().max(86_400).default(0),
  /** Also pause after the last step. @default true */
  final_drain: z.boolean().default(true),
  /** Times each rate is offered (repeats follow each other). @default 1 */
  repeats: z.number().int().min(1).max(20).default(1),
  /** The arrival process within each step. @default "poisson" */
  step_process: z.enum(["constant", "poisson", "gamma"]).default("poisson"),
  /** Gamma shape k of each step (gamma steps only). */
  burstiness: z.number().positive().max(1000).optional(),
  /** Make step-01 (every repeat of it) a `warmup` stage: the cold start, not a point of the curve. @default false */
  first_step_warmup: z.boolean().default(false),
  stop: SweepStop.default({}),
}).strict().superRefine((s, ctx) => {
  if (s.step_process === "gamma" && s.burstiness === undefined) {
    ctx.addIssue({ code: "custom", path: ["burstiness"], message: "a gamma sweep needs burstiness" });
  }
  if (s.step_process !== "gamma" && s.burstiness !== undefined) {
    ctx.addIssue({ code: "custom", path: ["burstiness"], message: `not used by step_process ${s.step_process}` });
  }
  if (s.start_rps > s.max_rps) {
    ctx.addIssue({
      code: "custom",
      path: ["max_rps"],
      message: `max_rps ${s.max_rps} is below start_rps ${s.start_rps}: the sweep would have no step`,
    });
  }
});

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
  SweepProcess,
  ClosedProcess,
]);
export type ArrivalProcess = z.infer<typeof ArrivalProcess>;

/** An arrival plan file. */
export const PlanSpec = z.object({
  /** The default run id is `<name>-<UTC time>`, so it is a {@linkcode RunName}. */
  name: RunName,
  seed: z.number().int().nonnegative().default(1),
  arrivals: ArrivalProcess,
  mix: CaseMix.default({ class_weights: {} }),
  /** Stop planning after this many arrivals. */
  max_requests: z.number().int().positive().optional(),
  /** Operator drills on the run clock (schema/drill.ts), in time order. Absent = none. */
  drills: z.array(IntakeDrill).min(1).max(20).optional(),
}).strict().superRefine((p, ctx) => {
  for (const issue of drillOrderIssues(p.drills ?? [])) ctx.addIssue({ code: "custom", ...issue });
});
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
