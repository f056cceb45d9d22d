import type { CaseMix } from "../../schema/plan.ts";
import type { Workload, WorkloadCase } from "../../schema/workload.ts";
import { InputError } from "../../schema/errors.ts";
import { uniformAt } from "../rng.ts";

/** RNG streams of the mix: independent of the arrival stream (0). */
const CLASS_STREAM = 1;
const CASE_STREAM = 2;

/**
 * Whether a case passes the mix's selection: every rule given holds (`tags` all carried, no `exclude_tags` carried,
 * its `input_size` listed, its `input_tokens` within the bounds); a rule not given keeps every case.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { selectsCase } from "./case_mix.ts";
 * const c = { tags: ["short-chat"], input_size: "typical" as const, input_tokens: 350 };
 * assert.equal(selectsCase({ class_weights: {}, tags: ["short-chat"], max_input_tokens: 400 }, c), true);
 * assert.equal(selectsCase({ class_weights: {}, input_size: ["long"] }, c), false);
 * assert.equal(selectsCase({ class_weights: {}, min_input_tokens: 351 }, c), false);
 * ```
 */
export function selectsCase(
  mix: CaseMix,
  c: Pick<WorkloadCase, "tags" | "input_size" | "input_tokens">,
): boolean {
  const tags = c.tags ?? [];
  if (mix.tags && !mix.tags.every((t) => tags.includes(t))) return false;
  if (mix.exclude_tags && mix.exclude_tags.some((t) => tags.includes(t))) return false;
  if (mix.input_size && !mix.input_size.includes(c.input_size)) return false;
  if (mix.min_input_tokens !== undefined && c.input_tokens < mix.min_input_tokens) return false;
  if (mix.max_input_tokens !== undefined && c.input_tokens > mix.max_input_tokens) return false;
  return true;
}

/** The selection rules a mix states, in words (for an error naming why no case is left). */
function selectionText(mix: CaseMix): string {
  const parts = [
    mix.tags && `tags ${mix.tags.join(", ")}`,
    mix.exclude_tags && `no tag of ${mix.exclude_tags.join(", ")}`,
    mix.input_size && `input_size ${mix.input_size.join(" or ")}`,
    mix.min_input_tokens !== undefined && `input_tokens ≥ ${mix.min_input_tokens}`,
    mix.max_input_tokens !== undefined && `input_tokens ≤ ${mix.max_input_tokens}`,
  ].filter((p): p is string => typeof p === "string");
  return parts.join(", ");
}

/**
 * Returns `assignCase(i)`: the case of arrival i. The mix's selection (`tags`, `exclude_tags`, `input_size`,
 * `min_input_tokens`, `max_input_tokens`) is applied first; then a class is drawn from the class weights (empty =
 * every class with a selected case, equal weight) and a case uniformly among the class's selected cases. Each draw
 * depends only on (seed, i), so shards and a closed loop's users get the same cases whatever order they ask in.
 * A class the workload lacks, a weighted class the selection leaves without a case, or a selection that leaves no
 * case at all is an {@linkcode InputError} naming the field (`mix.class_weights.<class>`, `mix`).
 */
export function caseMix(
  workload: Workload,
  mix: CaseMix,
  seed: number,
  planFile: string,
): (index: number) => WorkloadCase {
  const pools = mixPools(workload, mix, planFile);
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

/**
 * The chance that an arrival is of each class under the mix (its weight over the drawn classes' total, after the
 * selection; the classes {@linkcode caseMix} draws, in the same order), the same problems refused.
 *
 * @example Weights 3 and 1: three arrivals in four are chat
 * ```ts
 * import assert from "node:assert/strict";
 * import { classShares } from "./case_mix.ts";
 * const c = (case_id: string, cls: string) => ({ case_id, class: cls, input_size: "typical", input_tokens: 1 });
 * const workload = { workload: "w", cases: [c("a", "chat"), c("b", "rag")] } as never;
 * const shares = classShares(workload, { class_weights: { chat: 3, rag: 1 } }, "plan.json");
 * assert.deepEqual(shares, { chat: 0.75, rag: 0.25 });
 * ```
 */
export function classShares(workload: Workload, mix: CaseMix, planFile: string): Record<string, number> {
  return Object.fromEntries(mixPools(workload, mix, planFile).map((p) => [p.cls, p.p]));
}

/** The classes drawn, each with its selected cases and its chance; an InputError for a mix that cannot be drawn. */
function mixPools(
  workload: Workload,
  mix: CaseMix,
  planFile: string,
): { cls: string; cases: WorkloadCase[]; p: number }[] {
  const classes = new Set(workload.cases.map((c) => c.class));
  const byClass = new Map<string, WorkloadCase[]>();
  for (const c of workload.cases) {
    if (selectsCase(mix, c)) byClass.set(c.class, [...(byClass.get(c.class) ?? []), c]);
  }
  const selection = selectionText(mix);
  const given = Object.entries(mix.class_weights);
  const weights: [string, number][] = given.length ? given : [...byClass.keys()].map((k) => [k, 1]);
  const problems = given.filter(([cls]) => !byClass.has(cls)).map(([cls]) =>
    classes.has(cls)
      ? `${planFile}: mix.class_weights.${cls}: no case of class "${cls}" has ${selection} ` +
        `(classes with one: ${[...byClass.keys()].join(", ") || "none"})`
      : `${planFile}: mix.class_weights.${cls}: class "${cls}" is not in workload ${workload.workload} ` +
        `(its classes: ${[...classes].join(", ")})`
  );
  if (byClass.size === 0) {
    problems.push(`${planFile}: mix: no case of workload ${workload.workload} has ${selection}`);
  }
  const drawn = weights.filter(([, w]) => w > 0);
  if (given.length && problems.length === 0 && drawn.length === 0) {
    problems.push(`${planFile}: mix.class_weights: every weight is 0, so no class can be drawn`);
  }
  if (problems.length) throw new InputError(`${planFile}: invalid case mix`, problems);
  const total = drawn.reduce((s, [, w]) => s + w, 0);
  return drawn.map(([cls, w]) => ({ cls, cases: byClass.get(cls) ?? [], p: w / total }));
}
