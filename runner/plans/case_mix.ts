import type { CaseMix } from "../../schema/plan.ts";
import type { Workload, WorkloadCase } from "../../schema/workload.ts";
import type { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { uniformAt } from "../rng.ts";

/** RNG streams of the mix: independent of the arrival stream (0). */
const CLASS_STREAM = 1;
const CASE_STREAM = 2;

/**
 * Returns `assignCase(i)`: the case of arrival i, drawn from the plan's
 * class weights (empty = every workload class, equal weight), uniformly
 * within the class. Each draw depends only on (seed, i), so shards and a
 * closed loop's users get the same cases whatever order they ask in.
 * A class the workload lacks is an {@linkcode InputError} naming
 * `mix.class_weights.<class>`.
 */
export function caseMix(
  workload: Workload,
  mix: z.infer<typeof CaseMix>,
  seed: number,
  planFile: string,
): (index: number) => WorkloadCase {
  const byClass = new Map<string, WorkloadCase[]>();
  for (const c of workload.cases) byClass.set(c.class, [...(byClass.get(c.class) ?? []), c]);
  const given = Object.entries(mix.class_weights);
  const weights: [string, number][] = given.length ? given : [...byClass.keys()].map((k) => [k, 1]);
  const problems = given.filter(([cls]) => !byClass.has(cls)).map(([cls]) =>
    `${planFile}: mix.class_weights.${cls}: class "${cls}" is not in workload ${workload.workload} ` +
    `(its classes: ${[...byClass.keys()].join(", ")})`
  );
  const drawn = weights.filter(([, w]) => w > 0);
  if (given.length && problems.length === 0 && drawn.length === 0) {
    problems.push(`${planFile}: mix.class_weights: every weight is 0, so no class can be drawn`);
  }
  if (problems.length) throw new InputError(`${planFile}: invalid case mix`, problems);
  const total = drawn.reduce((s, [, w]) => s + w, 0);
  const pools = drawn.map(([cls, w]) => ({ cases: byClass.get(cls) ?? [], p: w / total }));
  return (index: number) => {
    if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`arrival index must be >= 0, got ${index}`);
    let u = uniformAt(seed, CLASS_STREAM, index);
    // The last pool also takes what rounding leaves of u.
    let pool = pools[pools.length - 1];
    for (const p of pools) {
      if (u < p.p) {
        pool = p;
        break;
      }
      u -= p.p;
    }
    const cases = pool?.cases ?? [];
    const c = cases[Math.floor(uniformAt(seed, CASE_STREAM, index) * cases.length)];
    if (c === undefined) throw new Error("case mix has no case to draw");
    return c;
  };
}
