/**
 * A claim file: a published number and whatever its publisher said about
 * how it was computed. Unstated rules stay absent here; the audit fills them
 * from the defaults and lists them as assumed.
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { z } from "zod";
import { InputError } from "../../schema/errors.ts";
import { SloPolicy, SloWindow } from "../../schema/slo.ts";
import { loadSloPolicy } from "../goodput/policy.ts";

/** The default tolerance when a claim states none: 1 % of the claimed value (published numbers are rounded). */
export const DEFAULT_TOLERANCE = { absolute: 0, relative: 0.01 } as const;

/** A cross-field rule: `field` is required with metric latency_percentile (`required`) or forbidden without it. */
function latencyField(field: "latency_metric" | "p", required: boolean) {
  return (c: unknown): boolean => {
    const o = c !== null && typeof c === "object" ? c as Record<string, unknown> : {};
    return (o.metric === "latency_percentile") !== required || (o[field] !== undefined) === required;
  };
}

// `when` runs the rule even when other fields fail, so every problem is reported at once.
function latencyIssue(field: "latency_metric" | "p", required: boolean) {
  return {
    path: [field],
    message: required ? "required when metric is latency_percentile" : "only allowed when metric is latency_percentile",
    when: () => true,
  };
}

/** The claim file's schema. */
export const Claim = z.object({
  metric: z.enum(["accepted_goodput", "acceptance_rate", "slo_miss_rate", "latency_percentile"]),
  /** For `latency_percentile`: which latency. */
  latency_metric: z.enum(["e2e_ms", "ttft_ms", "tpot_ms"]).optional(),
  /** For `latency_percentile`: the percentile as a fraction (0.99 = p99). */
  p: z.number().gt(0).lte(1).optional(),
  /** The class the number is about; null or absent = all classes. */
  class: z.string().nullable().default(null),
  /** The stage the number is about; null or absent = the whole window. */
  stage: z.string().nullable().default(null),
  value: z.number().finite(),
  /** A value matches when |recomputed − value| ≤ max(absolute, relative · |value|). */
  tolerance: z.object({
    absolute: z.number().nonnegative().optional(),
    relative: z.number().nonnegative().optional(),
  }).strict().optional(),
  denominator: z.enum(["offered", "sent", "completed"]).optional(),
  /** The measurement window as stated: stages / excluded kinds, or an ms range. */
  window: SloWindow.optional(),
  /** An SLO policy, inline or as a path relative to the claim file. */
  slo: z.union([SloPolicy, z.string().min(1)]).optional(),
  /** Whether the quality/schema/safety/auth gates of the SLO were required. */
  gates: z.boolean().optional(),
  /** Whether warm-up stages were measured (ignored when `window` is stated). */
  warmup_included: z.boolean().optional(),
  /** Where the number was published (free text). */
  source: z.string().min(1),
}).strict()
  .refine(latencyField("latency_metric", true), latencyIssue("latency_metric", true))
  .refine(latencyField("p", true), latencyIssue("p", true))
  .refine(latencyField("latency_metric", false), latencyIssue("latency_metric", false))
  .refine(latencyField("p", false), latencyIssue("p", false));
export type Claim = z.infer<typeof Claim>;

/** A claim whose `slo` path has been read: `slo` is a policy, `slo_source` says where it came from. */
export type ResolvedClaim = Omit<Claim, "slo"> & { slo?: SloPolicy; slo_source?: string };

/**
 * Reads and validates a claim file (JSON). A string `slo` is read as an SLO
 * policy file relative to the claim. Errors are {@linkcode InputError}s
 * naming the file and every bad field at once.
 *
 * @example A missing file is an input error naming it
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadClaim } from "./claim.ts";
 * await assert.rejects(() => loadClaim("/nonexistent/claim.json"), /\/nonexistent\/claim.json/);
 * ```
 */
export async function loadClaim(file: string): Promise<ResolvedClaim> {
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    throw new InputError(`${file}: cannot read claim: ${(e as Error).message}`, [], { cause: e });
  }
  const res = Claim.safeParse(raw);
  if (!res.success) {
    const problems = res.error.issues.map((i) => `${file}: ${i.path.map(String).join(".") || "(root)"}: ${i.message}`);
    throw new InputError(`${file}: invalid claim`, problems);
  }
  const { slo, ...rest } = res.data;
  if (slo === undefined) return rest;
  if (typeof slo !== "string") return { ...rest, slo, slo_source: `${file} (inline)` };
  const path = isAbsolute(slo) ? slo : join(dirname(file), slo);
  try {
    return { ...rest, slo: await loadSloPolicy(path), slo_source: path };
  } catch (e) {
    throw new InputError(`${file}: slo: ${(e as Error).message}`, [], { cause: e });
  }
}
