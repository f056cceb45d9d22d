import type { Stage, SweepProcess } from "../../schema/plan.ts";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { ArrivalContext, ArrivalGenerator, Arrivals } from "./arrival.ts";
import { constantArrivals } from "./constant.ts";
import { gammaArrivals } from "./gamma.ts";
import { poissonArrivals } from "./poisson.ts";

type SweepSpec = z.infer<typeof SweepProcess>;

/** Most rate levels a sweep may have (step names stay readable and schedules bounded). */
export const MAX_SWEEP_STEPS = 999;

/** One planned step of a sweep: a rate level and which repeat of it. */
export interface SweepStepPlan {
  /** `step-01`, or `step-01-r2` for the second repeat. */
  name: string;
  /** 1-based rate level. */
  level: number;
  /** 1-based repeat of the level. */
  repeat: number;
  rate_rps: number;
}

// Rates are computed, not accumulated, so 0.1 steps do not drift; the slack lets
// a rate that equals max_rps up to rounding (0.1 + 0.2) still be offered.
const RATE_SLACK = 1e-9;

function levelRates(spec: SweepSpec): number[] {
  const rates: number[] = [];
  const limit = spec.max_rps * (1 + RATE_SLACK);
  for (let i = 0; rates.length <= MAX_SWEEP_STEPS; i++) {
    const r = spec.step.kind === "linear"
      ? spec.start_rps + i * spec.step.step_rps
      : spec.start_rps * spec.step.factor ** i;
    if (r > limit) break;
    rates.push(Math.min(r, spec.max_rps));
  }
  return rates;
}

/**
 * The steps of a sweep in order: every rate level from `start_rps` up to
 * `max_rps`, each `repeats` times in a row.
 *
 * @example Geometric ×2 from 1 to 5 req/s, twice each
 * ```ts
 * import { sweepSteps } from "./sweep.ts";
 * import { SweepProcess } from "../../schema/plan.ts";
 * import assert from "node:assert/strict";
 * const spec = SweepProcess.parse({
 *   process: "sweep", start_rps: 1, step: { kind: "geometric", factor: 2 }, max_rps: 5, step_duration_s: 10, repeats: 2,
 * });
 * assert.deepEqual(sweepSteps(spec).map((s) => `${s.name}@${s.rate_rps}`),
 *   ["step-01@1", "step-01-r2@1", "step-02@2", "step-02-r2@2", "step-03@4", "step-03-r2@4"]);
 * ```
 */
export function sweepSteps(spec: SweepSpec): SweepStepPlan[] {
  const rates = levelRates(spec);
  const width = Math.max(2, String(rates.length).length);
  return rates.flatMap((rate_rps, i) =>
    Array.from({ length: spec.repeats }, (_, j) => ({
      name: `step-${String(i + 1).padStart(width, "0")}${j === 0 ? "" : `-r${j + 1}`}`,
      level: i + 1,
      repeat: j + 1,
      rate_rps,
    }))
  );
}

/** Problems with a sweep spec that zod cannot see (each naming the file and field). */
export function sweepProblems(spec: SweepSpec, planFile: string): string[] {
  const problems: string[] = [];
  const levels = levelRates(spec).length;
  if (levels > MAX_SWEEP_STEPS) {
    problems.push(
      `${planFile}: arrivals.max_rps: more than ${MAX_SWEEP_STEPS} steps from ${spec.start_rps} to ${spec.max_rps} ` +
        `req/s; use a larger step or a lower max_rps`,
    );
  }
  if (spec.first_step_warmup && levels < 2) {
    problems.push(`${planFile}: arrivals.first_step_warmup: the only step would be the warm-up; add a step`);
  }
  return problems;
}

function stepArrivals(spec: SweepSpec, rate: number, ctx: ArrivalContext): Promise<Arrivals> {
  const base = { rate_rps: rate, duration_s: spec.step_duration_s };
  if (spec.step_process === "constant") return constantArrivals.arrivals({ process: "constant", ...base }, ctx);
  if (spec.step_process === "poisson") return poissonArrivals.arrivals({ process: "poisson", ...base }, ctx);
  const burstiness = spec.burstiness;
  if (burstiness === undefined) {
    throw new InputError(`${ctx.planFile ?? "arrival plan"}: arrivals.burstiness: a gamma sweep needs burstiness`);
  }
  return gammaArrivals.arrivals({ process: "gamma", ...base, burstiness }, ctx);
}

/**
 * A load sweep: the steps of {@linkcode sweepSteps} in order, each a `steady`
 * stage (step-01 a `warmup` one when `first_step_warmup`) running
 * `step_process` at its rate for `step_duration_s`, each followed by a
 * `drain-after-<step>` stage of `drain_s` with no arrivals (after the last
 * step only when `final_drain`). Every step is planned; the runner removes
 * the steps after the one where a `stop` rule held.
 */
export const sweepArrivals: ArrivalGenerator<SweepSpec> = {
  process: "sweep",
  async arrivals(spec, ctx) {
    const planFile = ctx.planFile ?? "arrival plan";
    const problems = sweepProblems(spec, planFile);
    if (problems.length) throw new InputError(`${planFile}: invalid sweep plan`, problems);
    const steps = sweepSteps(spec);
    const timesMs: number[] = [];
    const stages: Stage[] = [];
    const stepMs = spec.step_duration_s * 1000;
    const drainMs = spec.drain_s * 1000;
    let startMs = 0;
    for (const [i, s] of steps.entries()) {
      const endMs = startMs + stepMs;
      const a = await stepArrivals(spec, s.rate_rps, { ...ctx, limit: (ctx.limit ?? Infinity) - timesMs.length });
      // A shifted time can round up to endMs; keep it inside its step.
      const lastInside = endMs - Math.max(Number.EPSILON * endMs, Number.MIN_VALUE);
      for (const t of a.timesMs) timesMs.push(Math.min(startMs + t, lastInside));
      const kind = spec.first_step_warmup && s.level === 1 ? "warmup" : "steady";
      stages.push({ name: s.name, kind, start_ms: startMs, end_ms: endMs, offered_rps: s.rate_rps });
      startMs = endMs;
      // At the limit: the steps after this one would hold no generated arrival.
      if (timesMs.length >= (ctx.limit ?? Infinity)) break;
      if (drainMs > 0 && (i < steps.length - 1 || spec.final_drain)) {
        stages.push({
          name: `drain-after-${s.name}`,
          kind: "drain",
          start_ms: startMs,
          end_ms: startMs + drainMs,
          offered_rps: 0,
        });
        startMs += drainMs;
      }
    }
    return { timesMs, stages };
  },
};

/** A rate to at most 3 decimals, without trailing zeros. */
const rps = (x: number) => String(Number(x.toFixed(3)));

/**
 * One line saying what a sweep plans and when it stops, for the plan CLI.
 *
 * @example
 * ```ts
 * import { describeSweep } from "./sweep.ts";
 * import { SweepProcess } from "../../schema/plan.ts";
 * import assert from "node:assert/strict";
 * const spec = SweepProcess.parse({
 *   process: "sweep", start_rps: 2, step: { kind: "linear", step_rps: 2 }, max_rps: 8, step_duration_s: 10,
 *   drain_s: 3, stop: { acceptance_below: 0.8 },
 * });
 * assert.equal(describeSweep(spec),
 *   "sweep: 4 steps of 10 s (poisson), 2 → 8 req/s (+2 req/s), 3 s drain after each; stops after the first " +
 *   "step whose acceptance < 0.8 at the end of its drain (the runner's provisional verdict); later steps are then not offered");
 * ```
 */
export function describeSweep(spec: SweepSpec): string {
  const steps = sweepSteps(spec);
  const levels = new Set(steps.map((s) => s.level)).size;
  const rise = spec.step.kind === "linear" ? `+${spec.step.step_rps} req/s` : `×${spec.step.factor}`;
  const reps = spec.repeats > 1 ? ` × ${spec.repeats} repeats` : "";
  const drain = spec.drain_s > 0 ? `, ${spec.drain_s} s drain after each` : "";
  const rules = [
    spec.stop.acceptance_below === undefined ? null : `acceptance < ${spec.stop.acceptance_below}`,
    spec.stop.rejection_above === undefined ? null : `rejection > ${spec.stop.rejection_above}`,
  ].filter((r) => r !== null);
  const stop = rules.length
    ? `stops after the first step whose ${rules.join(" or ")} at the end of its drain (the runner's provisional ` +
      `verdict); later steps are then not offered`
    : "no stop rule: every step is offered";
  return `sweep: ${levels} steps${reps} of ${spec.step_duration_s} s (${spec.step_process}), ` +
    `${rps(steps[0]?.rate_rps ?? 0)} → ${rps(steps.at(-1)?.rate_rps ?? 0)} req/s (${rise})${drain}; ${stop}`;
}
