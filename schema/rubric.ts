/**
 * Rubrics: the explicit scoring rules of an open-ended class, frozen with the workload (`rubrics.json` beside
 * workload.json). A rubric is versioned and hashed like a prompt: its `sha256` is the hash of its canonical JSON (every
 * field but `sha256`, keys sorted), checked when the workload loads, and every verdict names the hash it was scored by.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { z } from "zod";

/** A criterion's scale: pass/fail (1 = pass, 0 = fail) or whole points from `min` to `max`, passing at `pass_at`. */
export const CriterionScale = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("pass_fail") }).strict(),
  z.object({
    kind: z.literal("points"),
    min: z.number().int(),
    max: z.number().int(),
    /** The lowest score that passes the criterion. */
    pass_at: z.number().int(),
  }).strict().refine((s) => s.min < s.max && s.pass_at > s.min && s.pass_at <= s.max, {
    message: "points need min < pass_at ≤ max",
  }),
]);
export type CriterionScale = z.infer<typeof CriterionScale>;

/** One thing a rater or judge scores. */
export const Criterion = z.object({
  /** Lower-case id, the key of the verdict's `scores`. */
  id: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, "a lower-case id of letters, digits and _ (at most 40)"),
  /** What earns a pass, in words a rater applies without asking. */
  description: z.string().min(1),
  scale: CriterionScale,
}).strict();
export type Criterion = z.infer<typeof Criterion>;

/** A worked answer shown to raters and to the judge. */
export const RubricExample = z.object({
  answer: z.string().min(1),
  /** Why it passes or fails, criterion by criterion. */
  why: z.string().min(1),
}).strict();

/** A versioned rubric for the classes or cases it names. */
export const Rubric = z.object({
  rubric_id: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, "a lower-case id of letters, digits, _ and -"),
  version: z.string().regex(/^\d+\.\d+\.\d+$/, "a version like 1.0.0"),
  /** The classes whose cases it scores, and single cases (a case's own rubric wins over its class's). */
  applies_to: z.object({
    classes: z.array(z.string().min(1)).default([]),
    cases: z.array(z.string().min(1)).default([]),
  }).strict().refine((a) => a.classes.length + a.cases.length > 0, { message: "names no class and no case" }),
  /** What the rater reads first. */
  instructions: z.string().min(1),
  /** The answer passes when every criterion passes. */
  criteria: z.array(Criterion).min(1),
  examples: z.object({ pass: z.array(RubricExample).min(1), fail: z.array(RubricExample).min(1) }).strict(),
  /** sha256 of the rubric's canonical JSON without this field ({@linkcode rubricSha256}). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
}).strict().superRefine((r, ctx) => {
  const seen = new Set<string>();
  r.criteria.forEach((c, i) => {
    if (seen.has(c.id)) ctx.addIssue({ code: "custom", path: ["criteria", i, "id"], message: `repeats "${c.id}"` });
    seen.add(c.id);
  });
});
export type Rubric = z.infer<typeof Rubric>;

/** rubrics.json: the rubrics of one workload. */
export const RubricsFile = z.object({
  workload: z.string().min(1),
  rubrics: z.array(Rubric).min(1),
}).strict();
export type RubricsFile = z.infer<typeof RubricsFile>;

/** JSON text with every object's keys sorted, no spaces: the form a rubric is hashed in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${
      Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(value);
}

/**
 * The hash a rubric carries: hex sha256 of its canonical JSON (keys sorted, no spaces) with `sha256` left out.
 *
 * @example Key order does not change the hash, a word does
 * ```ts
 * import { rubricSha256 } from "./rubric.ts";
 * import assert from "node:assert/strict";
 * const a = { rubric_id: "r", version: "1.0.0", instructions: "Score it." };
 * const b = { instructions: "Score it.", version: "1.0.0", rubric_id: "r", sha256: "ignored" };
 * assert.equal(rubricSha256(a), rubricSha256(b));
 * assert.notEqual(rubricSha256(a), rubricSha256({ ...a, instructions: "Score it!" }));
 * ```
 */
export function rubricSha256(rubric: object): string {
  const { sha256: _, ...rest } = rubric as Record<string, unknown>;
  return createHash("sha256").update(canonicalJson(rest)).digest("hex");
}

/**
 * Whether `score` is on the criterion's scale (pass/fail: 0 or 1; points: a whole number from min to max).
 *
 * @example
 * ```ts
 * import { onScale } from "./rubric.ts";
 * import assert from "node:assert/strict";
 * const scale = { kind: "points", min: 1, max: 5, pass_at: 4 } as const;
 * assert.equal(onScale(scale, 5), true);
 * assert.equal(onScale(scale, 6), false);
 * assert.equal(onScale(scale, 4.5), false);
 * assert.equal(onScale({ kind: "pass_fail" }, 1), true);
 * ```
 */
export function onScale(scale: CriterionScale, score: number): boolean {
  if (!Number.isInteger(score)) return false;
  return scale.kind === "pass_fail" ? score === 0 || score === 1 : score >= scale.min && score <= scale.max;
}

/** Whether an on-scale score passes its criterion. */
export function criterionPasses(scale: CriterionScale, score: number): boolean {
  return scale.kind === "pass_fail" ? score === 1 : score >= scale.pass_at;
}

/**
 * The verdict a rubric gives a full set of scores: pass when every criterion passes. Scores must name every criterion
 * once, on its scale; anything else is a list of problems (an empty list: the scores are complete).
 *
 * @example Two criteria, one short of its pass mark
 * ```ts
 * import { rubricVerdict } from "./rubric.ts";
 * import assert from "node:assert/strict";
 * const rubric = { criteria: [
 *   { id: "faithful", description: "d", scale: { kind: "pass_fail" } },
 *   { id: "coverage", description: "d", scale: { kind: "points", min: 1, max: 5, pass_at: 4 } },
 * ] } as const;
 * assert.deepEqual(rubricVerdict(rubric, { faithful: 1, coverage: 3 }), { pass: false, problems: [] });
 * assert.deepEqual(rubricVerdict(rubric, { faithful: 1, coverage: 4 }), { pass: true, problems: [] });
 * assert.equal(rubricVerdict(rubric, { faithful: 1, coverage: 9 }).pass, null);
 * ```
 */
export function rubricVerdict(
  rubric: { readonly criteria: readonly Criterion[] },
  scores: Readonly<Record<string, number>>,
): { pass: boolean | null; problems: string[] } {
  const problems: string[] = [];
  let pass = true;
  for (const c of rubric.criteria) {
    const s = scores[c.id];
    if (s === undefined) {
      problems.push(`no score for criterion "${c.id}"`);
      continue;
    }
    if (typeof s !== "number" || !onScale(c.scale, s)) {
      const range = c.scale.kind === "pass_fail" ? "0 or 1" : `a whole number from ${c.scale.min} to ${c.scale.max}`;
      problems.push(`criterion "${c.id}": ${JSON.stringify(s)} is off its scale (${range})`);
      continue;
    }
    if (!criterionPasses(c.scale, s)) pass = false;
  }
  const known = new Set(rubric.criteria.map((c) => c.id));
  for (const k of Object.keys(scores)) if (!known.has(k)) problems.push(`"${k}" is not a criterion of the rubric`);
  return { pass: problems.length ? null : pass, problems };
}
