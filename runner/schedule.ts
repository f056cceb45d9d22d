/**
 * The arrival schedule of a run: computed from a plan before the run
 * (seeded, open loop), sharded deterministically, saved as `schedule.csv`.
 *
 * @example Plan, build and summarise a constant-rate schedule
 * ```ts
 * import { buildSchedule, summarizeSchedule } from "./schedule.ts";
 * import { PlanSpec, type Workload } from "../schema/mod.ts";
 * import assert from "node:assert/strict";
 * const c = (id: string, cls: string) => ({
 *   case_id: id, class: cls, priority: 0, messages: [{ role: "user" as const, content: "hi" }], input_tokens: 1,
 *   prompt_sha256: "0".repeat(64), max_output_tokens: 8, expected_output_tokens: 4, reference_output: "ok",
 *   expected_output_schema: null, safety_case: false, canary: null, tool_calls_expected: [], tools: [],
 *   tool_responses: [], permitted_tools: [], retrieval: null,
 *   quality_check: { kind: "exact" as const, value: "ok", normalize: true },
 *   input_size: "typical" as const, output_size: "typical" as const,
 * });
 * const workload: Workload = {
 *   workload: "w", version: "1", kind: "design", description: "", does_not_represent: [], tokenizer: "o200k_base",
 *   cases: [c("a1", "chat"), c("b1", "rag")],
 * };
 * const spec = PlanSpec.parse({ name: "c", arrivals: { process: "constant", rate_rps: 4, duration_s: 2 } });
 * const built = await buildSchedule(spec, workload, { planDir: "." });
 * assert.equal(built.totalPlanned, 8);
 * assert.equal(built.entries[1]?.request_id, "r0000001");
 * assert.equal(built.entries[1]?.scheduled_ms, 250);
 * assert.equal(summarizeSchedule(built).stages[0]?.requests, 8);
 * ```
 * @module
 */
import type { PlanSpecParsed, ScheduledRequest, Stage } from "../schema/plan.ts";
import type { Workload, WorkloadCase } from "../schema/workload.ts";
import { InputError } from "../schema/errors.ts";
import { Rng } from "./rng.ts";
import { caseMix } from "./plans/case_mix.ts";
import { generateArrivals } from "./plans/generate.ts";
import { MAX_PLANNED_REQUESTS, planSizeProblem } from "./plans/plan_size.ts";
import { planProblems } from "./plans/validate_plan.ts";

export { type LoadedPlan, loadPlan } from "./plans/load_plan.ts";
export {
  readSchedule,
  saveSchedule,
  SCHEDULE_COLUMNS,
  SCHEDULE_FILE,
  scheduleCsvBytes,
  scheduleSha256,
} from "./plans/schedule_csv.ts";
export { type ScheduleSummary, type StageSummary, summarizeSchedule } from "./plans/summarize.ts";

/** RNG stream of arrival times (the case mix uses streams 1 and 2). */
const ARRIVAL_STREAM = 0;

/** Which slice of the schedule this runner process sends. */
export interface Shard {
  index: number;
  count: number;
}

/** A schedule ready to run. */
export interface BuiltSchedule {
  /** `closed`: no precomputed arrivals; the runner sends as users finish. */
  mode: "open" | "closed";
  /** This shard's arrivals, in time order. */
  entries: ScheduledRequest[];
  /** The run timeline (run.json `stages`), the same in every shard. */
  stages: Stage[];
  /** Arrivals of the full schedule, every shard (0 for a closed loop). */
  totalPlanned: number;
  shard: Shard;
  /** The case of arrival `i` (a pure function of the seed and i). */
  assignCase(i: number): WorkloadCase;
}

/** Options of {@linkcode buildSchedule}. */
export interface BuildScheduleOptions {
  /** Folder of the plan file (trace paths are relative to it). */
  planDir: string;
  /** The plan file's name, for error messages. @default "arrival plan" */
  planFile?: string;
  /** Keep only this shard's arrivals. @default {index: 0, count: 1} */
  shard?: Shard;
}

/** `r` + the arrival index, zero-padded to 7 digits. */
export function requestId(i: number): string {
  return `r${String(i).padStart(7, "0")}`;
}

function checkShard(shard: Shard): void {
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new InputError(`--shard ${index}/${count}: need whole numbers with 0 <= i < N`);
  }
}

/** Keeps the stages before `cutMs` (the first dropped arrival); the last one ends there. */
function truncateStages(stages: Stage[], cutMs: number): Stage[] {
  const kept = stages.filter((s, i) => i === 0 || s.start_ms < cutMs);
  return kept.map((s, i) =>
    i === kept.length - 1 ? { ...s, end_ms: Math.min(s.end_ms, Math.max(s.start_ms, cutMs)) } : s
  );
}

/**
 * Computes the schedule of a plan: arrival times from the plan's process
 * (seeded by `spec.seed`), truncated to `max_requests`; arrival i gets
 * request id `r` + i (7 digits), the case `assignCase(i)` and the stage
 * containing its time. Every shard computes the full schedule and keeps
 * index % N == i, so the shards' union is the full schedule. A plan over
 * the size bound of runner/plans/plan_size.ts is an InputError before any
 * arrival is generated; arrivals past `max_requests` are never generated.
 */
export async function buildSchedule(
  spec: PlanSpecParsed,
  workload: Workload,
  options: BuildScheduleOptions,
): Promise<BuiltSchedule> {
  const planFile = options.planFile ?? "arrival plan";
  const shard = options.shard ?? { index: 0, count: 1 };
  checkShard(shard);
  const problems = planProblems(spec, planFile);
  const tooBig = await planSizeProblem(spec, planFile, options.planDir);
  if (tooBig !== null) problems.push(tooBig);
  if (problems.length) throw new InputError(`${planFile}: invalid arrival plan`, problems);
  const assignCase = caseMix(workload, spec.mix, spec.seed, planFile);
  const a = spec.arrivals;
  if (a.process === "closed") {
    // A closed loop's offered rate is whatever its users produce: unknown before the run.
    const stages: Stage[] = [{
      name: "closed",
      kind: "steady",
      start_ms: 0,
      end_ms: a.duration_s * 1000,
      offered_rps: 0,
    }];
    return { mode: "closed", entries: [], stages, totalPlanned: 0, shard, assignCase };
  }
  const rng = new Rng(spec.seed, ARRIVAL_STREAM);
  const max = spec.max_requests;
  // One arrival past max_requests (its time ends the last stage) or past the bound (the plan is refused then).
  const limit = Math.min(max ?? Infinity, MAX_PLANNED_REQUESTS) + 1;
  // A trace is counted by its rows before it is read (runner/plans/plan_size.ts); its stage needs every kept row.
  const ctx = { rng, planDir: options.planDir, planFile, ...(a.process === "trace" ? {} : { limit }) };
  const generated = await generateArrivals(a, ctx);
  let timesMs = generated.timesMs;
  let stages = generated.stages;
  if (timesMs.length > MAX_PLANNED_REQUESTS && (max === undefined || max > MAX_PLANNED_REQUESTS)) {
    throw new InputError(
      `${planFile}: arrivals: more than ${MAX_PLANNED_REQUESTS.toLocaleString("en-US")} arrivals generated (random ` +
        `arrivals above their expected count), the most one plan may schedule; lower the rate or the duration, or ` +
        `set max_requests`,
    );
  }
  const cut = max === undefined ? undefined : timesMs[max];
  if (max !== undefined && cut !== undefined) {
    timesMs = timesMs.slice(0, max);
    stages = truncateStages(stages, cut);
  }
  const entries: ScheduledRequest[] = [];
  let s = 0;
  for (let i = 0; i < timesMs.length; i++) {
    const t = timesMs[i] as number;
    while (s + 1 < stages.length && (stages[s + 1] as Stage).start_ms <= t) s++;
    if (i % shard.count !== shard.index) continue;
    const c = assignCase(i);
    entries.push({
      request_id: requestId(i),
      scheduled_ms: t,
      case_id: c.case_id,
      class: c.class,
      stage: (stages[s] as Stage).name,
      shard: shard.index,
    });
  }
  return { mode: "open", entries, stages, totalPlanned: timesMs.length, shard, assignCase };
}
