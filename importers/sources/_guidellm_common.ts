/**
 * What both GuideLLM report schemas share: the benchmark's strategy as a stage, the `metrics` distributions as
 * headlines, the request lists by status, and what the file lacks.
 *
 * @module
 */
import { z } from "zod";
import type { SourceHeadline, SourceLack, SourceRun, SourceStage } from "../source.ts";
import { noGates } from "./_lacks.ts";
import { fileEntry, type SourceText } from "./_source_text.ts";
import { guidellmDefinition, type GuidellmSchema, guidellmStat, guidellmUnit } from "./_guidellm_terms.ts";

/** A scheduling strategy, as both schemas write it (`args.strategy` / `config.strategy`). */
export const Strategy = z.looseObject({
  type_: z.string(),
  rate: z.number().nullable().optional(),
  streams: z.number().int().nullable().optional(),
  max_concurrency: z.number().int().nullable().optional(),
});
export type Strategy = z.infer<typeof Strategy>;

/** The tool's request counts by status. */
export const Totals = z.object({
  successful: z.number().int().nonnegative(),
  errored: z.number().int().nonnegative(),
  incomplete: z.number().int().nonnegative(),
  total: z.number().int().nonnegative().nullable().optional(),
});

/** One distribution of a status split: numbers, percentiles, and a CDF/PDF the reader skips. */
const Distribution = z.looseObject({ percentiles: z.record(z.string(), z.number()).optional() }).nullable();
/** `metrics.<name>` = {successful, errored, incomplete, total}, each a distribution (or null). */
export const StatusDistribution = z.record(z.string(), Distribution);

/** The strategy's label: "synchronous", "concurrent@4", "constant@2", "poisson@1.5", "throughput". */
export function strategyLabel(s: Strategy): string {
  if ((s.type_ === "constant" || s.type_ === "poisson") && s.rate != null) return `${s.type_}@${s.rate}`;
  if (s.type_ === "concurrent" && s.streams != null) return `concurrent@${s.streams}`;
  return s.type_;
}

/** Each benchmark's stage name: its strategy's label, with `(benchmarks[i])` added where two benchmarks share one. */
export function stageNames(strategies: readonly Strategy[]): string[] {
  const names = strategies.map(strategyLabel);
  return names.map((n, i) => names.indexOf(n) === names.lastIndexOf(n) ? n : `${n} (benchmarks[${i}])`);
}

/** A GuideLLM run before its benchmarks are read: the report file (as `format`), the tool's version and the model. */
export function guidellmRun(
  src: SourceText,
  format: string,
  head: Pick<SourceRun, "tool_version" | "model">,
): SourceRun {
  return {
    tool: "guidellm",
    ...head,
    files: [fileEntry(src, format)],
    stages: [],
    requests: [],
    summary_only: false,
    headlines: [],
    lacks: [],
    notes: [],
  };
}

/** The stage of one benchmark: its strategy's rate or concurrency, window and the tool's totals. */
export function stageOf(
  name: string,
  s: Strategy,
  window: { start: number | null; end: number | null; duration: number | null },
  totals: z.infer<typeof Totals> | null,
): SourceStage {
  const open = s.type_ === "constant" || s.type_ === "poisson";
  const concurrency = s.type_ === "synchronous"
    ? 1
    : s.type_ === "concurrent"
    ? s.streams ?? null
    : s.type_ === "throughput"
    ? s.max_concurrency ?? null
    : null;
  return {
    name,
    rate_rps: open ? s.rate ?? null : null,
    concurrency,
    start_epoch_ms: window.start === null ? null : window.start * 1000,
    end_epoch_ms: window.end === null ? null : window.end * 1000,
    duration_s: window.duration,
    totals: totals
      ? { ok: totals.successful, error: totals.errored, cancelled: null, incomplete: totals.incomplete }
      : { ok: null, error: null, cancelled: null, incomplete: null },
  };
}

/** Statistics kept for each split: every number for `successful`, the count and mean for the others. */
const FULL = ["mean", "median", "mode", "std_dev", "min", "max", "count", "total_sum"];

/** The `metrics` distributions of one benchmark as headlines under `benchmarks[i].metrics.<name>.<split>.<stat>`. */
export function metricHeadlines(
  metrics: Record<string, unknown>,
  at: string,
  stage: string,
  schema: GuidellmSchema,
): SourceHeadline[] {
  const out: SourceHeadline[] = [];
  for (const [metric, raw] of Object.entries(metrics)) {
    const parsed = StatusDistribution.safeParse(raw);
    if (!parsed.success || metric === "request_totals") continue;
    const definition = guidellmDefinition(metric, schema);
    for (const [split, dist] of Object.entries(parsed.data)) {
      if (!dist) continue;
      const stats = split === "successful" ? FULL : ["mean", "count"];
      const push = (key: string, stat: string, value: unknown) => {
        if (typeof value !== "number") return;
        const unit = stat === "count" ? "values" : guidellmUnit(metric);
        out.push({ key, stage, value, unit, definition: `${guidellmStat(split, stat)} of ${metric}: ${definition}` });
      };
      for (const stat of stats) push(`${at}.metrics.${metric}.${split}.${stat}`, stat, dist[stat]);
      if (split !== "successful") continue;
      for (const [p, v] of Object.entries(dist.percentiles ?? {})) {
        push(`${at}.metrics.${metric}.${split}.percentiles.${p}`, p, v);
      }
    }
  }
  return out;
}

/** What a GuideLLM report lacks, for its schema and whether it keeps request records. */
export function guidellmLacks(withRecords: boolean, sampled: boolean): SourceLack[] {
  const lacks: SourceLack[] = [];
  if (!withRecords) {
    lacks.push({
      field: "per-request records",
      consequence: "The report keeps no request records (its requests lists are empty): percentiles under other " +
        "rules, latency from the targeted start and goodput under another SLO cannot be recomputed; the tool's " +
        "distributions stand as aggregate claims.",
    });
  } else if (sampled) {
    lacks.push({
      field: "requests (sampled)",
      consequence: "The file keeps fewer request records than the tool counted: counts, rates and percentiles " +
        "from the records describe a sample; the offered denominator is only in the tool's totals.",
    });
  }
  if (withRecords) {
    lacks.push({
      field: "per-token times",
      consequence: "Only the first and last token times of each request: inter-token gaps are not kept, so ITL is " +
        "the tool's per-request mean.",
    });
  }
  lacks.push({
    field: "token counts",
    consequence: "Token counts are the server's usage when the backend reported it, else GuideLLM's own count " +
      "(processor or streamed iterations); the file does not say which.",
  });
  lacks.push({
    field: "HTTP status",
    consequence: "Errored requests keep an error text, no HTTP status code.",
  });
  lacks.push(noGates());
  return lacks;
}
