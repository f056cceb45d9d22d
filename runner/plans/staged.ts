import type { Stage, StagedProcess } from "../../schema/plan.ts";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import type { ArrivalContext, ArrivalGenerator, Arrivals } from "./arrival.ts";
import { constantArrivals } from "./constant.ts";
import { gammaArrivals } from "./gamma.ts";
import { poissonArrivals } from "./poisson.ts";

type StagedSpec = z.infer<typeof StagedProcess>;
type StagedStage = StagedSpec["stages"][number];

/** The process of one stage, run for the stage's duration from ms 0. */
function stageArrivals(s: StagedStage, ctx: ArrivalContext, planFile: string, i: number): Promise<Arrivals> {
  const base = { rate_rps: s.rate_rps, duration_s: s.duration_s };
  if (s.process === "constant") return constantArrivals.arrivals({ process: "constant", ...base }, ctx);
  if (s.process === "poisson") return poissonArrivals.arrivals({ process: "poisson", ...base }, ctx);
  if (s.burstiness === undefined) {
    throw new InputError(`${planFile}: arrivals.stages.${i}.burstiness: a gamma stage needs burstiness`);
  }
  return gammaArrivals.arrivals({ process: "gamma", ...base, burstiness: s.burstiness }, ctx);
}

/**
 * Problems with a staged spec that zod cannot see: the first stage is the
 * cold start and must be `warmup`; stage names (drains included) are unique.
 */
export function stagedProblems(spec: StagedSpec, planFile: string): string[] {
  const problems: string[] = [];
  const first = spec.stages[0];
  if (first && first.kind !== "warmup") {
    problems.push(
      `${planFile}: arrivals.stages.0.kind: the first stage runs against a cold target (empty caches, ` +
        `unscaled replicas), so it must be kind "warmup", not "${first.kind}"; add a warmup stage before it`,
    );
  }
  const seen = new Set<string>();
  drainNames(spec).concat(spec.stages.map((s) => s.name)).forEach((name) => {
    if (seen.has(name)) problems.push(`${planFile}: arrivals.stages: stage name "${name}" is used twice`);
    seen.add(name);
  });
  return problems;
}

function drainNames(spec: StagedSpec): string[] {
  if (spec.drain_s <= 0) return [];
  const after = spec.final_drain ? spec.stages : spec.stages.slice(0, -1);
  return after.map((s) => `drain-after-${s.name}`);
}

/**
 * Staged load: stages in order, each with its own process (constant,
 * Poisson or gamma) at its own rate for its own duration, separated by
 * `drain` stages of `drain_s` with no arrivals (also after the last stage
 * when `final_drain`). Drains are named `drain-after-<stage>` and offer
 * 0 req/s. The first stage must be `warmup`: it is the cold start.
 */
export const stagedArrivals: ArrivalGenerator<StagedSpec> = {
  process: "staged",
  async arrivals(spec, ctx) {
    const planFile = ctx.planFile ?? "arrival plan";
    const problems = stagedProblems(spec, planFile);
    if (problems.length) throw new InputError(`${planFile}: invalid staged plan`, problems);
    const timesMs: number[] = [];
    const stages: Stage[] = [];
    const drainMs = spec.drain_s * 1000;
    let startMs = 0;
    for (const [i, s] of spec.stages.entries()) {
      const endMs = startMs + s.duration_s * 1000;
      const limit = (ctx.limit ?? Infinity) - timesMs.length;
      const a = await stageArrivals(s, { ...ctx, limit }, planFile, i);
      // A shifted time can round up to endMs; keep it inside its stage.
      const latest = prevDouble(endMs);
      for (const t of a.timesMs) timesMs.push(Math.min(startMs + t, latest));
      stages.push({ name: s.name, kind: s.kind, start_ms: startMs, end_ms: endMs, offered_rps: s.rate_rps });
      startMs = endMs;
      // At the limit: the stages after this one would hold no generated arrival.
      if (timesMs.length >= (ctx.limit ?? Infinity)) break;
      const last = i === spec.stages.length - 1;
      if (drainMs > 0 && (!last || spec.final_drain)) {
        const drainEnd = startMs + drainMs;
        stages.push({
          name: `drain-after-${s.name}`,
          kind: "drain",
          start_ms: startMs,
          end_ms: drainEnd,
          offered_rps: 0,
        });
        startMs = drainEnd;
      }
    }
    return { timesMs, stages };
  },
};

/** The largest double below x (x > 0). */
function prevDouble(x: number): number {
  const buf = new Float64Array([x]);
  const bits = new BigInt64Array(buf.buffer);
  bits[0] = (bits[0] ?? 0n) - 1n;
  return buf[0] ?? x;
}
