/**
 * GuideLLM's `metadata.version: 2` report (0.4 and later; the fixture is 0.8.0.dev18): `benchmarks[]` with
 * `config.strategy`, `metrics.request_totals` and the `metrics` distributions, and request records
 * (`generative_request_stats`, times in `info.timings`, epoch seconds) only when the run kept samples.
 *
 * @module
 */
import { z } from "zod";
import type { SourceOutcome, SourceRequest, SourceRun } from "../source.ts";
import { checked, secondsToMs, type SourceText } from "./_source_text.ts";
import {
  guidellmLacks,
  guidellmRun,
  metricHeadlines,
  stageNames,
  stageOf,
  Strategy,
  Totals,
} from "./_guidellm_common.ts";

const maybe = z.number().finite().nullable().optional();
const Record_ = z.looseObject({
  request_id: z.string(),
  info: z.looseObject({
    status: z.string().optional(),
    error: z.string().nullable().optional(),
    timings: z.looseObject({
      targeted_start: maybe,
      resolve_start: maybe,
      request_start: maybe,
      first_token_iteration: maybe,
      last_token_iteration: maybe,
      token_iterations: z.number().int().optional(),
      request_end: maybe,
      resolve_end: maybe,
    }),
  }),
  prompt_tokens: z.number().int().nonnegative().nullable().optional(),
  output_tokens: z.number().int().nonnegative().nullable().optional(),
  request_latency: maybe,
  time_to_first_token_ms: maybe,
  time_per_output_token_ms: maybe,
  inter_token_latency_ms: maybe,
});
type Record_ = z.infer<typeof Record_>;
const list = z.array(Record_).nullable().optional();
const Benchmark = z.looseObject({
  config: z.looseObject({
    strategy: Strategy,
    backend: z.looseObject({ model: z.string().nullable().optional() }).optional(),
  }),
  metrics: z.looseObject({ request_totals: Totals }),
  requests: z.looseObject({ successful: list, errored: list, incomplete: list }),
  start_time: z.number(),
  end_time: z.number(),
  duration: maybe,
});
export const ReportV2 = z.object({
  metadata: z.looseObject({ version: z.literal(2), guidellm_version: z.string().optional() }),
  benchmarks: z.array(Benchmark).min(1),
});

const STATUS: ["successful" | "errored" | "incomplete", SourceOutcome][] = [
  ["successful", "ok"],
  ["errored", "error"],
  ["incomplete", "incomplete"],
];

function request(r: Record_, at: string, stage: string, outcome: SourceOutcome): SourceRequest {
  const tm = r.info.timings;
  const start = tm.request_start ?? tm.resolve_start ?? null;
  const end = tm.request_end ?? tm.resolve_end ?? null;
  return {
    id: r.request_id,
    at,
    stage,
    outcome,
    tool_status: r.info.error ?? (outcome === "ok" ? null : r.info.status ?? null),
    http_status: null,
    scheduled_epoch_ms: secondsToMs(tm.targeted_start),
    sent_epoch_ms: secondsToMs(start),
    first_token_epoch_ms: secondsToMs(tm.first_token_iteration),
    completed_epoch_ms: outcome === "ok" ? secondsToMs(end) : null,
    ttft_ms: r.time_to_first_token_ms ?? null,
    e2e_ms: outcome === "ok" ? secondsToMs(r.request_latency) : null,
    itl_ms: null,
    input_tokens: r.prompt_tokens ?? null,
    output_tokens: r.output_tokens ?? null,
    token_source: null,
    tool_metrics: {
      "guidellm.time_per_output_token_ms": r.time_per_output_token_ms ?? null,
      "guidellm.inter_token_latency_ms": r.inter_token_latency_ms ?? null,
      "guidellm.last_token_epoch_ms": secondsToMs(tm.last_token_iteration),
      "guidellm.end_epoch_ms": secondsToMs(end),
    },
  };
}

/** Reads a version 2 report already parsed (from JSON or YAML). */
export function readGuidellmV2(value: unknown, src: SourceText, format: string): SourceRun {
  const report = checked(ReportV2, value, src.path, { what: "GuideLLM metadata.version 2 report" });
  const unique = stageNames(report.benchmarks.map((b) => b.config.strategy));
  const run = guidellmRun(src, format, {
    tool_version: report.metadata.guidellm_version ?? null,
    model: report.benchmarks[0]!.config.backend?.model ?? null,
  });
  let sampled = false;
  for (const [i, b] of report.benchmarks.entries()) {
    const stage = unique[i]!;
    const at = `benchmarks[${i}]`;
    const tot = b.metrics.request_totals;
    run.stages.push(
      stageOf(stage, b.config.strategy, { start: b.start_time, end: b.end_time, duration: b.duration ?? null }, tot),
    );
    let kept = 0;
    for (const [status, outcome] of STATUS) {
      for (const [j, r] of (b.requests[status] ?? []).entries()) {
        run.requests.push(request(r, `${src.path}: ${at}.requests.${status}[${j}]`, stage, outcome));
        kept++;
      }
    }
    const counted = tot.successful + tot.errored + tot.incomplete;
    if (kept < counted) {
      sampled ||= kept > 0;
      run.notes.push(`${at} keeps ${kept} request records of the ${counted} it counted (metrics.request_totals).`);
    }
    run.headlines.push(...metricHeadlines(b.metrics, at, stage, "v2"));
  }
  run.summary_only = run.requests.length === 0;
  run.lacks = guidellmLacks(!run.summary_only, sampled);
  return run;
}
