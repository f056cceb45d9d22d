/**
 * A claim: a published number and whatever its publisher said about how it was computed — the input of
 * `deno task audit` (analysis/audit/claim.ts reads it; importers/to_claims.ts writes one per headline of a peer
 * tool's summary that maps onto an audit metric). Unstated rules stay absent; the audit fills them from the defaults
 * and lists them as assumed.
 *
 * @module
 */
import { z } from "zod";
import { SloPolicy, SloWindow } from "./slo.ts";

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

/**
 * A claim about a peer tool's own headline (issue 14): the tool's key as run.json `source.headlines` (an imported
 * run) or claims.json `headlines` (a summary-only import) keep it. `npx deno task audit` recomputes it under the
 * tool's stated rules from the per-request rows, then under this toolkit's, and lists the rule choices that
 * reproduce it (analysis/audit/headline_audit.ts).
 */
export const HeadlineClaim = z.object({
  /** The tool's key, verbatim (e.g. "records.request_throughput.avg", "request_throughput"). */
  headline: z.string().min(1),
  /** The headline's stage (the tool's label); null or absent = the one stage, or the whole run. */
  stage: z.string().nullable().default(null),
  /** The published value, in the tool's unit; absent = the value the imported files hold. */
  value: z.number().finite().optional(),
  /** The import folder (run.json of kind imported, or claims.json), relative to the claim file; or RUN on the CLI. */
  run: z.string().min(1).optional(),
  tolerance: z.object({
    absolute: z.number().nonnegative().optional(),
    relative: z.number().nonnegative().optional(),
  }).strict().optional(),
  /** An SLO policy (inline or a path relative to the claim file) for the recomputation under this toolkit's rules. */
  slo: z.union([SloPolicy, z.string().min(1)]).optional(),
  source: z.string().min(1),
}).strict();
export type HeadlineClaim = z.infer<typeof HeadlineClaim>;
